// Handlers for the "pricing" operations: POST /api/v1/pricing/inspiration/. The body arrives parsed by
// the table's schema (server.ts); the formula and SPEC GAP choices are in ../domain/pricing.ts.
import type { PricingInspirationRequest } from '@selling-kit/api-client/core';
import { pricingInspiration } from '../domain/pricing.ts';
import type { Handlers } from './types.ts';

export const pricingHandlers: Handlers = {
  'pricing.inspiration': ({ world, seller, body }) => ({
    body: pricingInspiration(world, seller, body as PricingInspirationRequest),
  }),
};
