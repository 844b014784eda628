// Handlers for the "refunds" operations: POST /api/v1/orders/{purchase_id}/refund/ (rule 10).
// The rules and their SPEC GAP choices are in ../domain/refunds.ts.
import { parseRefundRequest, refundOrder } from '../domain/refunds.ts';
import { findOrder } from './orders.ts';
import type { Handlers } from './types.ts';

export const refundsHandlers: Handlers = {
  'refunds.create': ({ seller, params, body, now, events }) => {
    const input = parseRefundRequest(body);
    const order = findOrder(seller, params.purchase_id);
    refundOrder(order, input, { now, events });
    return {};
  },
};
