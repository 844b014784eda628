// Handlers for the "insights" operations: live shop and product insights. Each section appears only
// when the credential holds the scope that unlocks it (the server already checked that at least one
// of them is held). Counting rules and their SPEC GAP choices are in ../domain/insights.ts.
import { PRODUCT_KEYS } from '@selling-kit/api-client/core';
import { productInsights, shopInsights } from '../domain/insights.ts';
import { findProduct } from '../domain/product-lookup.ts';
import { keyParam, keySuffix } from './products.ts';
import type { Handler, Handlers } from './types.ts';

export const insightsHandlers: Handlers = {
  'insights.shop': ({ seller, principal, now }) => ({ body: shopInsights(seller, principal.scopes, now) }),
  // A product as reads see it: missing, another seller's, removed or not yet visible → 404.
  ...Object.fromEntries(
    PRODUCT_KEYS.map((key): [string, Handler] => [
      `insights.product${keySuffix(key)}`,
      ({ seller, principal, params, now }) => ({
        body: productInsights(
          seller,
          findProduct(seller, key, keyParam(params, key), now),
          principal.scopes,
          now,
        ),
      }),
    ]),
  ),
};
