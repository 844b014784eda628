// Feeds carried in the job's input (`FeedRef.content`) and the shop directory: what a client on another
// host than the worker (n8n's Bulk Job node) relies on. The snapshot of an inline feed (CSV text, NDJSON
// items read as spreadsheet cells), its size limit, real jobs for one shop and for many through the dev
// server, and the worker's shop names read through Temporal (names only, none when the worker cannot
// list them, a clear error when no worker answers).
// @needs temporal
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ApplicationFailure } from '@temporalio/common';
import {
  INLINE_FEED_MAX_BYTES,
  fromCells,
  readSnapshotRecords,
  takeSnapshot,
} from '../src/activities/snapshot.ts';
import { startBulkJob } from '../src/client/client.ts';
import { listWorkerShops } from '../src/client/shop-directory.ts';
import { INLINE_FEED_MAX_BYTES as EXPORTED_LIMIT } from '../src/index.ts';
import { HEADER, job, products, row, useTestEnv } from './helpers.ts';
import { createLocalJobStore } from '../src/stores/job-store-local.ts';
import { shopRefs, startShopsJob } from './many-shop-jobs.ts';
import { testFeed } from './feed-files.ts';

/** A job store of its own (a local folder) for the snapshot tests, and a new job's key in it. */
const store = createLocalJobStore(join(mkdtempSync(join(tmpdir(), 'sk-inline-')), 'jobs'));
afterAll(() => store.close());
const newJob = () => ({ workflowId: `inline-${randomUUID()}`, firstRunId: randomUUID(), jobId: 'inline' });

/** An item as an n8n user's sheet gives it: every cell a string, blanks included. */
const sheetItem = (sku: string) => ({
  sku,
  description: 'Vintage tee #nike',
  price_amount: '20.00',
  price_currency: 'GBP',
  quantity: '1',
  national_shipping_cost: '3.50',
  pictures: `https://img.example/${sku}-1.jpg | https://img.example/${sku}-2.jpg`,
  department: 'menswear',
  product_type: 'tshirts',
  condition: 'used_good',
  brand_name: 'Nike',
  country_code: 'GB',
  colour: '',
});
const ndjson = (items: unknown[]) => items.map((i) => JSON.stringify(i)).join('\n') + '\n';

describe('inline feeds: the snapshot', () => {
  it('takes CSV text from the input, with the same rows a file would give', async () => {
    const content = [HEADER, row('IN-1'), row('IN-2', 1)].join('\n') + '\n';
    const s = await takeSnapshot(
      { path: 'n8n:binary:feed.csv', format: 'csv', content },
      store,
      newJob(),
      testFeed,
    );
    expect(s).toMatchObject({ source: 'n8n:binary:feed.csv', format: 'csv', total: 2 });
    const [first] = await readSnapshotRecords(store, s, 0, 1);
    expect(first).toMatchObject({
      sku: 'IN-1',
      quantity: 1,
      pictures: [{ url: 'https://img.example/0.jpg' }],
    });
  });

  it('reads NDJSON items as spreadsheet cells with `cells`; other values are kept, nulls dropped', async () => {
    const structured = {
      sku: 'IN-4',
      quantity: 2,
      pictures: [{ url: 'https://img.example/4.jpg' }],
      address: { country_code: 'FR' },
      brand_name: null,
    };
    const content = ndjson([sheetItem('IN-3'), structured]);
    const s = await takeSnapshot(
      { path: 'n8n:input-items (2)', format: 'ndjson', content, cells: true },
      store,
      newJob(),
      testFeed,
    );
    const [sheet, typed] = await readSnapshotRecords(store, s, 0, 2);
    expect(sheet).toEqual({
      sku: 'IN-3',
      description: 'Vintage tee #nike',
      price_amount: '20.00',
      price_currency: 'GBP',
      quantity: 1,
      national_shipping_cost: '3.50',
      pictures: [{ url: 'https://img.example/IN-3-1.jpg' }, { url: 'https://img.example/IN-3-2.jpg' }],
      department: 'menswear',
      product_type: 'tshirts',
      condition: 'used_good',
      brand_name: 'Nike',
      address: { country_code: 'GB' },
    });
    expect(typed).toEqual({
      sku: 'IN-4',
      quantity: 2,
      pictures: [{ url: 'https://img.example/4.jpg' }],
      address: { country_code: 'FR' },
    });
    // Without `cells` the records are request bodies as they are.
    const raw = await takeSnapshot({ path: 'x', format: 'ndjson', content }, store, newJob(), testFeed);
    expect((await readSnapshotRecords(store, raw, 0, 1))[0]).toMatchObject({
      quantity: '1',
      country_code: 'GB',
    });
    expect(fromCells(['not', 'an', 'object'])).toEqual(['not', 'an', 'object']);
  });

  it('refuses an inline feed above the limit, for good, naming the limit and the way out', async () => {
    expect(EXPORTED_LIMIT).toBe(1024 * 1024);
    const content = 'x'.repeat(INLINE_FEED_MAX_BYTES + 1);
    const error = (await takeSnapshot(
      { path: 'n8n:input-items (1)', format: 'ndjson', content },
      store,
      newJob(),
      testFeed,
    ).catch((e: unknown) => e)) as ApplicationFailure;
    expect(error.type).toBe('FeedUnreadable');
    expect(error.nonRetryable).toBe(true);
    expect(error.message).toBe(
      `the ndjson feed n8n:input-items (1) cannot be read: an inline feed holds at most 1048576 bytes (1 MiB) and this one has 1048577: give the worker a file path or URL instead`,
    );
    // At the limit exactly it is taken (a JSON array of one long string is one item).
    const fits = JSON.stringify(['y'.repeat(INLINE_FEED_MAX_BYTES - 4)]);
    expect(Buffer.byteLength(fits)).toBe(INLINE_FEED_MAX_BYTES);
    const s = await takeSnapshot({ path: 'x', format: 'json', content: fits }, store, newJob(), testFeed);
    expect(s.total).toBe(1);
  });
});

