// Every bulk operation, the sale lane, faults at workflow level, feeds by URL and jobs that cannot run —
// on the real dev server (global set-up) against the simulator over 127.0.0.1.
// @needs temporal
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowFailedError } from '@temporalio/client';
import { getProgress, markAsSold, startBulkJob } from '../src/client/client.ts';
import {
  addFaults,
  admin,
  csvFeed,
  HEADER,
  job,
  listDirectly,
  listingBody,
  okOf,
  products,
  reportOf,
  row,
  useTestEnv,
  writeFeed,
} from './helpers.ts';
import { cancelUpdate, pauseUpdate, resumeUpdate } from '../src/workflows/messages.ts';

const env = useTestEnv('ops');

const listed = (sellerId: number, skus: string[]) =>
  Promise.all(skus.map((sku) => listDirectly(env, sellerId, sku)));

const counters = async () =>
  (await admin(env, 'GET', '/admin/counters')) as {
    rateLimits: Record<string, Record<string, { allowed: number; limited: number }>>;
  };

describe('bulk operations', () => {
  it('full update, patch, mark-as-sold and delete by key, each counted in its rate group', async () => {
    const shop = env.shop('ops-a');
    const made = await listed(shop.sellerId, ['U-1', 'U-2', 'U-3', 'U-4', 'U-5', 'U-6', 'U-7', 'U-8']);
    await admin(env, 'POST', '/admin/counters/reset');
    const seller = () => env.sim.world.sellers.get(shop.sellerId)!;
    const byId = (id: number) => seller().products.get(id)!;

    // Full update by product id (JSON feed), one item breaking a rule locally.
    const update = writeFeed(
      env,
      'update.json',
      JSON.stringify([
        {
          ...listingBody('x'),
          sku: undefined,
          product_id: made[0]!.productId,
          description: 'Updated tee #nike',
          price_amount: '30.00',
        },
        {
          ...listingBody('x'),
          sku: undefined,
          slug: made[1]!.slug,
          description: 'Updated by slug #nike',
          price_amount: '31.00',
        },
        { ...listingBody('x'), sku: undefined, product_id: made[2]!.productId, quantity: 0 },
      ]),
    );
    const u = await (
      await startBulkJob(
        env.client,
        job(env, shop, update, { operation: 'update', feed: { path: update, format: 'json' } }),
        env.taskQueue,
      )
    ).result();
    expect(u).toMatchObject({ state: 'finished', total: 3, done: 2, failed: 1 });
    expect(byId(made[0]!.productId).fields.price_amount).toBe('30.00');
    expect(byId(made[1]!.productId).fields.description).toBe('Updated by slug #nike');

    // Patch by slug (NDJSON), one with a negative quantity (invalid, never sent).
    const patch = writeFeed(
      env,
      'patch.ndjson',
      [
        { slug: made[3]!.slug, price_amount: '18.00' },
        { sku: 'U-5', is_boosted: true },
        { sku: 'U-6', quantity: -1 },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n'),
    );
    const patchJob = job(env, shop, patch, { operation: 'patch', feed: { path: patch, format: 'ndjson' } });
    const p = await (await startBulkJob(env.client, patchJob, env.taskQueue)).result();
    expect(p).toMatchObject({ state: 'finished', total: 3, done: 2, failed: 1 });
    expect(byId(made[3]!.productId).fields.price_amount).toBe('18.00');
    expect(byId(made[4]!.productId).isBoosted).toBe(true);
    expect((await reportOf(env, patchJob.jobId)).find((r) => r.line === 3)).toMatchObject({
      status: 'invalid',
      field: 'quantity',
    });

    // Mark-as-sold and delete by SKU (CSV feeds with just the key column).
    const sold = writeFeed(env, 'sold.csv', 'sku\nU-6\nU-7\nNOPE-1\n');
    const soldJob = job(env, shop, sold, { operation: 'mark_as_sold' });
    const s = await (await startBulkJob(env.client, soldJob, env.taskQueue)).result();
    expect(s).toMatchObject({ state: 'finished', done: 2, failed: 1 });
    expect(byId(made[5]!.productId).state).toBe('sold');
    const missing = (await reportOf(env, soldJob.jobId)).find((r) => r.sku === 'NOPE-1')!;
    expect(missing).toMatchObject({ status: 'failed', code: 'product_not_found' });
    expect(missing.errorId).toBeTruthy();
    const del = writeFeed(env, 'delete.csv', 'sku\nU-8\n');
    expect(
      await (
        await startBulkJob(env.client, job(env, shop, del, { operation: 'delete' }), env.taskQueue)
      ).result(),
    ).toMatchObject({ state: 'finished', done: 1, failed: 0 });
    expect(byId(made[7]!.productId).state).toBe('removed');

    // PUTs count against create_update; PATCH, mark-as-sold and DELETE against general.
    const c = (await counters()).rateLimits[`shop:${shop.sellerId}`]!;
    expect(c.create_update!.allowed).toBe(2);
    expect(c.general!.allowed).toBe(2 + 3 + 1);
  }, 120_000);

  it('upsert by SKU creates new listings and replaces known ones', async () => {
    const shop = env.shop('ops-b');
    await listed(shop.sellerId, ['UP-1']);
    const path = csvFeed(env, 'UP', 5);
    const r = await (
      await startBulkJob(env.client, job(env, shop, path, { operation: 'upsert' }), env.taskQueue)
    ).result();
    expect(r).toMatchObject({ state: 'finished', done: 5, failed: 0 });
    const all = products(env, shop.sellerId, 'UP');
    expect(all).toHaveLength(5);
    expect(all.find((p) => p.sku === 'UP-1')!.fields.description).toBe('Vintage tee 0 #nike');
  }, 120_000);
});

describe('control by update', () => {
  it('pause, resume and cancel as updates answer with the progress once applied', async () => {
    const shop = env.shop('ops-p');
    const input = job(env, shop, csvFeed(env, 'PU', 60), { allowance: { limit: 5, windowMs: 500 } });
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    // Each message names the job's shops (contract.ts JobMessage).
    const shopIds = [input.shop.shopId];
    expect(
      (await handle.executeUpdate(pauseUpdate, { args: [{ shopIds, reason: 'stock count' }] })).state,
    ).toBe('paused');
    const paused = await getProgress(env.client, input.jobId);
    expect(paused).toMatchObject({ state: 'paused', reason: 'stock count' });
    expect((await handle.executeUpdate(resumeUpdate, { args: [{ shopIds }] })).state).toBe('running');
    while ((await getProgress(env.client, input.jobId)).done < 10)
      await new Promise((r) => setTimeout(r, 50));
    expect((await handle.executeUpdate(cancelUpdate, { args: [{ shopIds }] })).state).toBe('cancelling');
    const result = await handle.result();
    expect(result.state).toBe('cancelled');
    expect(result.done).toBe(products(env, shop.sellerId, 'PU').length);
    expect(result.done + result.failed + result.cancelled).toBe(60);
  }, 60_000);
});

describe('faults at workflow level', () => {
  it('500s, connection resets before and after commit, 504s and a read-after-create delay: 0 duplicates, 0 lost', async () => {
    const shop = env.shop('ops-f');
    env.sim.config.readAfterCreateDelayMs = 1_500;
    await addFaults(env, 'products.create', {
      error_500: 0.15,
      error_502: 0.05,
      reset_before_commit: 0.1,
      reset_after_commit: 0.1,
      timeout_after_commit: 0.1,
    });
    await addFaults(env, 'products.getBySku', { error_500: 0.1 });
    try {
      const input = job(env, shop, csvFeed(env, 'FLT', 60));
      const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
      expect(result).toMatchObject({ state: 'finished', done: 60, failed: 0 });
      expect(result.verified).toBeGreaterThan(0);
      const made = products(env, shop.sellerId, 'FLT');
      expect(made).toHaveLength(60);
      expect(new Set(made.map((p) => p.sku)).size).toBe(60);
      const report = await reportOf(env, input.jobId);
      expect(report).toHaveLength(60);
      expect(okOf(report, 'productId')).toEqual(made.map((p) => p.productId).sort());
      const fired = (await admin(env, 'GET', '/admin/faults')) as {
        rules?: { type: string; fired: number }[];
      };
      const byType = Object.fromEntries((fired.rules ?? []).map((r) => [r.type, r.fired]));
      expect(byType.reset_after_commit).toBeGreaterThan(0);
    } finally {
      await admin(env, 'DELETE', '/admin/faults');
      env.sim.config.readAfterCreateDelayMs = 0;
    }
  }, 120_000);

  it('faults on an idempotent operation (patch) are simply sent again: every item patched once', async () => {
    const shop = env.shop('ops-g');
    await listed(
      shop.sellerId,
      Array.from({ length: 20 }, (_, i) => `PG-${i}`),
    );
    await addFaults(env, 'products.patch*', { error_500: 0.2, timeout_after_commit: 0.2 });
    try {
      const path = writeFeed(
        env,
        'pg.csv',
        ['sku,price_amount', ...Array.from({ length: 20 }, (_, i) => `PG-${i},15.00`)].join('\n'),
      );
      const r = await (
        await startBulkJob(env.client, job(env, shop, path, { operation: 'patch' }), env.taskQueue)
      ).result();
      expect(r).toMatchObject({ state: 'finished', done: 20, failed: 0 });
      for (const p of products(env, shop.sellerId, 'PG')) expect(p.fields.price_amount).toBe('15.00');
    } finally {
      await admin(env, 'DELETE', '/admin/faults');
    }
  }, 120_000);
});

describe('sales never wait behind bulk work', () => {
  it('mark-as-sold on a shop whose bulk job is running answers while the job is still listing', async () => {
    const shop = env.shop('ops-s');
    const [a, b, c] = await listed(shop.sellerId, ['SOLD-1', 'SOLD-2', 'SOLD-3']);
    // A job with many windows ahead of it (200 items at 20 per second).
    const input = job(env, shop, csvFeed(env, 'BULK', 200));
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    while ((await getProgress(env.client, input.jobId)).done < 20)
      await new Promise((r) => setTimeout(r, 50));
    for (const p of [a, b, c]) {
      const r = await markAsSold(
        env.client,
        { shop: { shopId: shop.shopId, credentialRef: shop.ref }, ref: { sku: p!.sku! } },
        env.taskQueue,
      );
      expect(r.status).toBe('sold');
      expect(env.sim.world.sellers.get(shop.sellerId)!.products.get(p!.productId)!.state).toBe('sold');
    }
    // Every sale was done while the bulk job still had items to send.
    const during = await getProgress(env.client, input.jobId);
    expect(during.state).toBe('running');
    expect(during.pending).toBeGreaterThan(0);
    await handle.result();
    expect(products(env, shop.sellerId, 'BULK')).toHaveLength(200);
  }, 120_000);

  it('a sale the API refuses (4xx) fails at once with its code and error id, not retried', async () => {
    const shop = env.shop('ops-x');
    const r = await markAsSold(
      env.client,
      { shop: { shopId: shop.shopId, credentialRef: shop.ref }, ref: { sku: 'NEVER-LISTED' } },
      env.taskQueue,
    );
    expect(r).toMatchObject({ status: 'failed', code: 'product_not_found' });
    expect(r.errorId).toBeTruthy();
    const c = (await counters()).rateLimits[`shop:${shop.sellerId}`]!;
    expect(c.general!.allowed).toBe(1);
  }, 60_000);
});

describe('feeds and jobs that cannot run', () => {
  it('reads a feed from an http URL in chunks', async () => {
    const shop = env.shop('ops-u');
    const text = [HEADER, ...Array.from({ length: 12 }, (_, i) => row(`URL-${i + 1}`, i))].join('\n');
    const server = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/csv' }).end(text),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.csv`;
      const r = await (
        await startBulkJob(env.client, job(env, shop, url, { chunkSize: 5 }), env.taskQueue)
      ).result();
      expect(r).toMatchObject({ state: 'finished', total: 12, done: 12 });
      expect(products(env, shop.sellerId, 'URL')).toHaveLength(12);
    } finally {
      server.close();
    }
  }, 60_000);

  it('an unreadable feed or an unknown credential fails the job visibly, without retrying', async () => {
    const shop = env.shop('ops-e');
    const missing = job(env, shop, `${env.dir}/no-such-feed.csv`);
    const h1 = await startBulkJob(env.client, missing, env.taskQueue);
    const e1 = await h1.result().catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(WorkflowFailedError);
    expect(String((e1 as WorkflowFailedError).cause?.message)).toMatch(/cannot be read/);
    const attempts = (await h1.fetchHistory()).events!.filter((e) => e.activityTaskStartedEventAttributes);
    expect(attempts.every((e) => e.activityTaskStartedEventAttributes!.attempt === 1)).toBe(true);
    const unknown = job(env, { shopId: shop.shopId, ref: 'no-such-credential' }, csvFeed(env, 'UNK', 3));
    const e2 = await (
      await startBulkJob(env.client, unknown, env.taskQueue)
    )
      .result()
      .catch((e: unknown) => e);
    expect(String((e2 as WorkflowFailedError).cause?.message)).toMatch(/no credential named/);
  }, 60_000);
});
