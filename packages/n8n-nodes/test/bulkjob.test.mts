// The Marketplace Bulk Job node against a real Temporal dev server (its HTTP API) and a real selling-kit
// worker with the payload codec, listing into a simulator: start and wait, progress, sealed history,
// and clear errors; version 2: jobs fed from the workflow's input items (one job for all, one shop or
// several) or a binary CSV, the inline size limit, the Shops list asked from the worker, Get Progress
// with its required Job ID, and the report — one item per listing — read by a worker from its job
// store through Temporal (Get Report, or Start Job waiting with that output): no path in the job.
// @needs temporal
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IExecuteFunctions, ILoadOptionsFunctions, INodeExecutionData } from 'n8n-workflow';
import { MarketplaceBulkJob } from '../nodes/MarketplaceBulkJob/MarketplaceBulkJob.node.ts';
import { decodeValue, type JsonPayload } from '../nodes/MarketplaceBulkJob/transport/codec.ts';
import { parseClientCredential } from '@selling-kit/temporal-workflows';
import { ORDER_MESSAGES, orderWorkflowId, WORKFLOW_TYPES } from '@selling-kit/temporal-workflows/contract';
import { validListing } from '@selling-kit/simulator/testing';
import { createListing } from '../../simulator/src/domain/products.ts';
import { createOrder } from '../../simulator/src/domain/orders.ts';
import { TemporalHttp, temporalSettings } from '../nodes/MarketplaceBulkJob/transport/temporal.ts';
import {
  FEED_HEADER as header,
  feedRow as row,
  feedRowItem,
  skusOf,
  temporalHttp,
  useTwoShopStack,
  type TemporalHttpRequest,
} from './helpers/temporal.mts';

/** The stack, and a second shop of its worker (another seller of the simulator) for many-shop jobs. */
const two = useTwoShopStack();
let httpUrl: string;
let taskQueue: string;
let clientKey: string;
let dir: string;

beforeAll(() => {
  ({ httpUrl, taskQueue, clientKey, dir } = two.stack);
});

interface MockOptions {
  version?: number;
  items?: INodeExecutionData[];
  /** Binary fields of every item, by name. */
  binary?: Record<string, { data: Buffer; fileName: string }>;
}

function mock(
  params: Record<string, unknown>,
  credentials: Record<string, unknown> = {},
  { version = 1, items = [{ json: {} }], binary = {} }: MockOptions = {},
) {
  const calls: { method: string; url: string; body?: unknown }[] = [];
  const fns = {
    getInputData: () => items,
    getNode: () => ({
      id: 'n',
      name: 'Bulk',
      type: 'x',
      typeVersion: version,
      position: [0, 0],
      parameters: {},
    }),
    getExecutionId: () => 'exec-1',
    continueOnFail: () => false,
    getCredentials: async () => ({
      url: httpUrl,
      namespace: 'default',
      taskQueue,
      clientKey,
      // A credential saved before 0.4 has a Report Directory: loaded, and not used.
      reportDir: join(dir, 'reports'),
      apiKey: '',
      ...credentials,
    }),
    getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
      name in params ? params[name] : fallback,
    helpers: {
      assertBinaryData(_i: number, name: string) {
        if (!binary[name]) throw new Error(`No binary data property "${name}" exists on item!`);
        return { fileName: binary[name].fileName, mimeType: 'text/csv', data: '' };
      },
      async getBinaryDataBuffer(_i: number, name: string) {
        return binary[name]!.data;
      },
      async httpRequestWithAuthentication(_type: string, req: TemporalHttpRequest) {
        calls.push(req);
        return temporalHttp(req);
      },
    },
  };
  return { fns: fns as unknown as IExecuteFunctions & ILoadOptionsFunctions, calls };
}

/** The job input the node sent (opened with its client key), from its start request. */
const sentInput = (call: { body?: unknown }) =>
  decodeValue(
    (call.body as { input: { payloads: JsonPayload[] } }).input.payloads[0]!,
    parseClientCredential(clientKey, 'test'),
  ) as Record<string, unknown>;

