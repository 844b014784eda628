// Refunds (rule 10): the shared rule check (client core) against what is still refundable, the
// platform-shipping rule, and recording the refund.
//
// SPEC GAPs chosen here:
// - Status: an order becomes REFUNDED once its items are refunded in full (cumulatively); a partial
//   refund leaves the status as it was (the order still has to ship), with `refund_summary` present.
// - "Full refund" for platform-shipped orders: a shipping amount is accepted only when it equals the
//   whole shipping price and, together with this and earlier refunds, the items are refunded in full.
// - Which prices (rule 10: "not exceeding the product price and shipping price"): the request carries
//   one items amount for the whole order, so the limit is per product of the order, summed: each line
//   item's sold_price (what the buyer paid for that product after a discount or offer, never above its
//   original_price; a product bought twice is two line items). The shipping limit is the order's
//   buyer_shipping_price (one parcel, one shipping price).
// - Earlier refunds count: several refunds per order are allowed, each checked against what is still
//   refundable (the limits above minus earlier item and shipping refunds).
// - A CANCELLED order cannot be refunded (422 validation).
// - Amounts ≤ 0 → 422 validation; a malformed amount is answered as core rules/violations.ts maps it.
import { checkRefund, parseMoney, type RuleViolation } from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { EventSink } from '../platform/events.ts';
import type { OrderRecord, RefundRecord } from '../state.ts';
import { formatCents, toCents } from './money.ts';
import { itemsTotalCents, refundedCents } from './orders.ts';

const RULE_10 =
  'rule 10: a refund needs a positive items and/or shipping amount, not exceeding the product price and shipping price';

function fail(v: RuleViolation): never {
  throw apiError(v.code, v.code === 'validation' ? `${v.message} (${RULE_10})` : v.message);
}

/** Shape and positivity of a `RefundOrderRequest`, before the order is looked up. */
export function checkRefundBody(body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw apiError('bad-request', 'the request body must be a JSON object (RefundOrderRequest)');
  const first = checkRefund(body)[0];
  if (first) fail(first);
}

/**
 * Checks a refund against the order and records it; 422 validation (naming rule 10) when it breaks a
 * rule. The order becomes REFUNDED once its items are refunded in full. Emits `v1:order.refund`.
 */
export function refundOrder(
  order: OrderRecord,
  body: unknown,
  opts: { now: number; events: EventSink },
): RefundRecord {
  checkRefundBody(body);
  if (order.status === 'CANCELLED')
    throw apiError('validation', `order ${order.purchaseId} is CANCELLED and cannot be refunded`);
  const already = refundedCents(order);
  const itemsLeft = Math.max(0, itemsTotalCents(order) - already.items);
  const shippingLeft = Math.max(0, order.buyerShippingPriceCents - already.shipping);
  const products = order.lineItems.map((li) => ({
    productId: li.product_id,
    priceCents: toCents(li.sold_price) ?? 0,
  }));
  const first = checkRefund(body, {
    itemPriceCents: itemsLeft,
    shippingPriceCents: shippingLeft,
    products,
  })[0];
  if (first) {
    const note =
      already.items + already.shipping > 0
        ? ` (${formatCents(already.items + already.shipping)} already refunded)`
        : '';
    fail({ ...first, message: first.message + note });
  }
  const b = body as {
    items_refund_amount?: string;
    shipping_refund_amount?: string;
    send_buyer_message?: string;
  };
  const items = b.items_refund_amount === undefined ? 0 : parseMoney(b.items_refund_amount)!;
  const shipping = b.shipping_refund_amount === undefined ? 0 : parseMoney(b.shipping_refund_amount)!;
  if (order.depopShipping && shipping > 0 && (shipping !== shippingLeft || items !== itemsLeft)) {
    throw apiError(
      'validation',
      'for orders with platform shipping the shipping is refundable only within a full refund: ' +
        `refund the remaining items amount ${formatCents(itemsLeft)} and the whole shipping price ${formatCents(shippingLeft)} together`,
    );
  }
  const record: RefundRecord = {
    itemsAmountCents: items,
    shippingAmountCents: shipping,
    at: opts.now,
    ...(b.send_buyer_message !== undefined ? { message: b.send_buyer_message } : {}),
  };
  order.refunds.push(record);
  if (refundedCents(order).items >= itemsTotalCents(order)) order.status = 'REFUNDED';
  opts.events.emit(order.sellerId, 'v1:order.refund', {
    purchase_id: order.purchaseId,
    refunded_by: 'PARTNER',
  });
  return record;
}
