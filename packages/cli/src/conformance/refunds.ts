// Probes of rule 10 on the order of the run's test purchase: each refund request breaks the rule, so a
// conforming service refunds nothing.
import { formatMoney, parseMoney } from '@selling-kit/api-client';
import type { ProbeContext } from './context.ts';
import { expectReply, type Probe } from './probe.ts';
import { needsReceiver } from './webhooks.ts';

const RULE_10 =
  'Rule 10: "A refund needs a positive item amount and/or a positive shipping amount, not exceeding the product price and shipping price respectively." (code validation)';

/** A refund request of the purchase's order. */
function refund(ctx: ProbeContext, body: Record<string, unknown>) {
  if (!ctx.purchaseId) throw new Error('no purchase id (the order webhook did not arrive)');
  return ctx.call((o) => ctx.client.refunds.create(ctx.purchaseId!, body as never, o));
}

/** 100.00 more than the template's amount (never a refundable amount). */
const above = (amount: string | undefined) => formatMoney((parseMoney(amount) ?? 0) + 10_000);

/** A probe whose refund request (`body`, from the run's template) breaks rule 10: refused, 422. */
function refusedRefund(id: string, body: (ctx: ProbeContext) => Record<string, unknown>): Probe {
  return {
    id,
    spec: RULE_10,
    expected: '422 validation',
    choice: '',
    needs: ['webhooks.purchase-order-new'],
    unavailable: needsReceiver,
    run: async (ctx) => expectReply(await refund(ctx, body(ctx)), 422, 'validation'),
  };
}

export const refundProbes: Probe[] = [
  refusedRefund('refunds.no-amount', () => ({})),
  refusedRefund('refunds.items-above-price', (ctx) => ({
    items_refund_amount: above(ctx.template.body.price_amount),
  })),
  refusedRefund('refunds.shipping-above-shipping-price', (ctx) => ({
    shipping_refund_amount: above(ctx.template.body.national_shipping_cost),
  })),
];
