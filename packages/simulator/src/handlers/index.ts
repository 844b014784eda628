// Every handler file contributes its operations, keyed by operation id (see the client core's
// operation table); the server registers a route for each and parses each body with the table's schema,
// except for the nouns below.
import type { Handlers } from './types.ts';
import { productsHandlers } from './products.ts';
import { offersHandlers } from './offers.ts';
import { ordersHandlers } from './orders.ts';
import { refundsHandlers } from './refunds.ts';
import { shippingHandlers } from './shipping.ts';
import { shopHandlers } from './shop.ts';
import { insightsHandlers } from './insights.ts';
import { pricingHandlers } from './pricing.ts';
import { webhooksHandlers } from './webhooks.ts';
import { authHandlers } from './auth.ts';
import { statusHandlers } from './status.ts';

export const handlers: Handlers = {
  ...productsHandlers,
  ...offersHandlers,
  ...ordersHandlers,
  ...refundsHandlers,
  ...shippingHandlers,
  ...shopHandlers,
  ...insightsHandlers,
  ...pricingHandlers,
  ...webhooksHandlers,
  ...authHandlers,
  ...statusHandlers,
};

/**
 * Nouns whose handlers take the body as sent and check it with the core's rules (rules/<noun>.ts) in the
 * service's order — scopes and the seller's state before the fields, a refund's body before its order —
 * so each failure carries the code the spec names for it. Every other operation's handler receives its
 * body already parsed by the operation's table schema.
 */
export const RULE_FIRST_NOUNS: ReadonlySet<string> = new Set(['products', 'offers', 'refunds']);
