// Refunds (rule 10): parsing the request, checking it against the order, recording it.
//
// SPEC GAPs chosen here:
// - Status: an order becomes REFUNDED once its items are refunded in full (cumulatively); a partial
//   refund leaves the status as it was (the order still has to ship), with `refund_summary` present.
// - "Full refund" for platform-shipped orders: a shipping amount is accepted only when it equals the
//   whole shipping price and, together with this and earlier refunds, the items are refunded in full.
// - Several refunds per order are allowed; each is checked against what is still refundable
//   (items: the sum of the sold prices minus earlier item refunds; shipping: the buyer's shipping
//   price minus earlier shipping refunds).
// - A CANCELLED order cannot be refunded (422 validation).
// - Malformed amounts (not a decimal string with at most 2 decimals) → 400 bad-request naming the
//   field; well-formed amounts ≤ 0 → 422 validation (rule 10: each given amount must be positive).
import { apiError } from '../errors.ts';
import type { EventSink } from '../handlers/types.ts';
import type { OrderRecord, RefundRecord } from '../state.ts';
import { formatCents, itemsTotalCents, refundedCents, toCents } from './orders.ts';

export interface RefundInput {
  itemsCents?: number;
  shippingCents?: number;
  message?: string;
}

const SIGNED_MONEY = /^-?\d+(\.\d{1,2})?$/;
const RULE_10 =
  'rule 10: a refund needs a positive items and/or shipping amount, not exceeding the product price and shipping price';

function amountField(body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !SIGNED_MONEY.test(value))
    throw apiError(
      'bad-request',
      `field "${field}": must be a decimal string with at most 2 decimals, e.g. "12.50"`,
    );
  return toCents(value)!;
}

/** Parses a `RefundOrderRequest` body: shape errors → 400 bad-request, non-positive amounts → 422. */
export function parseRefundRequest(body: unknown): RefundInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw apiError('bad-request', 'the request body must be a JSON object (RefundOrderRequest)');
  const b = body as Record<string, unknown>;
  const itemsCents = amountField(b, 'items_refund_amount');
  const shippingCents = amountField(b, 'shipping_refund_amount');
  const message = b.send_buyer_message;
  if (message !== undefined && typeof message !== 'string')
    throw apiError('bad-request', 'field "send_buyer_message": must be a string');
  if (itemsCents === undefined && shippingCents === undefined)
    throw apiError('validation', `give items_refund_amount and/or shipping_refund_amount (${RULE_10})`);
  const problems: string[] = [];
  if (itemsCents !== undefined && itemsCents <= 0) problems.push('items_refund_amount must be positive');
  if (shippingCents !== undefined && shippingCents <= 0)
    problems.push('shipping_refund_amount must be positive');
  if (problems.length) throw apiError('validation', `${problems.join('; ')} (${RULE_10})`);
  return {
    ...(itemsCents !== undefined ? { itemsCents } : {}),
    ...(shippingCents !== undefined ? { shippingCents } : {}),
    ...(message !== undefined ? { message } : {}),
  };
}

/** The rule violations of a refund against the order's remaining refundable amounts (empty = allowed). */
export function refundViolations(order: OrderRecord, input: RefundInput): string[] {
  if (order.status === 'CANCELLED') return [`order ${order.purchaseId} is CANCELLED and cannot be refunded`];
  const items = input.itemsCents ?? 0;
  const shipping = input.shippingCents ?? 0;
  const already = refundedCents(order);
  const itemsLeft = itemsTotalCents(order) - already.items;
  const shippingLeft = order.buyerShippingPriceCents - already.shipping;
  const problems: string[] = [];
  if (items > itemsLeft)
    problems.push(
      `items_refund_amount ${formatCents(items)} exceeds the refundable product price ${formatCents(Math.max(0, itemsLeft))}` +
        (already.items > 0 ? ` (${formatCents(already.items)} already refunded)` : ''),
    );
  if (shipping > shippingLeft)
    problems.push(
      `shipping_refund_amount ${formatCents(shipping)} exceeds the refundable shipping price ${formatCents(Math.max(0, shippingLeft))}` +
        (already.shipping > 0 ? ` (${formatCents(already.shipping)} already refunded)` : ''),
    );
  if (order.depopShipping && shipping > 0 && problems.length === 0) {
    const fullShipping = shipping === shippingLeft;
    const fullItems = items === itemsLeft;
    if (!fullShipping || !fullItems)
      problems.push(
        'for orders with platform shipping the shipping is refundable only within a full refund: ' +
          `refund the remaining items amount ${formatCents(itemsLeft)} and the whole shipping price ${formatCents(shippingLeft)} together`,
      );
  }
  return problems;
}

/**
 * Checks and records a refund; 422 validation (naming rule 10) when it breaks a rule. The order
 * becomes REFUNDED once its items are refunded in full. Emits `v1:order.refund` (refunded_by PARTNER).
 */
export function refundOrder(
  order: OrderRecord,
  input: RefundInput,
  opts: { now: number; events: EventSink },
): RefundRecord {
  const problems = refundViolations(order, input);
  if (problems.length) throw apiError('validation', `${problems.join('; ')} (${RULE_10})`);
  const record: RefundRecord = {
    itemsAmountCents: input.itemsCents ?? 0,
    shippingAmountCents: input.shippingCents ?? 0,
    at: opts.now,
    ...(input.message !== undefined ? { message: input.message } : {}),
  };
  order.refunds.push(record);
  if (refundedCents(order).items >= itemsTotalCents(order)) order.status = 'REFUNDED';
  opts.events.emit(order.sellerId, 'v1:order.refund', {
    purchase_id: order.purchaseId,
    refunded_by: 'PARTNER',
  });
  return record;
}
