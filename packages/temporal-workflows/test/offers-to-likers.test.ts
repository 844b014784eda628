// Offers to likers, on real servers: the simulator's signed `v1:product.like` webhooks reach the
// receiver, which signals the listing's offers workflow (signalWithStart) on the real dev server; the
// worker sends the offers to the simulator. The delay is honoured, one offer per liker within the
// lifetime however often they like, none once the listing is sold, the minimum percentage and the
// product's currency respected, and hundreds of likes across continue-as-new. An offer that may have
// landed (a 500 after the write) is never sent again; a refused one (401) does not stop the workflow; a
// burst of offers is paced by the shop's lane and leaves the sales reserve alone.
// @needs temporal
import { checkOfferSettings, recordLike } from '../src/webhooks/webhook-flows.ts';
import { offerCents } from '../src/activities/offers.ts';
import { likerOffersWorkflowId, type likerOffersWorkflow } from '../src/workflows/offers-to-likers.ts';
import { shopLaneWorkflow } from '../src/workflows/shop-lane.ts';
import { laneWorkflowId } from '../src/contract.ts';
import { markAsSold } from '../src/client/client.ts';
import { addFault, admin, listDirectly, startEnv, waitFor, type TestEnv } from './helpers.ts';
import { startPartnerReceiver } from './partner-receiver.ts';
import { likerOffersStateQuery } from '../src/workflows/messages.ts';

const SECRET = 'whsec_offers_test';
const DELAY_MS = 1500;
let env: TestEnv;
let shop: { shopId: string; credentialRef: string; sellerId: number };

const list = async (sku: string, over: Record<string, unknown> = {}): Promise<number> =>
  (await listDirectly(env, shop.sellerId, sku, over)).productId;
const offersOf = (productId: number) =>
  env.sim.world.sellers.get(shop.sellerId)!.offers.filter((o) => o.productId === productId);
const handle = (productId: number) =>
  env.client.workflow.getHandle<typeof likerOffersWorkflow>(likerOffersWorkflowId(shop.shopId, productId));
const like = (productId: number, likerId: number) =>
  admin(env, 'POST', `/admin/products/${productId}/likes`, { likerId });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  env = await startEnv('offers');
  const s = env.shop('of-a');
  shop = { shopId: s.shopId, credentialRef: s.ref, sellerId: s.sellerId };
  await startPartnerReceiver(env, 'partner-of-a', ['v1:product.like'], {
    secret: SECRET,
    shops: [shop],
    offers: { delayMs: DELAY_MS, percentOff: 10 },
  });
}, 120_000);
afterAll(() => env?.close()); // and its receiver