async function run(fns: IExecuteFunctions) {
  const [out] = (await new MarketplaceBulkJob().execute.call(fns)) as [
    { json: Record<string, unknown>; pairedItem?: unknown }[],
  ];
  return out;
}

/** Version 1's Start: listings created in the demo shop from the CSV file `feed`, as job `jobId`. */
const startFromCsv = (feed: string, jobId: string, wait: { wait: boolean; maxWaitMinutes?: number }) => ({
  operation: 'start',
  feed,
  format: 'csv',
  shops: 'demo',
  jobOperation: 'create',
  jobId,
  ...wait,
});

const node = new MarketplaceBulkJob();
describe('Marketplace Bulk Job node', () => {
  it('starts a job through the HTTP API, waits, and returns the final counts; history holds no plaintext', async () => {
    const feed = join(dir, 'feed.csv');
    writeFileSync(feed, [header, row('BJ-1'), row('BJ-2'), row('BJ-3'), 'BJ-4,,oops'].join('\n') + '\n');
    const { fns, calls } = mock(startFromCsv(feed, 'bj-1', { wait: true, maxWaitMinutes: 5 }));
    const [[item]] = (await node.execute.call(fns)) as [[{ json: Record<string, unknown> }]];
    expect(item!.json).toMatchObject({ jobId: 'bj-1', state: 'finished', total: 4, done: 3, failed: 1 });
    const seller = two.sim.world.sellers.get(1001)!;
    expect(['BJ-1', 'BJ-2', 'BJ-3'].every((s) => seller.skus.has(s))).toBe(true);
    expect(calls[0]).toMatchObject({
      method: 'POST',
      url: expect.stringContaining('/workflows/bulk%3Abj-1'),
    });
    // The history (as the server stores it) has neither the feed path nor the shop in plaintext.
    const history = await (
      await fetch(`${httpUrl}/api/v1/namespaces/default/workflows/bulk%3Abj-1/history`)
    ).text();
    expect(history).toContain('YmluYXJ5L2VuY3J5cHRlZA=='); // "binary/encrypted"
    expect(history).not.toContain('feed.csv');
  });

  it('starts without waiting, then reports progress by job id', async () => {
    const feed = join(dir, 'feed2.csv');
    writeFileSync(feed, [header, row('BJ-10'), row('BJ-11')].join('\n') + '\n');
    const start = mock(startFromCsv(feed, 'bj-2', { wait: false }));
    const [[started]] = (await node.execute.call(start.fns)) as [[{ json: Record<string, unknown> }]];
    expect(started!.json).toEqual({ jobId: 'bj-2', state: 'started', shops: ['demo'], operation: 'create' });
    let progress: Record<string, unknown> = {};
    for (let i = 0; i < 60 && progress.state !== 'finished'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const [[p]] = (await node.execute.call(mock({ operation: 'progress', jobId: 'bj-2' }).fns)) as [
        [{ json: Record<string, unknown> }],
      ];
      progress = p!.json;
    }
    expect(progress).toMatchObject({ jobId: 'bj-2', state: 'finished', done: 2, failed: 0 });
  });

  it('errors: a taken job id (NodeApiError), a bad client key, an unknown job', async () => {
    const feed = join(dir, 'feed.csv');
    const again = mock(startFromCsv(feed, 'bj-1', { wait: false }));
    const taken = await node.execute.call(again.fns).catch((e: unknown) => e);
    expect((taken as Error).constructor.name).toBe('NodeApiError');
    expect((taken as Error).message).toMatch(/refused to start job bj-1/);
    const badKey = await node.execute
      .call(mock({ operation: 'progress', jobId: 'bj-1' }, { clientKey: 'c2hvcnQ=' }).fns)
      .catch((e: unknown) => e);
    expect((badKey as Error).message).toMatch(/^Client Key is not a client key/);
    const unknown = await node.execute
      .call(mock({ operation: 'progress', jobId: 'no-such-job' }).fns)
      .catch((e: unknown) => e);
    expect((unknown as Error).constructor.name).toBe('NodeApiError');
    expect((unknown as Error).message).toMatch(/No progress for job no-such-job/);
  });
});

