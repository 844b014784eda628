// Delist everywhere on sale, on real servers: the simulator's signed `v1:order.new` webhooks reach the
// receiver over HTTP, the receiver starts the order's delist workflow on the real dev server, the
// worker marks the SKU sold on the other shops. Also: duplicate deliveries (after completion and at
// the same instant), forged and stale signatures, a listing with stock left, the SKU mapping file, and
// a missed webhook caught by the reconciliation schedule.
// @needs temporal
import { orderNewEventData } from '@selling-kit/simulator/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { webhookHeaders } from '@selling-kit/api-client/core';
import {
  startWebhookReceiver,
  WEBHOOK_MAX_BODY_BYTES,
  type WebhookReceiver,
} from '../src/webhooks/webhook-receiver.ts';
import { createSalesReconciliationSchedule } from '../src/webhooks/webhook-flows.ts';
import { delistWorkflowId, type delistOnSaleWorkflow } from '../src/workflows/delist-on-sale.ts';
import { parseSkuMap, loadSkuMap, SkuMapError } from '../src/webhooks/sku-map.ts';
import type { ConnectedShop, DelistResult } from '../src/webhooks/sales-types.ts';
import { admin, listDirectly, startEnv, subscribeWebhooks, waitFor, type TestEnv } from './helpers.ts';
import { startPartnerReceiver } from './partner-receiver.ts';

const SECRET = 'whsec_delist_test';
let env: TestEnv;
let receiver: WebhookReceiver;
let shops: (ConnectedShop & { ref: string })[];
let subscriptionId: string;
const logged: string[] = [];

const list = async (shop: { sellerId: number }, sku: string, quantity = 1): Promise<number> =>
  (await listDirectly(env, shop.sellerId, sku, { quantity })).productId;
const stateOf = (shop: { sellerId: number }, sku: string) =>
  [...env.sim.world.sellers.get(shop.sellerId)!.products.values()].find((p) => p.sku === sku)?.state;

/** A purchase on the shop (the simulator's admin surface) → its purchase id. */
async function buy(shop: { sellerId: number }, productId: number): Promise<string> {
  const order = (await admin(env, 'POST', '/admin/orders', {
    sellerId: shop.sellerId,
    productIds: [productId],
  })) as { purchaseId?: string; purchase_id?: string };
  return (order.purchaseId ?? order.purchase_id)!;
}

const delistHandle = (shopId: string, purchaseId: string) =>
  env.client.workflow.getHandle<typeof delistOnSaleWorkflow>(delistWorkflowId(shopId, purchaseId));

/** The `v1:order.new` body the simulator emitted for a purchase (delivered or not), as it sends it. */
function orderEvent(purchaseId: string): string {
  const e = env.sim.webhooks.events.find(
    (ev) => ev.eventType === 'v1:order.new' && ev.data.purchase_id === purchaseId,
  )!;
  return JSON.stringify({ id: e.id, event_type: e.eventType, created_at: e.createdAt, data: e.data });
}

/** The delist workflow's result, once a delivery has started it. */
async function delisted(shopId: string, purchaseId: string): Promise<DelistResult> {
  const handle = delistHandle(shopId, purchaseId);
  await waitFor('the delist workflow', () =>
    handle.describe().then(
      () => true,
      () => false,
    ),
  );
  return handle.result();
}

async function orderDelivery(purchaseId: string) {
  await env.sim.webhooks.idle();
  return env.sim.webhooks.deliveries.find(
    (d) => d.eventType === 'v1:order.new' && d.body.includes(`"${purchaseId}"`),
  );
}

const post = (body: string, headers: Record<string, string>) =>
  fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

