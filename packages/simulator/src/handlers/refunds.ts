// Handlers for the "refunds" operations: POST /api/v1/orders/{purchase_id}/refund/ (rule 10).
// The rules and their SPEC GAP choices are in ../domain/refunds.ts.
import { checkRefundBody, refundOrder } from '../domain/refunds.ts';
import { findOrder } from '../domain/orders.ts';
import type { Handlers } from './types.ts';

export const refundsHandlers: Handlers = {
  'refunds.create': ({ seller, params, body, now, events }) => {
    checkRefundBody(body); // the body is checked before the order is looked up
    refundOrder(findOrder(seller, params.purchase_id), body, { now, events });
    return {};
  },
};
