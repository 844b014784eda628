// Probes of webhooks, run only with a receiver (the embedded simulator's own, or `--webhook-receiver`):
// subscribe the receiver, like the run's webhook listing (staging-only test like), buy it (staging-only
// test purchase — the only purchase this command ever sends, and only on its own listing), then check
// each delivery's event and signature.
import { verifyWebhook, WebhookVerificationError } from '@selling-kit/api-client';
import type { ProbeContext, SharedListing } from './context.ts';
import { expectState } from './products.ts';
import { expectSuccess, isSuccess, showReply, type Check, type Probe } from './probe.ts';
import type { Delivery } from './receiver.ts';
import { stateOf, STATE_CHOICE } from './states.ts';

/** The listing liked, offered on (offers.ts) and bought. */
export const HOOK_LISTING = 'hook';

export const needsReceiver = (ctx: ProbeContext) =>
  ctx.receiver ? undefined : 'needs --webhook-receiver (a test like and purchase are sent only with one)';

/** Deliveries need the receiver subscribed first (where the service has the endpoint). */
const AFTER_SUBSCRIBE = ['webhooks.subscribe'];

const eventOf = (d: Delivery) => d.event?.event_type;
const dataOf = (d: Delivery) => d.event?.data ?? {};
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The webhook listing, created (and read back) the first time a probe needs it. */
async function hookListing(ctx: ProbeContext): Promise<SharedListing> {
  const known = ctx.listings.get(HOOK_LISTING);
  if (known) return known;
  const made = await ctx.createShared(HOOK_LISTING);
  if (!made.listing)
    throw new Error(`the webhook test listing could not be created: ${showReply(made.reply)}`);
  return made.listing;
}

/** Waits for an event about this listing; the answer says what arrived (or that nothing did). */
async function waitForEvent(
  ctx: ProbeContext,
  eventType: string,
  listing: SharedListing,
  match: (data: Record<string, unknown>) => boolean = () => true,
): Promise<{ delivery?: Delivery; waited: string }> {
  const started = Date.now();
  const about = (data: Record<string, unknown>) =>
    data.product_id === listing.productId ||
    data.sku === listing.sku ||
    (Array.isArray(data.line_items) &&
      data.line_items.some((i: { product_id?: unknown }) => i?.product_id === listing.productId));
  const delivery = await ctx.receiver!.waitFor(
    (d) => eventOf(d) === eventType && about(dataOf(d)) && match(dataOf(d)),
    ctx.settings.webhookTimeoutMs,
    ctx.signal,
  );
  return {
    delivery,
    waited: delivery
      ? seconds(Date.now() - started)
      : `none within ${seconds(ctx.settings.webhookTimeoutMs)}`,
  };
}

export const webhookSetupProbes: Probe[] = [
  {
    id: 'webhooks.subscribe',
    spec: 'Events: "Webhook configuration endpoints exist." Their shape: not shown',
    expected: '2xx {id}',
    choice: 'POST /api/v1/webhooks/ {url, event_types} subscribes (public reference: no such endpoint)',
    unavailable: needsReceiver,
    async run(ctx) {
      const r = await ctx.call((o) => ctx.client.webhooks.create({ url: ctx.receiver!.url }, o));
      if (isSuccess(r) && r.value) ctx.subscriptionId = r.value.id;
      return expectSuccess(r);
    },
  },
  {
    id: 'webhooks.like-delivery',
    spec: 'Events: "product like and unlike events. Like and unlike payloads include the field slug."',
    expected: 'v1:product.like with the slug',
    choice:
      'test like POST …/by-sku/{sku}/like/ and event v1:product.like {liker_id, slug} (public reference)',
    after: AFTER_SUBSCRIBE,
    unavailable: needsReceiver,
    async run(ctx) {
      const l = await hookListing(ctx);
      const liked = await ctx.call((o) => ctx.client.products.simulateLike({ sku: l.sku }, o));
      if (!isSuccess(liked)) return { answer: `like ${showReply(liked)}`, ok: false };
      const { delivery, waited } = await waitForEvent(ctx, 'v1:product.like', l);
      if (!delivery) return { answer: `like ${showReply(liked)}, event: ${waited}`, ok: false };
      const data = dataOf(delivery);
      if (typeof data.liker_id === 'number') ctx.likerId = data.liker_id;
      const slugOk = data.slug === l.slug;
      return {
        answer: `like ${showReply(liked)}, event in ${waited}${slugOk ? '' : `, slug ${String(data.slug)}`}`,
        ok: slugOk && ctx.likerId !== undefined,
      };
    },
  },
];

