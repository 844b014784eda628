// Probes of the offer rules: the automatic offer prices (rules 6 and 7, on a create of this run) and
// manual offers (rules 8 and 9) to the test user who liked the run's webhook listing — each offer breaks
// one rule, so none is ever made by a conforming service.
import { DEFAULT_MIN_PERCENT_OFF, formatMoney, parseMoney } from '@selling-kit/api-client';
import type { ProbeContext } from './context.ts';
import { expectReply, type Probe } from './probe.ts';
import { HOOK_LISTING, needsReceiver } from './webhooks.ts';

const priceCents = (ctx: ProbeContext) => parseMoney(ctx.template.body.price_amount) ?? 2000;

/** A manual offer to the liker of the webhook listing, valid but for `changes`. */
async function offer(ctx: ProbeContext, changes: Record<string, unknown>) {
  const l = ctx.listing(HOOK_LISTING);
  if (ctx.likerId === undefined) throw new Error('no liker id (the like webhook did not arrive)');
  const body = {
    offer_recipient_id: ctx.likerId,
    offer_value: Math.floor(priceCents(ctx) / 2) / 100,
    offer_currency: ctx.template.body.price_currency,
    ...changes,
  };
  return ctx.call((o) => ctx.client.offers.submitBySku(l.sku, body as never, o));
}

const MANUAL = {
  needs: ['webhooks.like-delivery'],
  unavailable: needsReceiver,
};

export const autoOfferProbes: Probe[] = [
  {
    id: 'offers.auto-send-not-below-price',
    spec: 'Rule 6: "auto_send_offer_price and discount_price must be below the product price." (code validation)',
    expected: '422 validation',
    choice: '',
    async run(ctx) {
      const r = await ctx.create('asend', { auto_send_offer_price: ctx.template.body.price_amount });
      return expectReply(r.reply, 422, 'validation');
    },
  },
  {
    id: 'offers.auto-negotiate-above-limit',
    spec: 'Rule 7: "auto_negotiate_offer_price must not exceed price minus the minimum percentage off." (code validation)',
    expected: '422 validation',
    choice: `the minimum percentage off is ${DEFAULT_MIN_PERCENT_OFF} % (public reference; the spec names no number)`,
    async run(ctx) {
      const onePercentOff = formatMoney(Math.floor(priceCents(ctx) * 0.99));
      const r = await ctx.create('aneg', { auto_negotiate_offer_price: onePercentOff });
      return expectReply(r.reply, 422, 'validation');
    },
  },
];

export const manualOfferProbes: Probe[] = [
  {
    id: 'offers.manual-wrong-currency',
    spec: 'Rule 8: "A manual offer must be in the product currency …" (code validation)',
    expected: '422 validation',
    choice: '',
    ...MANUAL,
    async run(ctx) {
      const other = ctx.template.body.price_currency === 'USD' ? 'GBP' : 'USD';
      return expectReply(await offer(ctx, { offer_currency: other }), 422, 'validation');
    },
  },
  {
    id: 'offers.manual-not-enough-off',
    spec: 'Rule 8: "… and at least the minimum percentage below the price." (code validation)',
    expected: '422 validation',
    choice: `the minimum percentage off is ${DEFAULT_MIN_PERCENT_OFF} % (public reference; the spec names no number)`,
    ...MANUAL,
    async run(ctx) {
      const value = Math.floor(priceCents(ctx) * 0.99) / 100;
      return expectReply(await offer(ctx, { offer_value: value }), 422, 'validation');
    },
  },
  {
    id: 'offers.manual-size-on-single-size',
    spec: 'Rule 9: "A size ID is … forbidden for single-size products when submitting an offer." (code validation)',
    expected: '422 validation',
    choice: '',
    ...MANUAL,
    async run(ctx) {
      const sizeId = Number(ctx.template.body.size_id ?? 1);
      return expectReply(await offer(ctx, { size_id: sizeId }), 422, 'validation');
    },
  },
];