describe('Marketplace Bulk Job node, version 2', () => {
  const start = (over: Record<string, unknown> = {}) => ({
    operation: 'start',
    feedSource: 'inputItems',
    shops: ['demo'],
    jobOperation: 'create',
    wait: true,
    maxWaitMinutes: 5,
    ...over,
  });

  it('lists the input items (one listing each) in one job; the items reach the API, sealed in history', async () => {
    const items = ['V2-1', 'V2-2', 'V2-3', 'V2-4', 'V2-5'].map(feedRowItem);
    const { fns, calls } = mock(start({ jobId: 'v2-items' }), {}, { version: 2, items });
    const out = await run(fns);
    expect(out).toHaveLength(1);
    expect(out[0]!.json).toMatchObject({
      jobId: 'v2-items',
      state: 'finished',
      total: 5,
      done: 5,
      failed: 0,
      items: 5,
    });
    expect(out[0]!.pairedItem).toEqual(items.map((_, item) => ({ item })));
    expect(skusOf(two.sim, 1001, 'V2-')).toEqual(['V2-1', 'V2-2', 'V2-3', 'V2-4', 'V2-5']);
    // The job carried its rows (the worker read nothing from n8n's disk): NDJSON read as sheet cells.
    expect(sentInput(calls[0]!)).not.toHaveProperty('reportDir');
    expect(sentInput(calls[0]!)).toMatchObject({
      shop: { shopId: 'demo', credentialRef: 'demo' },
      feed: {
        path: 'n8n:input-items (5)',
        format: 'ndjson',
        cells: true,
        content: expect.stringContaining('"sku":"V2-1"'),
      },
    });
    const history = await (
      await fetch(`${httpUrl}/api/v1/namespaces/default/workflows/bulk%3Av2-items/history`)
    ).text();
    expect(history).toContain('YmluYXJ5L2VuY3J5cHRlZA=='); // "binary/encrypted"
    expect(history).not.toContain('V2-1');
    expect(history).not.toContain(Buffer.from('V2-1').toString('base64').slice(0, 6));
  });

  it('lists the items in several shops, each shop its own listings', async () => {
    const items = ['V2M-1', 'V2M-2'].map(feedRowItem);
    const { fns, calls } = mock(
      start({ jobId: 'v2-many', shops: ['demo', 'second'] }),
      {},
      { version: 2, items },
    );
    const [item] = await run(fns);
    expect(item!.json).toMatchObject({ jobId: 'v2-many', state: 'finished', done: 4, failed: 0 });
    expect(skusOf(two.sim, 1001, 'V2M-')).toEqual(['V2M-1', 'V2M-2']);
    expect(skusOf(two.sim, two.second, 'V2M-')).toEqual(['V2M-1', 'V2M-2']);
    expect(sentInput(calls[0]!)).toMatchObject({
      shops: [{ shopId: 'demo' }, { shopId: 'second' }],
      maxConcurrentShops: 100,
    });
  });

  it('lists a CSV file from a binary field', async () => {
    const csv = [header, row('V2B-1'), row('V2B-2'), 'V2B-3,,oops'].join('\n') + '\n';
    const { fns } = mock(
      start({ feedSource: 'binary', binaryPropertyName: 'data', format: 'csv', jobId: 'v2-binary' }),
      {},
      { version: 2, binary: { data: { data: Buffer.from(csv), fileName: 'listings.csv' } } },
    );
    const [item] = await run(fns);
    expect(item!.json).toMatchObject({ jobId: 'v2-binary', state: 'finished', total: 3, done: 2, failed: 1 });
    expect(skusOf(two.sim, 1001, 'V2B-')).toEqual(['V2B-1', 'V2B-2']);
    const missing = mock(
      start({ feedSource: 'binary', binaryPropertyName: 'file', format: 'csv' }),
      {},
      { version: 2 },
    );
    await expect(run(missing.fns)).rejects.toThrow(/No binary data property "file"/);
    expect(missing.calls).toHaveLength(0);
  });

  it('refuses a feed above the inline limit before starting anything, saying what to do', async () => {
    const big = 'x'.repeat(600 * 1024);
    const items = [
      { json: { sku: 'BIG-1', description: big } },
      { json: { sku: 'BIG-2', description: big } },
    ];
    const { fns, calls } = mock(start(), {}, { version: 2, items });
    const error = (await run(fns).catch((e: unknown) => e)) as Error & { description?: string };
    expect(error.constructor.name).toBe('NodeOperationError');
    expect(error.message).toMatch(
      /^Input Items: 1\.17 MiB \(1228\d{3} bytes\) is above the 1 MiB a job can carry inline$/,
    );
    expect(error.description).toMatch(/File Path or URL/);
    expect(calls).toHaveLength(0);
    const binary = mock(
      start({ feedSource: 'binary', binaryPropertyName: 'data', format: 'csv' }),
      {},
      { version: 2, binary: { data: { data: Buffer.alloc(2 * 1024 * 1024, 0x41), fileName: 'huge.csv' } } },
    );
    await expect(run(binary.fns)).rejects.toThrow(
      /^Input Binary Field "huge.csv": 2\.00 MiB \(2097152 bytes\) is above/,
    );
    expect(binary.calls).toHaveLength(0);
  });

  it('measures an inline feed as it travels: JSON-encoded, where quotes and control characters grow', async () => {
    // 0.86 MiB of NDJSON (under the 1 MiB), but quotes: `\"` in each item's line, `\\\"` once the
    // feed's text is JSON-encoded in the payload — 1.72 MiB, above the 1.5 MiB a payload carries inline.
    const quotes = '"'.repeat(110 * 1024);
    const items = Array.from({ length: 4 }, (_, n) => ({ json: { sku: `Q-${n}`, description: quotes } }));
    const { fns, calls } = mock(start(), {}, { version: 2, items });
    const error = (await run(fns).catch((e: unknown) => e)) as Error;
    expect(error.constructor.name).toBe('NodeOperationError');
    expect(error.message).toMatch(/^Input Items: \d+\.\d\d MiB once JSON-encoded \(\d+ bytes: quotes/);
    expect(calls).toHaveLength(0);
  });

  it("lists the worker's shops for the Shops field, through Temporal: names only", async () => {
    const { fns } = mock({});
    const shops = await new MarketplaceBulkJob().methods.loadOptions.getShops.call(fns);
    expect(shops).toEqual([
      { name: 'demo', value: 'demo' },
      { name: 'second', value: 'second' },
    ]);
    expect(JSON.stringify(shops)).not.toMatch(/pak_/);
  });

  it('says so when no worker serves the task queue', async () => {
    const { fns } = mock({}, { taskQueue: 'nobody-listens-here' });
    await expect(new MarketplaceBulkJob().methods.loadOptions.getShops.call(fns)).rejects.toThrow(
      'No selling-kit worker answered on task queue "nobody-listens-here" within 10s: start one (on this machine: `selling-kit dev`), or check the credential\'s task queue',
    );
  }, 60_000);

  it('Get Progress requires its Job ID and reads the job by it', async () => {
    const empty = mock({ operation: 'progress', jobId: '' }, {}, { version: 2 });
    await expect(run(empty.fns)).rejects.toThrow('Job ID: is required to get progress');
    expect(empty.calls).toHaveLength(0);
    const { fns } = mock({ operation: 'progress', jobId: 'v2-items' }, {}, { version: 2 });
    const [item] = await run(fns);
    expect(item!.json).toMatchObject({ jobId: 'v2-items', state: 'finished', done: 5 });
  });

  it('does not wait by default: the job id comes back at once', async () => {
    const params = start({ jobId: 'v2-nowait' });
    delete (params as Record<string, unknown>).wait;
    const { fns } = mock(params, {}, { version: 2, items: [feedRowItem('V2N-1')] });
    const [item] = await run(fns);
    expect(item!.json).toEqual({
      jobId: 'v2-nowait',
      state: 'started',
      shops: ['demo'],
      operation: 'create',
      items: 1,
    });
  });

  it('Get Report: one item per listing, read by a worker through Temporal; or only those needing attention', async () => {
    const { fns, calls } = mock({ operation: 'report', jobId: 'v2-binary' }, {}, { version: 2 });
    const out = await run(fns);
    expect(out.map((i) => i.json)).toEqual([
      {
        jobId: 'v2-binary',
        line: 1,
        sku: 'V2B-1',
        status: 'ok',
        productId: expect.any(Number),
        slug: expect.any(String),
      },
      {
        jobId: 'v2-binary',
        line: 2,
        sku: 'V2B-2',
        status: 'ok',
        productId: expect.any(Number),
        slug: expect.any(String),
      },
      expect.objectContaining({
        jobId: 'v2-binary',
        line: 3,
        status: 'invalid',
        code: expect.any(String),
        message: expect.any(String),
      }),
    ]);
    expect(out.every((i) => (i.pairedItem as { item: number }).item === 0)).toBe(true);
    const seller = two.sim.world.sellers.get(1001)!;
    expect(out[0]!.json.productId).toBe(seller.skus.get('V2B-1'));
    // A report workflow run, its input sealed like the job's (the job id inside, not in plaintext).
    const start = calls.find(
      (c) => c.method === 'POST' && c.url.includes('/workflows/job-report%3Av2-binary%3A'),
    )!;
    expect(start).toBeDefined();
    expect(JSON.stringify(start.body)).not.toContain('"jobId"');
    // It names the job's shops (asked of the job): the worker reads a job only for its shops' reader.
    expect(sentInput(start)).toEqual({ jobId: 'v2-binary', shopIds: ['demo'] });

    const attention = mock(
      { operation: 'report', jobId: 'v2-binary', needsAttention: true },
      {},
      { version: 2 },
    );
    expect((await run(attention.fns)).map((i) => [i.json.line, i.json.status])).toEqual([[3, 'invalid']]);
  });

  it("Get Report of a many-shop job: each listing's shop", async () => {
    const out = await run(mock({ operation: 'report', jobId: 'v2-many' }, {}, { version: 2 }).fns);
    expect(out.map((i) => [i.json.shopId, i.json.line, i.json.sku, i.json.status])).toEqual([
      ['demo', 1, 'V2M-1', 'ok'],
      ['demo', 2, 'V2M-2', 'ok'],
      ['second', 1, 'V2M-1', 'ok'],
      ['second', 2, 'V2M-2', 'ok'],
    ]);
  });

  it('Get Report: its Job ID required; an unknown job named as such', async () => {
    const empty = mock({ operation: 'report', jobId: ' ' }, {}, { version: 2 });
    await expect(run(empty.fns)).rejects.toThrow('Job ID: is required to get the report');
    expect(empty.calls).toHaveLength(0);
    const unknown = (await run(
      mock({ operation: 'report', jobId: 'no-such-job' }, {}, { version: 2 }).fns,
    ).catch((e: unknown) => e)) as Error & { description?: string };
    expect(unknown.constructor.name).toBe('NodeOperationError');
    // Asked for its shops first, a job Temporal does not hold says so.
    expect(unknown.message).toBe('No job "no-such-job" in Temporal');
    expect(unknown.description).toMatch(/unknown Job ID/);
  });

  it('Start Job, waiting with Output "One Item per Listing": the report, each listing paired with its input item', async () => {
    const items = ['V2L-1', 'V2L-2', 'V2L-3'].map(feedRowItem);
    items.splice(1, 0, { json: { sku: 'V2L-bad' } }); // invalid: reported, never sent
    const { fns } = mock(start({ jobId: 'v2-listings', waitOutput: 'listings' }), {}, { version: 2, items });
    const out = await run(fns);
    expect(out.map((i) => [i.json.line, i.json.sku, i.json.status, i.pairedItem])).toEqual([
      [1, 'V2L-1', 'ok', { item: 0 }],
      [2, 'V2L-bad', 'invalid', { item: 1 }],
      [3, 'V2L-2', 'ok', { item: 2 }],
      [4, 'V2L-3', 'ok', { item: 3 }],
    ]);
    expect(out[0]!.json).toMatchObject({ jobId: 'v2-listings', productId: expect.any(Number) });
  });
});

describe('Marketplace Bulk Job node, Mark Order as Shipped', () => {
  /** A listing of the demo shop sold now, and its order flow started on the worker's main queue (which runs it too). */
  async function soldWithFlow(sku: string, { firstReadLatencyMs = 0 } = {}) {
    const { sim } = two;
    const seller = sim.world.sellers.get(sim.demo!.sellerId)!;
    const product = await createListing(sim.world, sim.config, seller, validListing({ sku }) as never, {
      now: sim.world.clock.now(),
      skipPictureFetch: true,
    });
    const order = createOrder(sim.world, seller, [product.productId], {
      now: sim.world.clock.now(),
      events: { emit: () => undefined },
    });
    const { fns } = mock({}, {}, { version: 2 });
    const temporal = new TemporalHttp(fns, temporalSettings(fns.getNode(), await fns.getCredentials('x')));
    const waitForRead = firstReadLatencyMs === 0;
    if (!waitForRead)
      sim.faults.add({
        type: 'latency',
        latencyMs: firstReadLatencyMs,
        path: `/api/v1/orders/${order.purchaseId}/`,
        count: 1,
      });
    const workflowId = orderWorkflowId('demo', order.purchaseId);
    const input = { purchaseId: order.purchaseId, shop: { shopId: 'demo', credentialRef: 'demo' } };
    expect((await temporal.start(workflowId, WORKFLOW_TYPES.order, input)).statusCode).toBe(200);
    // The flow takes a tracking number once it has read its order.
    for (let i = 0; waitForRead && i < 100; i++) {
      const state = await temporal.query(workflowId, ORDER_MESSAGES.stateQuery);
      if ((state.value as { parcelIds?: string[] } | undefined)?.parcelIds?.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return order;
  }

  const ship = (purchaseId: string, more: Record<string, unknown> = {}) =>
    mock(
      {
        operation: 'shipOrder',
        orderShop: 'demo',
        purchaseId,
        carrier: 'ROYAL_MAIL',
        trackingCode: 'GB1',
        ...more,
      },
      {},
      { version: 2 },
    ).fns;

  it("hands the tracking number to the order's flow: the parcel is shipped in the simulator", async () => {
    const order = await soldWithFlow(`BJ-SHIP-${Date.now()}`);
    const [shipped] = await run(ship(order.purchaseId));
    const parcelId = [...order.parcels.keys()][0]!;
    expect(shipped!.json).toEqual({
      shopId: 'demo',
      purchaseId: order.purchaseId,
      status: 'shipped',
      parcelId,
      verified: false,
    });
    expect(order.status).toBe('SHIPPED');
    expect(order.parcels.get(parcelId)).toMatchObject({ trackingNumber: 'GB1', carrier: 'ROYAL_MAIL' });
  });

  it('sent the moment the flow starts (before it has read its order): waits for that read, then ships', async () => {
    // The flow's first read of the order answers after 1.5 s: the node's request arrives before it.
    const order = await soldWithFlow(`BJ-SHIP-EARLY-${Date.now()}`, { firstReadLatencyMs: 1_500 });
    const [shipped] = await run(ship(order.purchaseId, { trackingCode: 'GB2' }));
    expect(shipped!.json).toMatchObject({ status: 'shipped', verified: false });
    expect(order.status).toBe('SHIPPED');
  });

  it('names what is wrong: a parcel the order does not have, an order with no flow', async () => {
    const order = await soldWithFlow(`BJ-SHIP-BAD-${Date.now()}`);
    const parcel = await run(ship(order.purchaseId, { parcelId: 'nope' })).catch((e: unknown) => e);
    expect((parcel as Error).message).toMatch(/parcel nope is not a parcel of this order/);
    expect(order.status).toBe('SHIPPING_PENDING');
    const none = await run(ship('no-such-order')).catch((e: unknown) => e);
    expect((none as Error).message).toMatch(/Order no-such-order of shop demo has no order flow/);
  });
});
