// Rule 10: a refund needs a positive item amount and/or a positive shipping amount, neither above the
// product price or the shipping price. Without `RefundOrderFacts` only the stateless checks run (shape,
// at least one amount, each positive): the limits are the service's, known to the client only when the
// caller states them; the simulator passes the order's (see its domain/refunds.ts for what they are).
import { RefundOrderRequest } from '../schemas/refunds.ts';
import { formatMoney, parseMoney } from './money.ts';
import { violation, violationsFromZod, type RuleViolation } from './violations.ts';

export interface RefundOrderFacts {
  /**
   * What may still be refunded for the items (the order's products' prices, summed, less earlier item
   * refunds) and for shipping (the shipping price less earlier shipping refunds), in cents.
   */
  itemPriceCents: number;
  shippingPriceCents: number;
  /** The order's products and their prices: the items limit is theirs, summed, and the answer names them. */
  products?: { productId: number; priceCents: number }[];
}

/** "the product price 25.00" or "the products' prices (product 1 25.00 + product 2 30.00)". */
function itemLimitText(order: RefundOrderFacts): string {
  const products = order.products ?? [];
  if (products.length < 2) return `the product price ${formatMoney(order.itemPriceCents)}`;
  const each = products.map((p) => `product ${p.productId} ${formatMoney(p.priceCents)}`).join(' + ');
  return `what is left of the products' prices (${each}): ${formatMoney(order.itemPriceCents)}`;
}

const NEGATIVE_MONEY = /^-\d+(\.\d{1,2})?$/;

export function checkRefund(body: unknown, order?: RefundOrderFacts): RuleViolation[] {
  // A negative amount is well-formed but breaks rule 10 (positive amounts): 422, not a parse error.
  const negative = ['items_refund_amount', 'shipping_refund_amount'].filter((f) => {
    const v = (body as Record<string, unknown> | null)?.[f];
    return typeof v === 'string' && NEGATIVE_MONEY.test(v);
  });
  if (negative.length)
    return negative.map((f) => violation(f, 'positive', 'validation', `${f} must be positive`));
  const parsed = RefundOrderRequest.safeParse(body);
  if (!parsed.success) return violationsFromZod(parsed.error);
  const b = parsed.data;
  const items = b.items_refund_amount === undefined ? null : parseMoney(b.items_refund_amount);
  const shipping = b.shipping_refund_amount === undefined ? null : parseMoney(b.shipping_refund_amount);
  const out: RuleViolation[] = [];
  if (items === null && shipping === null) {
    out.push(
      violation(
        'items_refund_amount',
        'an item and/or shipping amount is required',
        'validation',
        'a refund needs items_refund_amount and/or shipping_refund_amount',
      ),
    );
    return out;
  }
  if (items === 0)
    out.push(
      violation('items_refund_amount', 'positive', 'validation', 'items_refund_amount must be positive'),
    );
  if (shipping === 0)
    out.push(
      violation(
        'shipping_refund_amount',
        'positive',
        'validation',
        'shipping_refund_amount must be positive',
      ),
    );
  if (order && items !== null && items > order.itemPriceCents) {
    out.push(
      violation(
        'items_refund_amount',
        'not above the product price',
        'validation',
        `items_refund_amount ${b.items_refund_amount} exceeds ${itemLimitText(order)}`,
      ),
    );
  }
  if (order && shipping !== null && shipping > order.shippingPriceCents) {
    out.push(
      violation(
        'shipping_refund_amount',
        'not above the shipping price',
        'validation',
        `shipping_refund_amount ${b.shipping_refund_amount} exceeds the shipping price ${formatMoney(order.shippingPriceCents)}`,
      ),
    );
  }
  return out;
}
