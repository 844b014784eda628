// Every handler file contributes its operations, keyed by operation id (see the client core's
// operation table); the server registers a route for each.
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