/** The partner of shops A to C, and the webhooks of theirs this file's receivers take. */
const PARTNER = 'partner-dl-a';
const ORDER_EVENTS = ['v1:order.new'];
/** Order webhooks of the partner's shops go to `url` → the subscription's id. */
const subscribe = (url: string) => subscribeWebhooks(env, PARTNER, url, ORDER_EVENTS);
/** The receiver's options for this file's shops. */
const receiverOptions = () => ({
  client: env.client,
  taskQueue: env.taskQueue,
  secret: SECRET,
  shops: shops.map(({ shopId, credentialRef, sellerId }) => ({ shopId, credentialRef, sellerId })),
});

beforeAll(async () => {
  env = await startEnv('delist');
  shops = ['dl-a', 'dl-b', 'dl-c'].map((ref) => {
    const s = env.shop(ref);
    return { shopId: s.shopId, credentialRef: ref, sellerId: s.sellerId, ref };
  });
  ({ receiver, subscriptionId } = await startPartnerReceiver(env, PARTNER, ORDER_EVENTS, {
    ...receiverOptions(),
    log: (e) => logged.push(JSON.stringify(e)),
  }));
}, 120_000);
afterAll(() => env?.close()); // and its receiver

describe('delist on sale', () => {
  it('a purchase on shop A marks the same SKU sold on B; C, without it, is reported not listed', async () => {
    const [a, b] = shops;
    const sold = await list(a!, 'DL-TEE-1');
    await list(b!, 'DL-TEE-1');
    const other = await list(b!, 'DL-OTHER-1');
    const purchaseId = await buy(a!, sold);
    await waitFor('B delisted', () => stateOf(b!, 'DL-TEE-1') === 'sold');
    const result = await delisted(a!.shopId, purchaseId);
    expect(result.items).toEqual([{ productId: sold, sku: 'DL-TEE-1', remaining: 0 }]);
    expect(result.outcomes).toEqual([
      { shopId: b!.shopId, sku: 'DL-TEE-1', status: 'sold' },
      { shopId: shops[2]!.shopId, sku: 'DL-TEE-1', status: 'not_listed' },
    ]);
    expect(result.delayMs).toBeGreaterThanOrEqual(0);
    expect(env.sim.world.sellers.get(b!.sellerId)!.products.get(other)!.state).toBe('selling');
    // The simulator's delivery was answered 2xx at its first attempt.
    const delivery = (await orderDelivery(purchaseId))!;
    expect(delivery.state).toBe('delivered');
    expect(delivery.attempts).toHaveLength(1);
  });

  it('a webhook delivered twice does nothing twice: after completion, and two at the same instant', async () => {
    const [a, b] = shops;
    const sold = await list(a!, 'DL-DUP-1');
    await list(b!, 'DL-DUP-1');
    const purchaseId = await buy(a!, sold);
    const first = await delisted(a!.shopId, purchaseId);
    const { runId } = await delistHandle(a!.shopId, purchaseId).describe();
    const body = orderEvent(purchaseId);
    // The same bytes delivered again, freshly signed (a sender's retry after a lost answer).
    const again = await post(body, webhookHeaders(body, SECRET));
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ started: false });
    const after = await delistHandle(a!.shopId, purchaseId).describe();
    expect(after.runId).toBe(runId);
    expect(await delistHandle(a!.shopId, purchaseId).result()).toEqual(first);

    // Two deliveries racing (no subscription: the test delivers): one start, one no-op.
    const racing = await list(a!, 'DL-DUP-2');
    await list(b!, 'DL-DUP-2');
    await admin(env, 'DELETE', `/admin/webhooks/${subscriptionId}`);
    try {
      const racingId = await buy(a!, racing);
      const event = orderEvent(racingId);
      const answers = await Promise.all([1, 2].map(() => post(event, webhookHeaders(event, SECRET))));
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      const started = await Promise.all(
        answers.map(async (r) => ((await r.json()) as { started: boolean }).started),
      );
      expect(started.sort()).toEqual([false, true]);
      const result = await delisted(a!.shopId, racingId);
      expect(result.outcomes.filter((o) => o.status === 'sold')).toHaveLength(1);
      expect(stateOf(b!, 'DL-DUP-2')).toBe('sold');
    } finally {
      subscriptionId = await subscribe(receiver.url);
    }
  });

  it('a forged or stale signature is a 401 and starts nothing; the secret is never logged', async () => {
    const [a] = shops;
    const purchaseId = `forged-${randomUUID()}`;
    const event = JSON.stringify({
      id: randomUUID(),
      event_type: 'v1:order.new',
      created_at: new Date().toISOString(),
      data: orderNewEventData({
        seller_id: a!.sellerId,
        purchase_id: purchaseId,
        status: 'SHIPPING_PENDING',
        line_items: [{ product_id: 1, slug: 'x' }],
      }),
    });
    const forged = await post(event, webhookHeaders(event, 'whsec_not_the_secret'));
    expect(forged.status).toBe(401);
    expect(await forged.json()).toEqual({ error: 'unauthorized' });
    const stale = await post(event, webhookHeaders(event, SECRET, Math.floor(Date.now() / 1000) - 3600));
    expect(stale.status).toBe(401);
    expect(await stale.json()).toEqual({ error: 'unauthorized' });
    const unsigned = await post(event, {});
    expect(unsigned.status).toBe(401);
    await expect(delistHandle(a!.shopId, purchaseId).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
    const notJson = await post('{', webhookHeaders('{', SECRET));
    expect(notJson.status).toBe(400);
    expect((await fetch(receiver.url)).status).toBe(405);
    expect((await fetch(receiver.url.replace('/webhooks', '/other'), { method: 'POST' })).status).toBe(404);
    expect(logged.join('\n')).not.toContain(SECRET);
    expect(logged.some((l) => l.includes('"signature_mismatch"'))).toBe(true);
  });

  it('a body above the limit is answered 413 (not a reset connection), told by its length or as it streams', async () => {
    const big = 'x'.repeat(WEBHOOK_MAX_BODY_BYTES + 1);
    const told = await post(big, webhookHeaders(big, SECRET));
    expect(told.status).toBe(413);
    expect(await told.json()).toEqual({ error: 'too_large' });
    // Chunked, with no Content-Length: refused once the limit is crossed while reading.
    const chunks = [Buffer.alloc(512 * 1024, 'y'), Buffer.alloc(512 * 1024, 'y'), Buffer.alloc(1024, 'y')];
    const streamed = await fetch(receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(logged.filter((l) => l.includes('"too_large"'))).toHaveLength(2);
  });

  it('a listing with stock left at the source is delisted nowhere', async () => {
    const [a, b] = shops;
    const sold = await list(a!, 'DL-STOCK-1', 2);
    await list(b!, 'DL-STOCK-1');
    const purchaseId = await buy(a!, sold);
    const result = await delisted(a!.shopId, purchaseId);
    expect(result.items).toEqual([{ productId: sold, sku: 'DL-STOCK-1', remaining: 1 }]);
    expect(result.outcomes).toEqual([]);
    expect(stateOf(b!, 'DL-STOCK-1')).toBe('selling');
  });

  it('a SKU mapping file names the item on shops where its SKU differs', async () => {
    const [a, b, c] = shops;
    const path = join(env.dir, 'sku-map.json');
    writeFileSync(path, JSON.stringify([{ [a!.shopId]: 'MAP-A-1', [b!.shopId]: 'MAP-B-1' }]));
    const mapped = await startWebhookReceiver({ ...receiverOptions(), skuMapPath: path });
    try {
      const sold = await list(a!, 'MAP-A-1');
      await list(b!, 'MAP-B-1');
      await list(c!, 'MAP-A-1'); // C is not in the entry: the same SKU
      await admin(env, 'DELETE', `/admin/webhooks/${subscriptionId}`);
      const mappedId = await subscribe(mapped.url);
      const purchaseId = await buy(a!, sold);
      const result = await delisted(a!.shopId, purchaseId).finally(() =>
        admin(env, 'DELETE', `/admin/webhooks/${mappedId}`),
      );
      expect(result.outcomes).toEqual([
        { shopId: b!.shopId, sku: 'MAP-B-1', status: 'sold' },
        { shopId: c!.shopId, sku: 'MAP-A-1', status: 'sold' },
      ]);
      expect(stateOf(b!, 'MAP-B-1')).toBe('sold');
    } finally {
      await mapped.close();
      subscriptionId = await subscribe(receiver.url);
    }
  });

  it('a webhook that never arrived is caught by the reconciliation schedule, and nothing twice', async () => {
    const [a, b] = shops;
    const sold = await list(a!, 'DL-MISSED-1');
    await list(b!, 'DL-MISSED-1');
    await admin(env, 'DELETE', `/admin/webhooks/${subscriptionId}`);
    const purchaseId = await buy(a!, sold);
    await env.sim.webhooks.idle();
    expect(stateOf(b!, 'DL-MISSED-1')).toBe('selling');
    const scheduleId = `reconcile-sales-${randomUUID()}`;
    const schedule = await createSalesReconciliationSchedule(
      env.client,
      scheduleId,
      { shops: shops.map(({ shopId, credentialRef }) => ({ shopId, credentialRef })) },
      { every: '1h' },
      env.taskQueue,
    );
    try {
      await schedule.trigger();
      const run = await waitFor(
        'a scheduled run',
        async () => (await schedule.describe()).info.recentActions[0],
      );
      const result = await env.client.workflow
        .getHandle(run.action.workflow.workflowId, run.action.workflow.firstExecutionRunId)
        .result();
      // Only the missed order had no delist: the others, delivered earlier, are skipped.
      expect(result.started).toEqual([purchaseId]);
      expect(result.orders).toBeGreaterThan(1);
      const delisted = await delistHandle(a!.shopId, purchaseId).result();
      expect(delisted.outcomes).toContainEqual({ shopId: b!.shopId, sku: 'DL-MISSED-1', status: 'sold' });
      expect(stateOf(b!, 'DL-MISSED-1')).toBe('sold');
      // Its webhook arriving late now does nothing.
      const late = orderEvent(purchaseId);
      const answer = await post(late, webhookHeaders(late, SECRET));
      expect(await answer.json()).toMatchObject({ started: false });
    } finally {
      await schedule.delete();
    }
  });
});

