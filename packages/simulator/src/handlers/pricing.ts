// Handlers for the "pricing" operations: POST /api/v1/pricing/inspiration/. The body is checked with
// the core schema (naming the field); the formula and SPEC GAP choices are in
// ../domain/pricing.ts.
import { PricingInspirationRequest } from '@selling-kit/api-client/core';
import { pricingInspiration } from '../domain/pricing.ts';
import { parseBody } from './orders.ts';
import type { Handlers } from './types.ts';

export const pricingHandlers: Handlers = {
  'pricing.inspiration': ({ world, seller, body }) => ({
    body: pricingInspiration(
      world,
      seller,
      parseBody(PricingInspirationRequest, body, 'PricingInspirationRequest'),
    ),
  }),
};