export const webhookPurchaseProbes: Probe[] = [
  {
    id: 'webhooks.purchase-order-new',
    spec: 'Events: "The service sends webhooks. They announce sales …"',
    expected: 'purchase 2xx, v1:order.new for the listing',
    choice:
      'staging test purchase POST …/by-sku/{sku}/purchase/; event v1:order.new {purchase_id, line_items} (public reference)',
    after: AFTER_SUBSCRIBE,
    unavailable: needsReceiver,
    async run(ctx) {
      const l = await hookListing(ctx);
      const bought = await ctx.call((o) => ctx.client.products.simulatePurchase({ sku: l.sku }, o));
      if (!isSuccess(bought)) return { answer: `purchase ${showReply(bought)}`, ok: false };
      const { delivery, waited } = await waitForEvent(ctx, 'v1:order.new', l);
      const purchaseId = delivery ? dataOf(delivery).purchase_id : undefined;
      if (typeof purchaseId === 'string') ctx.purchaseId = purchaseId;
      return {
        answer: `purchase ${showReply(bought)}, event: ${waited}`,
        ok: delivery !== undefined && ctx.purchaseId !== undefined,
      };
    },
  },
  {
    id: 'products.sold-by-purchase',
    spec: 'sold: "Reached for a listing that is sold out."',
    expected: 'sold',
    choice: STATE_CHOICE,
    needs: ['webhooks.purchase-order-new'],
    unavailable: needsReceiver,
    run: (ctx) => expectState(ctx, ctx.listing(HOOK_LISTING).sku, 'sold'),
  },
  {
    id: 'webhooks.product-updated-on-purchase',
    spec: 'Events: "They announce sales, refunds and product changes …" Event names: not shown',
    expected: 'v1:product.updated, status sold',
    choice:
      'product changes are v1:product.updated {status, changed_fields}; a sale that sells the listing out sends one',
    needs: ['webhooks.purchase-order-new'],
    unavailable: needsReceiver,
    async run(ctx) {
      const l = ctx.listing(HOOK_LISTING);
      const sold = (data: Record<string, unknown>) => stateOf(String(data.status)) === 'sold';
      const { delivery, waited } = await waitForEvent(ctx, 'v1:product.updated', l, sold);
      return { answer: delivery ? `event in ${waited}` : `event: ${waited}`, ok: delivery !== undefined };
    },
  },
  {
    id: 'webhooks.signature',
    spec: 'Events: "… delivery, retry and signature rules: not shown."',
    expected: 'every delivery verifies',
    choice:
      'X-Depop-Signature = hex HMAC-SHA256(secret, "<X-Depop-Timestamp>.<raw body>") (public reference)',
    after: ['webhooks.like-delivery', 'webhooks.purchase-order-new'],
    unavailable: needsReceiver,
    async run(ctx): Promise<Check> {
      const deliveries = ctx.receiver!.deliveries;
      if (deliveries.length === 0) return { answer: 'no delivery arrived', ok: false };
      const failures = new Map<string, number>();
      for (const d of deliveries) {
        try {
          verifyWebhook(d.raw, d.headers, ctx.webhookSecret ?? '', { now: d.receivedAt });
        } catch (e) {
          const reason = e instanceof WebhookVerificationError ? e.reason : 'error';
          failures.set(reason, (failures.get(reason) ?? 0) + 1);
        }
      }
      const bad = [...failures].map(([reason, n]) => `${n}× ${reason}`).join(', ');
      return {
        answer: `${deliveries.length - [...failures.values()].reduce((a, b) => a + b, 0)} of ${deliveries.length} verify${bad ? ` (${bad})` : ''}`,
        ok: failures.size === 0,
      };
    },
  },
];