describe('SKU mapping file', () => {
  it('maps both ways and leaves other shops and SKUs alone', () => {
    const map = parseSkuMap([{ a: 'A-1', b: 'B-1', c: 'C-1' }]);
    expect(map.skuOn('a', 'A-1', 'b')).toBe('B-1');
    expect(map.skuOn('b', 'B-1', 'c')).toBe('C-1');
    expect(map.skuOn('a', 'A-1', 'd')).toBe('A-1');
    expect(map.skuOn('a', 'OTHER', 'b')).toBe('OTHER');
  });

  it('names the entry, shop and rule of a bad file', () => {
    const bad = (v: unknown) => () => parseSkuMap(v, 'map.json');
    expect(bad({})).toThrow('map.json: must be a JSON array of objects (shop id → SKU), got object');
    expect(bad([1])).toThrow('map.json: entry 0 must be an object (shop id → SKU)');
    expect(bad([{ a: 'A' }])).toThrow('map.json: entry 0 must name at least two shops');
    expect(bad([{ a: 'A', b: '' }])).toThrow(
      'map.json: entry 0, shop "b": the SKU must be a non-empty string',
    );
    expect(
      bad([
        { a: 'A', b: 'B' },
        { a: 'A', c: 'C' },
      ]),
    ).toThrow('map.json: entry 1, shop "a": SKU "A" is already mapped by an earlier entry');
    expect(() => loadSkuMap('/nonexistent/map.json')).toThrow(SkuMapError);
    expect(() => loadSkuMap('/nonexistent/map.json')).toThrow(
      'SKU map /nonexistent/map.json: cannot be read (ENOENT)',
    );
  });
});