describe('offers to likers', () => {
  it('waits the delay, then sends one offer at the discount in the product currency; repeated likes get none', async () => {
    const productId = await list('OF-TEE-1'); // 20.00 GBP
    const likedAt = Date.now();
    await like(productId, 501);
    // Unlike and like again, twice, within the delay and after the offer: still one offer.
    await admin(env, 'DELETE', `/admin/products/${productId}/likes/501`);
    await like(productId, 501);
    await sleep(DELAY_MS / 2);
    expect(offersOf(productId)).toHaveLength(0);
    const [offer] = await waitFor('the offer', () => offersOf(productId).length > 0 && offersOf(productId));
    expect(Date.now() - likedAt).toBeGreaterThanOrEqual(DELAY_MS);
    expect(offer).toMatchObject({ recipientId: 501, value: 18, currency: 'GBP' });
    await admin(env, 'DELETE', `/admin/products/${productId}/likes/501`);
    await like(productId, 501);
    await env.sim.webhooks.idle();
    await sleep(DELAY_MS + 500);
    expect(offersOf(productId)).toHaveLength(1);
    const state = await handle(productId).query(likerOffersStateQuery);
    expect(state.counts).toMatchObject({ likes: 3, sent: 1, repeated: 2, failed: 0 });
    expect(state.offered.map(([liker]) => liker)).toEqual([501]);
  });

  it('skips likes whose listing is no longer on sale by the time the delay ends', async () => {
    const productId = await list('OF-SOLD-1');
    await like(productId, 601);
    await env.sim.webhooks.idle();
    await waitFor('the workflow', () =>
      handle(productId)
        .describe()
        .then(
          () => true,
          () => false,
        ),
    );
    // Sold before the delay ends.
    const seller = env.sim.world.sellers.get(shop.sellerId)!;
    await admin(env, 'POST', '/admin/orders', { sellerId: seller.id, productIds: [productId] });
    const state = await handle(productId).result();
    expect(state.counts).toMatchObject({ likes: 1, sent: 0, notOnSale: 1 });
    expect(offersOf(productId)).toHaveLength(0);
  });

  it('respects the minimum percentage and the currency of the listing', async () => {
    // The minimum 5 % below 19.99 is 18.99 (floor), in USD as listed.
    const productId = await list('OF-USD-1', { price_amount: '19.99', price_currency: 'USD' });
    env.sim.world.sellers.get(shop.sellerId)!.products.get(productId)!.likes.add(701);
    await recordLike(
      env.client,
      { shop, productId, likerId: 701, settings: { delayMs: 0, percentOff: 5 } },
      env.taskQueue,
    );
    const [offer] = await waitFor('the offer', () => offersOf(productId).length > 0 && offersOf(productId));
    expect(offer).toMatchObject({ recipientId: 701, value: 18.99, currency: 'USD' });
    expect(offerCents(1999, 5)).toBe(1899);
    expect(offerCents(1000, 2, 5)).toBe(950); // a discount under the minimum is raised to it
    expect(() => checkOfferSettings({ delayMs: 0, percentOff: 3 })).toThrow(
      'offers percentOff must be at least the minimum 5% below the price and under 100, got 3',
    );
    expect(() => checkOfferSettings({ delayMs: -1, percentOff: 10 })).toThrow(
      'offers delayMs must be a number of milliseconds ≥ 0, got -1',
    );
  });

  it('a 500 after the offer landed: never sent again — one offer per liker, the doubt counted', async () => {
    const productId = await list('OF-500-1');
    const product = env.sim.world.sellers.get(shop.sellerId)!.products.get(productId)!;
    const likers = [801, 802, 803];
    for (const l of likers) product.likes.add(l);
    // One offer's POST is committed, then answered 500 (the offers system failed after writing it).
    await addFault(env, {
      type: 'error_500_after_commit',
      operationId: 'offers.submitByProductId',
      count: 1,
    });
    const settings = { delayMs: 0, percentOff: 10 };
    for (const likerId of likers)
      await recordLike(env.client, { shop, productId, likerId, settings }, env.taskQueue);
    const settledAll = async () => {
      const { counts } = await handle(productId).query(likerOffersStateQuery);
      return counts.sent + counts.failed >= likers.length && counts;
    };
    await waitFor('every offer settled', settledAll);
    // Time for a retried POST to land, if one were sent.
    await sleep(2000);
    const offers = offersOf(productId);
    expect(offers.map((o) => o.recipientId).sort()).toEqual(likers);
    const state = await handle(productId).query(likerOffersStateQuery);
    expect(state.counts).toMatchObject({ sent: 2, failed: 1, inDoubt: 1 });
    expect(state.failures).toEqual({ outcome_unknown: 1 });
    expect(state.lastFailure).toMatchObject({ code: 'outcome_unknown', detail: '500 generic_error' });
    // The liker in doubt counts as offered: a new like gets no second offer.
    const doubted = state.lastFailure!.likerId;
    expect(state.offered.map(([l]) => l).sort()).toEqual(likers);
    await recordLike(env.client, { shop, productId, likerId: doubted, settings }, env.taskQueue);
    await sleep(500);
    expect(offersOf(productId)).toHaveLength(likers.length);
    const faults = (await admin(env, 'GET', '/admin/faults')) as { byType: Record<string, number> };
    expect(faults.byType.error_500_after_commit).toBe(1);
  });

  it('a 429 on one offer: nothing was sent, so it goes again later — one offer per liker, the retry counted', async () => {
    const productId = await list('OF-429-1');
    const product = env.sim.world.sellers.get(shop.sellerId)!.products.get(productId)!;
    const likers = [851, 852];
    for (const l of likers) product.likes.add(l);
    await addFault(env, {
      type: 'rate_limit_storm',
      operationId: 'offers.submitByProductId',
      count: 1,
      retryAfterMs: 2000,
    });
    const settings = { delayMs: 0, percentOff: 10 };
    for (const likerId of likers)
      await recordLike(env.client, { shop, productId, likerId, settings }, env.taskQueue);
    await waitFor('both offers', () => offersOf(productId).length >= likers.length);
    await sleep(500);
    expect(
      offersOf(productId)
        .map((o) => o.recipientId)
        .sort(),
    ).toEqual(likers);
    const state = await handle(productId).query(likerOffersStateQuery);
    expect(state.counts).toMatchObject({ sent: 2, failed: 0, retried: 1 });
    expect(state.tries).toBeUndefined();
  });

  it('a 401 (access revoked) on one liker: the workflow goes on, keeps its memory and offers the others', async () => {
    const productId = await list('OF-401-1');
    const product = env.sim.world.sellers.get(shop.sellerId)!.products.get(productId)!;
    for (const l of [901, 902, 903]) product.likes.add(l);
    const settings = { delayMs: 0, percentOff: 10 };
    const likeNow = (likerId: number) =>
      recordLike(env.client, { shop, productId, likerId, settings }, env.taskQueue);
    await likeNow(903);
    await waitFor('the first offer', () => offersOf(productId).length === 1);
    // The seller's API access is revoked: the next liker's offer meets a 401.
    await admin(env, 'PATCH', '/admin/partners/partner-of-a', { accessDenied: true });
    try {
      await likeNow(901);
      await waitFor('the refused offer', async () => {
        const { counts } = await handle(productId).query(likerOffersStateQuery);
        return counts.failed >= 1;
      });
    } finally {
      await admin(env, 'PATCH', '/admin/partners/partner-of-a', { accessDenied: false });
    }
    const refused = await handle(productId).query(likerOffersStateQuery);
    expect(refused.lastFailure).toMatchObject({ likerId: 901, code: 'partner_access_denied' });
    expect(refused.failures).toEqual({ partner_access_denied: 1 });
    expect((await handle(productId).describe()).status.name).toBe('RUNNING');
    // Access back: the others are offered, and the refused liker's next like gets its offer; the liker
    // offered before the revocation is still remembered.
    await likeNow(902);
    await likeNow(901);
    await likeNow(903);
    await waitFor('the other offers', () => offersOf(productId).length === 3);
    await sleep(500);
    expect(
      offersOf(productId)
        .map((o) => o.recipientId)
        .sort(),
    ).toEqual([901, 902, 903]);
    const state = await handle(productId).query(likerOffersStateQuery);
    expect(state.counts).toMatchObject({ likes: 5, sent: 3, failed: 1, repeated: 1 });
  });

  it('offers are paced by the shop lane, outside the sales reserve: a burst of likes, 0 × 429, a sale goes through', async () => {
    const s = env.shop('of-pace');
    const paced = { shopId: s.shopId, credentialRef: s.ref };
    const productId = (await listDirectly(env, s.sellerId, 'OF-PACE-1', { price_amount: '30.00' })).productId;
    const sold = await listDirectly(env, s.sellerId, 'OF-PACE-SOLD');
    const product = env.sim.world.sellers.get(s.sellerId)!.products.get(productId)!;
    const likers = Array.from({ length: 60 }, (_, i) => 20_000 + i);
    for (const l of likers) product.likes.add(l);
    // The gateway's general group: 60 requests a real second (time scale 10). The shop's lane hands out
    // 40 of them (4 slots of 10): the other 20 are the sales reserve.
    const before = env.sim.config.rateLimits.general;
    env.sim.config.rateLimits.general = { limit: 60, windowMs: 10_000 };
    await env.client.workflow.start(shopLaneWorkflow, {
      taskQueue: env.taskQueue,
      workflowId: laneWorkflowId(env.taskQueue, s.shopId, 'general'),
      args: [{ allowance: { limit: 40, windowMs: 1000 }, ring: { maxSlots: 4 } }],
    });
    await admin(env, 'POST', '/admin/counters/reset');
    try {
      const settings = { delayMs: 0, percentOff: 10 };
      await Promise.all(
        likers.map((likerId) =>
          recordLike(env.client, { shop: paced, productId, likerId, settings }, env.taskQueue),
        ),
      );
      // A sale elsewhere while the offers go out: marked sold without waiting on a 429.
      const sale = await markAsSold(env.client, { shop: paced, ref: { sku: 'OF-PACE-SOLD' } }, env.taskQueue);
      expect(sale.status).toBe('sold');
      const offers = () =>
        env.sim.world.sellers.get(s.sellerId)!.offers.filter((o) => o.productId === productId);
      await waitFor('every offer', () => offers().length >= likers.length, 60_000);
      expect(new Set(offers().map((o) => o.recipientId)).size).toBe(likers.length);
      const counters = (await admin(env, 'GET', '/admin/counters')) as {
        rateLimits: Record<string, Record<string, { allowed: number; limited: number }>>;
      };
      const general = counters.rateLimits[`shop:${s.sellerId}`]!.general!;
      expect(general.limited).toBe(0);
      // Every offer is a GET and a POST; the sale one request.
      expect(general.allowed).toBeGreaterThanOrEqual(2 * likers.length + 1);
      expect(env.sim.world.sellers.get(s.sellerId)!.products.get(sold.productId)!.state).not.toBe('selling');
      const state = await env.client.workflow
        .getHandle(likerOffersWorkflowId(s.shopId, productId))
        .query(likerOffersStateQuery);
      expect(state.counts).toMatchObject({ sent: likers.length, failed: 0 });
      expect(state.laneUsed).toBe(true);
    } finally {
      env.sim.config.rateLimits.general = before;
    }
  }, 120_000);

  it('hundreds of likes: one offer per liker, continuing as new with its memory', async () => {
    const productId = await list('OF-MANY-1', { price_amount: '50.00' });
    const product = env.sim.world.sellers.get(shop.sellerId)!.products.get(productId)!;
    const likers = Array.from({ length: 150 }, (_, i) => 10_000 + i);
    for (const l of likers) product.likes.add(l);
    const settings = { delayMs: 200, percentOff: 10, likesPerRun: 40 };
    // Each liker likes twice: 300 signals.
    for (const _round of [0, 1])
      for (let i = 0; i < likers.length; i += 25)
        await Promise.all(
          likers
            .slice(i, i + 25)
            .map((likerId) => recordLike(env.client, { shop, productId, likerId, settings }, env.taskQueue)),
        );
    await waitFor('every offer', () => offersOf(productId).length >= likers.length, 60_000);
    await sleep(500);
    const offers = offersOf(productId);
    expect(offers).toHaveLength(likers.length);
    expect(new Set(offers.map((o) => o.recipientId)).size).toBe(likers.length);
    expect(offers.every((o) => o.value === 45 && o.currency === 'GBP')).toBe(true);
    const state = await handle(productId).query(likerOffersStateQuery);
    expect(state.counts).toMatchObject({ likes: 300, sent: 150, repeated: 150 });
    // Continued as new (40 likes per run; likes arriving while offers are sent join the run).
    expect(state.runs).toBeGreaterThanOrEqual(3);
    const { historyLength } = await handle(productId).describe();
    expect(historyLength).toBeLessThan(1000);
  }, 120_000);
});