describe('inline feeds and the shop directory on a real worker', () => {
  const env = useTestEnv('inline', { shopNames: () => [...env.keys.keys(), 'zeta', 'alpha', 'alpha'] });

  it('a job for one shop lists the items it carries (nothing read from the worker’s disk)', async () => {
    const shop = env.shop('in-a');
    const items = ['IJ-1', 'IJ-2', 'IJ-3'].map(sheetItem);
    const input = job(env, shop, 'n8n:input-items (3)', {
      feed: { path: 'n8n:input-items (3)', format: 'ndjson', content: ndjson(items), cells: true },
    });
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', total: 3, done: 3, failed: 0 });
    expect(
      products(env, shop.sellerId, 'IJ')
        .map((p) => p.sku)
        .sort(),
    ).toEqual(['IJ-1', 'IJ-2', 'IJ-3']);
    expect(products(env, shop.sellerId, 'IJ')[0]!.pictures).toHaveLength(2);
  });

  it("items in the action node's own output shape (Get Many → Bulk Job, no mapping step) list as they read", async () => {
    const shop = env.shop('in-shape');
    // A listing as the Marketplace node outputs it: the API's read model (`brand`, pictures with their
    // sizes, ids, times), plus the node's `url`, `status` word and `status_code`.
    const output = (sku: string) => ({
      sku,
      product_id: 9_000_001,
      slug: `vintage-tee-${sku.toLowerCase()}`,
      url: `https://marketplace.example/products/vintage-tee-${sku.toLowerCase()}/`,
      status: 'on sale',
      status_code: 'STATUS_ONSALE',
      description: 'Vintage tee #nike',
      price_amount: '20.00',
      price_currency: 'GBP',
      current_price: '20.00',
      quantity: 1,
      national_shipping_cost: '3.50',
      pictures: [
        { url: `https://img.example/${sku}-1.jpg`, width: 1280, height: 1280 },
        { url: `https://img.example/${sku}-2.jpg`, width: 1280, height: 1280 },
      ],
      department: 'menswear',
      product_type: 'tshirts',
      condition: 'used_good',
      brand: 'Nike',
      colour: [],
      style: [],
      age: [],
      source: [],
      attributes: {},
      address: { country_code: 'GB' },
      is_boosted: false,
      created_at: '2026-11-20T10:00:00.000Z',
      updated_at: '2026-11-20T10:00:00.000Z',
    });
    expect(fromCells(output('SH-0'))).toMatchObject({
      brand_name: 'Nike',
      pictures: [{ url: 'https://img.example/SH-0-1.jpg' }, { url: 'https://img.example/SH-0-2.jpg' }],
    });
    const items = ['SH-1', 'SH-2'].map(output);
    const input = job(env, shop, 'n8n:input-items (2)', {
      feed: { path: 'n8n:input-items (2)', format: 'ndjson', content: ndjson(items), cells: true },
    });
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', total: 2, done: 2, failed: 0 });
    const listed = products(env, shop.sellerId, 'SH');
    expect(listed.map((p) => [p.sku, p.brand, p.pictures.length]).sort()).toEqual([
      ['SH-1', 'Nike', 2],
      ['SH-2', 'Nike', 2],
    ]);
  });

  it('a job for many shops hands the inline feed to each shop, a few at a time', async () => {
    const [a, b, c] = [env.shop('in-b'), env.shop('in-c'), env.shop('in-d')];
    const content = [HEADER, row('IM-1'), row('IM-2', 1)].join('\n') + '\n';
    const { handle } = await startShopsJob(env, 'inline-many', shopRefs([a, b, c]), {
      feed: { path: 'n8n:binary:many.csv', format: 'csv', content },
      maxConcurrentShops: 2,
    });
    expect(await handle.result()).toMatchObject({ state: 'finished', total: 6, done: 6 });
    for (const s of [a, b, c]) expect(products(env, s.sellerId, 'IM')).toHaveLength(2);
  });

  it('lists the worker’s shop names through Temporal: sorted, once each, names only', async () => {
    env.shop('in-e');
    const directory = await listWorkerShops(env.client, env.taskQueue);
    expect(directory.unavailable).toBeUndefined();
    expect(directory.shops).toEqual(
      [...new Set([...env.keys.keys(), 'zeta', 'alpha'])].sort((x, y) => x.localeCompare(y)),
    );
    expect(JSON.stringify(directory)).not.toMatch(/pak_|apiKey|http/);
  });

  it('a worker that cannot list its shops says so; a task queue without a worker is a clear error', async () => {
    const queue = `inline-noshops-${randomUUID()}`;
    const stop = await env.worker({ taskQueue: queue, shopNames: undefined });
    try {
      expect(await listWorkerShops(env.client, queue)).toEqual({
        shops: [],
        unavailable: expect.stringMatching(/does not publish its shop names/),
      });
    } finally {
      await stop();
    }
    const nobody = `inline-nobody-${randomUUID()}`;
    await expect(listWorkerShops(env.client, nobody)).rejects.toThrow(
      new RegExp(`no selling-kit worker answered on task queue ${nobody} within 10s`),
    );
  }, 60_000);
});
