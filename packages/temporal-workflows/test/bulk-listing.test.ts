// Bulk listing on a real Temporal dev server (global set-up) against the simulator over 127.0.0.1.
// @needs temporal
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { addShop, validListing } from '@selling-kit/simulator/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker as TemporalWorker } from '@temporalio/worker';
import { createWorker, workflowCode, type KitWorker } from '../src/worker/worker.ts';
import { REFUSED_FIELD } from '../src/contract.ts';
import { sellerAuthWorkflow, sellerAuthWorkflowId } from '../src/workflows/seller-auth.ts';
import type { SellerTokens } from '../src/activities/index.ts';
import { createMemoryTokenStore } from '../src/stores/token-store.ts';
import { createOAuthClient } from '@selling-kit/simulator';
import { startBulkJob, getProgress, pauseJob, resumeJob, cancelJob } from '../src/client/client.ts';
import { AesGcmCodec, loadCodecKey } from '../src/codec/codec.ts';
import {
  createFeedSyncSchedule,
  createOrdersReconciliationSchedule,
  listSchedules,
  describeSchedule,
  deleteSchedule,
} from '../src/client/schedules.ts';
import { createOrder } from '../../simulator/src/domain/orders.ts';
import { createListing } from '../../simulator/src/domain/products.ts';
import { startCodecServer } from '../src/codec/codec-server.ts';
import type { BulkJobInput } from '../src/types.ts';
import { FEED_HEADER, feedRow } from '../src/testing.ts';
import { okOf, reportOf, simAdmin, waitFor } from './helpers.ts';
import { createLocalJobStore } from '../src/stores/job-store-local.ts';
import { TEST_FEED_POLICY } from './feed-files.ts';
import { refreshUpdate, authStateQuery } from '../src/workflows/messages.ts';

const TIME_SCALE = 10; // the simulator's 10 s create window lasts 1 real second
const taskQueue = `bulk-test-${randomUUID()}`;
let sim: RunningSimulator;
let sellerId: number;
let worker: KitWorker;
let closeWorker: () => Promise<void>;
let running: Promise<void>;
let connection: Connection;
let client: Client;
const dir = mkdtempSync(join(tmpdir(), 'sk-bulk-'));
/** The job store of every worker of this file (the spawned ones open the same folder). */
const storeDir = join(dir, 'jobs');
const jobStore = createLocalJobStore(storeDir);

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  sim = await startSimulator({ port: 0, config: { timeScale: TIME_SCALE, fetchPictures: false } });
  const shop = addShop(sim, { username: 'bulk-shop', partnerId: 'partner-bulk' });
  sellerId = shop.sellerId;
  const key = shop.apiKey;
  ({ worker, close: closeWorker } = await createWorker({
    address: process.env.TEMPORAL_TEST_ADDRESS!,
    taskQueue,
    jobStore,
    feedPolicy: TEST_FEED_POLICY,
    credentials: (ref) => (ref === 'shop-1' ? { baseUrl: sim.url, apiKey: key } : undefined),
  }));
  running = worker.run();
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS! });
  client = new Client({ connection });
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await closeWorker?.();
  await connection?.close();
  await sim?.close();
  await jobStore.close();
});

const HEADER = FEED_HEADER;
let feedNo = 0;
/** A CSV of `n` valid listings, plus the given broken rows. */
function csvFeed(prefix: string, n: number, broken: string[] = []): string {
  const rows = Array.from({ length: n }, (_, i) =>
    feedRow(`${prefix}-${i + 1}`, {
      description: `Vintage tee ${i + 1} #nike`,
      price: `${20 + (i % 7)}.00`,
      picture: `https://img.example/${i}.jpg`,
    }),
  );
  const path = join(dir, `feed-${++feedNo}.csv`);
  writeFileSync(path, [HEADER, ...rows, ...broken].join('\n') + '\n');
  return path;
}

function job(path: string, over: Partial<BulkJobInput> = {}): BulkJobInput & { jobId: string } {
  return {
    jobId: `job-${randomUUID()}`,
    shop: { shopId: String(sellerId), credentialRef: 'shop-1' },
    feed: { path, format: 'csv' },
    operation: 'create',
    allowance: { limit: 20, windowMs: 1000 },
    verifyDelaysMs: [100, 200, 400],
    ...over,
  };
}

const admin = (method: string, path: string, body?: unknown) => simAdmin(sim, method, path, body);

function productsWithPrefix(prefix: string) {
  return [...sim.world.sellers.get(sellerId)!.products.values()].filter((p) =>
    p.sku?.startsWith(`${prefix}-`),
  );
}

describe('bulk listing workflow', () => {
  it('lists every valid item once and reports every item; invalid ones never reach the API', async () => {
    const broken = [
      'A-BAD-1,no price tee #nike,,GBP,1,3.50,https://img.example/x.jpg,menswear,tshirts,used_good,Nike,GB',
      'A-BAD-2,too cheap #nike,20.00,GBP,0,3.50,https://img.example/x.jpg,menswear,tshirts,used_good,Nike,GB',
      'A-BAD-3,tags #adidas,20.00,GBP,1,3.50,https://img.example/x.jpg,menswear,tshirts,used_good,Nike,GB',
    ];
    const input = job(csvFeed('A', 47, broken));
    const handle = await startBulkJob(client, input, taskQueue);
    const result = await handle.result();
    expect(result).toMatchObject({ state: 'finished', total: 50, done: 47, failed: 3 });
    const report = await reportOf({ store: jobStore }, input.jobId);
    expect(report).toHaveLength(50);
    const ok = report.filter((r) => r.status === 'ok');
    expect(ok).toHaveLength(47);
    for (const r of ok) expect(r.productId && r.slug).toBeTruthy();
    const invalid = report.filter((r) => r.status === 'invalid');
    expect(invalid.map((r) => [r.sku, r.field])).toEqual([
      ['A-BAD-1', 'price_amount'],
      ['A-BAD-2', 'quantity'],
      ['A-BAD-3', 'description'],
    ]);
    const products = productsWithPrefix('A');
    expect(products).toHaveLength(47);
    expect(products.some((p) => p.sku?.startsWith('A-BAD'))).toBe(false);
    // Findable by shop, job id and operation.
    const found: string[] = [];
    const query = `SellingKitShop = '${sellerId}' AND SellingKitJobId = '${input.jobId}' AND SellingKitOperation = 'create'`;
    for (let i = 0; i < 50 && found.length === 0; i++) {
      for await (const w of client.workflow.list({ query })) found.push(w.workflowId);
      if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(found).toEqual([handle.workflowId]);
    // Pacing by timers: history stays small per item.
    const history = await handle.fetchHistory();
    expect(history.events!.length / 50).toBeLessThanOrEqual(4);
  }, 120_000);

  it('504s after commit and a read-after-create delay: verify-then-retry leaves 0 duplicates and 0 lost', async () => {
    sim.config.readAfterCreateDelayMs = 1_500; // simulated ms (150 real ms)
    await admin('POST', '/admin/faults', {
      type: 'timeout_after_commit',
      operationId: 'products.create',
      probability: 0.3,
    });
    await admin('POST', '/admin/faults', {
      type: 'timeout_before_commit',
      operationId: 'products.create',
      probability: 0.1,
    });
    try {
      const input = job(csvFeed('B', 40));
      const result = await (await startBulkJob(client, input, taskQueue)).result();
      expect(result).toMatchObject({ state: 'finished', done: 40, failed: 0 });
      expect(result.verified).toBeGreaterThan(0);
      const products = productsWithPrefix('B');
      expect(products).toHaveLength(40);
      expect(new Set(products.map((p) => p.sku)).size).toBe(40);
      const report = await reportOf({ store: jobStore }, input.jobId);
      expect(okOf(report, 'sku')).toEqual(products.map((p) => p.sku).sort());
    } finally {
      await admin('DELETE', '/admin/faults');
      sim.config.readAfterCreateDelayMs = 0;
    }
  }, 120_000);

  it('two concurrent jobs for one shop share its allowance through the lane: 0 × 429', async () => {
    const before = sim.config.rateLimits.create_update;
    sim.config.rateLimits.create_update = { limit: 20, windowMs: 10_000 }; // 20 per real second
    await admin('POST', '/admin/counters/reset');
    try {
      // Each job alone may send the shop's whole allowance; together they must not exceed it.
      const [a, b] = [
        job(csvFeed('L1', 40), { allowance: { limit: 20, windowMs: 1000 } }),
        job(csvFeed('L2', 40), { allowance: { limit: 20, windowMs: 1000 } }),
      ];
      const handles = await Promise.all([
        startBulkJob(client, a, taskQueue),
        startBulkJob(client, b, taskQueue),
      ]);
      const results = await Promise.all(handles.map((h) => h.result()));
      for (const r of results)
        expect(r).toMatchObject({ state: 'finished', done: 40, failed: 0, rateLimited: 0 });
      const counters = (await admin('GET', '/admin/counters')) as {
        rateLimits: Record<string, Record<string, { allowed: number; limited: number }>>;
      };
      const shop = counters.rateLimits[`shop:${sellerId}`]!.create_update!;
      expect(shop.limited).toBe(0);
      expect(shop.allowed).toBe(80);
      expect(productsWithPrefix('L1')).toHaveLength(40);
      expect(productsWithPrefix('L2')).toHaveLength(40);
    } finally {
      sim.config.rateLimits.create_update = before;
    }
  }, 120_000);

  it('adapts to 429s: waits Retry-After, slows down, and still lists everything', async () => {
    const before = sim.config.rateLimits.create_update;
    sim.config.rateLimits.create_update = { limit: 10, windowMs: 10_000 }; // 10 per real second
    try {
      const input = job(csvFeed('C', 40), { allowance: { limit: 30, windowMs: 1000 } });
      const result = await (await startBulkJob(client, input, taskQueue)).result();
      expect(result).toMatchObject({ state: 'finished', done: 40, failed: 0 });
      expect(result.rateLimited).toBeGreaterThan(0);
      expect(result.currentRate).toBeLessThan(30);
      expect(productsWithPrefix('C')).toHaveLength(40);
    } finally {
      sim.config.rateLimits.create_update = before;
    }
  }, 120_000);

  it('pause holds the job, resume continues it, cancel ends it cleanly with the rest reported', async () => {
    const input = job(csvFeed('D', 60), { allowance: { limit: 5, windowMs: 500 } });
    const handle = await startBulkJob(client, input, taskQueue);
    await pauseJob(client, input.jobId);
    const paused = await getProgress(client, input.jobId);
    expect(paused.state).toBe('paused');
    const sentWhilePaused = productsWithPrefix('D').length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(productsWithPrefix('D').length).toBeLessThanOrEqual(sentWhilePaused + 5); // at most the window in flight
    await resumeJob(client, input.jobId);
    await new Promise((r) => setTimeout(r, 700));
    await cancelJob(client, input.jobId);
    const result = await handle.result();
    expect(result.state).toBe('cancelled');
    const created = productsWithPrefix('D').length;
    const report = await reportOf({ store: jobStore }, input.jobId);
    expect(report).toHaveLength(60);
    expect(report.filter((r) => r.status === 'ok')).toHaveLength(created);
    expect(report.filter((r) => r.status === 'cancelled').length).toBe(60 - created);
    expect(created).toBeLessThan(60);
  }, 120_000);

  it('continues as new on a long job without losing or repeating items', async () => {
    const input = job(csvFeed('E', 30), {
      allowance: { limit: 5, windowMs: 200 },
      chunkSize: 10,
      windowsPerRun: 2,
    });
    const result = await (await startBulkJob(client, input, taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', done: 30, failed: 0 });
    expect(result.runs).toBeGreaterThan(1);
    expect(productsWithPrefix('E')).toHaveLength(30);
    expect(await reportOf({ store: jobStore }, input.jobId)).toHaveLength(30);
  }, 120_000);
});

describe('payload codec: no plaintext in history', () => {
  it('round-trips payloads and refuses tampered ones', async () => {
    const codec = new AesGcmCodec(loadCodecKey(join(dir, 'keys', 'codec.key'), { create: true, env: '' }));
    const payload = {
      metadata: { encoding: new TextEncoder().encode('json/plain') },
      data: new TextEncoder().encode('{"secret":"feed"}'),
    };
    const [sealed] = await codec.encode([payload]);
    expect(Buffer.from(sealed!.data!).toString('utf8')).not.toContain('feed');
    const [opened] = await codec.decode([sealed!]);
    expect(Buffer.from(opened!.data!).toString('utf8')).toBe('{"secret":"feed"}');
    sealed!.data![20] = sealed!.data![20]! ^ 0xff;
    // The worker's codec answers a refusal in the tampered payload's place (a hostile payload never fails a
    // workflow task); the operator's (no checks) throws.
    const [refused] = await codec.decode([sealed!]);
    expect(JSON.parse(Buffer.from(refused!.data!).toString('utf8'))).toMatchObject({
      [REFUSED_FIELD]: { code: 'unreadable_input' },
    });
    const operator = new AesGcmCodec(loadCodecKey(join(dir, 'keys', 'codec.key'), { env: '' }), {
      verify: false,
    });
    await expect(operator.decode([sealed!])).rejects.toThrow();
    // The same key file gives the same key (the embedded default is generated once).
    expect(loadCodecKey(join(dir, 'keys', 'codec.key'), { env: '' })).toEqual(
      loadCodecKey(join(dir, 'keys', 'codec.key'), { env: '' }),
    );
  });

  it('a job runs with encrypted payloads; raw history holds no plaintext; the codec endpoint decodes it', async () => {
    const codec = new AesGcmCodec(loadCodecKey(join(dir, 'keys', 'codec.key'), { create: true, env: '' }));
    const queue = `${taskQueue}-codec`;
    const { worker: w, close: wc } = await createWorker({
      address: process.env.TEMPORAL_TEST_ADDRESS!,
      taskQueue: queue,
      jobStore,
      feedPolicy: TEST_FEED_POLICY,
      codec,
      credentials: (ref) =>
        ref === 'shop-1' ? { baseUrl: sim.url, apiKey: [...sim.world.apiKeys.keys()][0]! } : undefined,
    });
    const run = w.run();
    const server = await startCodecServer({
      codec,
      token: 'codec-token',
      allowOrigin: 'http://127.0.0.1:8233',
    });
    try {
      const sealedClient = new Client({ connection, dataConverter: { payloadCodecs: [codec] } });
      // Its own shop lane: lanes of other tests run on workers without this codec.
      const input = job(csvFeed('F', 5), { shop: { shopId: 'codec-shop', credentialRef: 'shop-1' } });
      const handle = await startBulkJob(sealedClient, input, queue);
      expect(await handle.result()).toMatchObject({ state: 'finished', done: 5 });
      const history = await client.workflow.getHandle(handle.workflowId).fetchHistory();
      const raw = JSON.stringify(history.events, (_k, v) =>
        v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v,
      );
      expect(raw).not.toContain(input.feed.path);
      expect(raw).not.toContain('shop-1');
      const started = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
      const jsonPayload = {
        metadata: Object.fromEntries(
          Object.entries(started.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
        ),
        data: Buffer.from(started.data!).toString('base64'),
      };
      const refused = await fetch(`${server.url}/decode`, {
        method: 'POST',
        body: JSON.stringify({ payloads: [jsonPayload] }),
      });
      expect(refused.status).toBe(401);
      const decoded = await fetch(`${server.url}/decode`, {
        method: 'POST',
        headers: { authorization: 'Bearer codec-token', 'content-type': 'application/json' },
        body: JSON.stringify({ payloads: [jsonPayload] }),
      }).then((r) => r.json() as Promise<{ payloads: { data: string }[] }>);
      expect(Buffer.from(decoded.payloads[0]!.data, 'base64').toString('utf8')).toContain(input.feed.path);
    } finally {
      await server.close();
      w.shutdown();
      await run;
      await wc();
    }
  }, 120_000);
});

describe('crash safety and determinism', () => {
  const finished: string[] = [];
  const workerMain = fileURLToPath(new URL('../src/worker/worker-main.ts', import.meta.url));

  function spawnWorker(queue: string, credentialsFile: string): Promise<ChildProcess> {
    const child = spawn(process.execPath, [workerMain], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS,
        SELLING_KIT_TASK_QUEUE: queue,
        SELLING_KIT_CREDENTIALS: credentialsFile,
        SELLING_KIT_CODEC: '0', // this file's client does not encrypt
        SELLING_KIT_JOB_STORE: storeDir, // the store of this file's other workers
        SELLING_KIT_FEED_ROOTS: dir, // this file's feeds
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return new Promise((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('worker ready')) resolve(child);
      });
      child.on('exit', (code) => reject(new Error(`worker exited early (${code})`)));
    });
  }

  it('a worker killed mid-job: a new worker finishes it with no duplicates and nothing lost', async () => {
    const queue = `${taskQueue}-crash`;
    const credentialsFile = join(dir, 'credentials.json');
    writeFileSync(
      credentialsFile,
      JSON.stringify({ 'shop-1': { baseUrl: sim.url, apiKey: [...sim.world.apiKeys.keys()][0] } }),
    );
    const first = await spawnWorker(queue, credentialsFile);
    const input = job(csvFeed('G', 60), { allowance: { limit: 10, windowMs: 500 } });
    const handle = await startBulkJob(client, input, queue);
    while (productsWithPrefix('G').length < 15) await new Promise((r) => setTimeout(r, 50));
    first.kill('SIGKILL');
    const second = await spawnWorker(queue, credentialsFile);
    try {
      const result = await handle.result();
      expect(result).toMatchObject({ state: 'finished', done: 60, failed: 0 });
      const products = productsWithPrefix('G');
      expect(products).toHaveLength(60);
      expect(new Set(products.map((p) => p.sku)).size).toBe(60);
      finished.push(handle.workflowId);
    } finally {
      second.kill('SIGTERM');
    }
  }, 120_000);

  it('replays the recorded histories of finished jobs with the current workflow code (determinism)', async () => {
    const ids: string[] = [];
    const query = `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Completed'`;
    for await (const w of client.workflow.list({ query })) ids.push(w.workflowId);
    const all = [...new Set([...ids, ...finished])];
    expect(all.length).toBeGreaterThanOrEqual(3);
    const histories = await Promise.all(
      all.map(async (workflowId) => ({
        workflowId,
        history: await client.workflow.getHandle(workflowId).fetchHistory(),
      })),
    );
    let replayed = 0;
    for await (const result of TemporalWorker.runReplayHistories(
      { ...workflowCode, replayName: 'bulk-replay' },
      histories,
    )) {
      expect(result.error).toBeUndefined();
      replayed++;
    }
    expect(replayed).toBe(all.length);
  }, 120_000);
});

describe('schedules', () => {
  async function lastRun(scheduleId: string) {
    for (let i = 0; i < 200; i++) {
      const d = await describeSchedule(client, scheduleId);
      const action = d.info.recentActions.at(-1)?.action;
      if (action)
        return client.workflow.getHandle(action.workflow.workflowId, action.workflow.firstExecutionRunId);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`schedule ${scheduleId} never started a run`);
  }

  it('feed sync: create, list, trigger a run that upserts the feed, delete', async () => {
    const id = `feed-sync-${randomUUID()}`;
    const { jobId: _jobId, ...input } = job(csvFeed('H', 8), { operation: 'upsert' });
    await createFeedSyncSchedule(client, id, input, { every: '1h' }, taskQueue);
    expect((await listSchedules(client)).map((s) => s.scheduleId)).toContain(id);
    await client.schedule.getHandle(id).trigger();
    const run = await lastRun(id);
    expect(await run.result()).toMatchObject({ state: 'finished', done: 8, failed: 0 });
    expect(productsWithPrefix('H')).toHaveLength(8);
    const report = await reportOf({ store: jobStore }, run.workflowId);
    expect(report.filter((r) => r.status === 'ok')).toHaveLength(8);
    await deleteSchedule(client, id);
    // Listing is eventually consistent: a deleted schedule may be listed for a moment.
    await waitFor('the schedule gone from the list', async () =>
      (await listSchedules(client)).every((s) => s.scheduleId !== id),
    );
  }, 120_000);

  it('orders reconciliation: a daily run reports the orders still awaiting shipping', async () => {
    const seller = sim.world.sellers.get(sellerId)!;
    const product = await createListing(
      sim.world,
      sim.config,
      seller,
      validListing({
        sku: `R-${randomUUID().slice(0, 8)}`,
        description: 'Reconciled tee #nike',
        pictures: [{ url: 'https://img.example/r.jpg' }],
      }),
      { now: sim.world.clock.now(), skipPictureFetch: true },
    );
    const order = createOrder(sim.world, seller, [product.productId], {
      now: sim.world.clock.now(),
      events: { emit: () => {} },
    });
    const id = `reconcile-${randomUUID()}`;
    await createOrdersReconciliationSchedule(
      client,
      id,
      { shop: { shopId: String(sellerId), credentialRef: 'shop-1' } },
      { cron: '0 3 * * *' },
      taskQueue,
    );
    await client.schedule.getHandle(id).trigger();
    const result = await (await lastRun(id)).result();
    expect(result.awaitingShipping).toContain(order.purchaseId);
    expect(result.orders).toBeGreaterThanOrEqual(1);
    // Its report is a job of its own in the store, one line per order awaiting shipping.
    const report = await reportOf({ store: jobStore }, result.reportKey);
    expect(report).toHaveLength(result.awaitingShipping.length);
    expect(report.map((r) => r.message)).toContain(`order ${order.purchaseId} awaits shipping`);
    await deleteSchedule(client, id);
  }, 120_000);
});

describe('per-seller token refresh', () => {
  const store = new Map<string, SellerTokens>();
  let sets = 0;
  let queue: string;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    queue = `${taskQueue}-auth`;
    const { worker: w, close: wc } = await createWorker({
      address: process.env.TEMPORAL_TEST_ADDRESS!,
      taskQueue: queue,
      jobStore,
      feedPolicy: TEST_FEED_POLICY,
      credentials: () => undefined,
      tokens: {
        get: (ref) => store.get(ref),
        set: (ref, t, expected) => {
          sets++;
          return createMemoryTokenStore(store).set(ref, t, expected);
        },
      },
    });
    const run = w.run();
    stop = async () => {
      w.shutdown();
      await run;
      await wc();
    };
  });
  afterAll(() => stop());

  /** The auth workflow of the seller's tokens `tokenRef`, its id `<id>-<uuid>`, started on the queue. */
  const startAuth = (id: string, tokenRef: string, over: { refreshAheadMs?: number } = {}) =>
    client.workflow.start(sellerAuthWorkflow, {
      taskQueue: queue,
      workflowId: sellerAuthWorkflowId(`${id}-${randomUUID()}`),
      args: [{ sellerId: String(sellerId), tokenRef, ...over }],
    });

  /** A connected seller: an OAuth client and a token pair issued by the simulator. */
  function connect(ref: string, expiresInMs: number) {
    const app = createOAuthClient(sim.world, `partner-${ref}`, ['http://127.0.0.1/cb']);
    const now = sim.world.clock.now();
    const access = `pat_${randomUUID().replace(/-/g, '')}`;
    const refresh = `prt_${randomUUID().replace(/-/g, '')}`;
    const scopes = ['products_read', 'shop_read'] as const;
    sim.world.accessTokens.set(access, {
      token: access,
      clientId: app.clientId,
      sellerId,
      scopes: [...scopes],
      expiresAt: now + 3_600_000,
    });
    sim.world.refreshTokens.set(refresh, {
      token: refresh,
      clientId: app.clientId,
      sellerId,
      scopes: [...scopes],
      used: false,
      expiresAt: now + 365 * 86_400_000,
    });
    store.set(ref, {
      baseUrl: sim.url,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      accessToken: access,
      refreshToken: refresh,
      expiresAt: Date.now() + expiresInMs,
    });
  }

  it('100 concurrent on-demand refreshes cause exactly one refresh; the rotated pair is stored and works', async () => {
    connect('seller-a', 3_600_000);
    const before = store.get('seller-a')!;
    const handle = await startAuth('a', 'seller-a');
    sets = 0;
    const states = await Promise.all(
      Array.from({ length: 100 }, () => handle.executeUpdate(refreshUpdate, { args: [{ seenVersion: 0 }] })),
    );
    expect(sets).toBe(1);
    expect(new Set(states.map((st) => st.version))).toEqual(new Set([1]));
    const after = store.get('seller-a')!;
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(sim.world.refreshTokens.get(before.refreshToken)!.used).toBe(true);
    const shop = await fetch(`${sim.url}/api/v1/shop/`, {
      headers: { authorization: `Bearer ${after.accessToken}` },
    });
    expect(shop.status).toBe(200);
    // A caller still holding version 0 after the refresh gets the new version without another refresh.
    expect((await handle.executeUpdate(refreshUpdate, { args: [{ seenVersion: 0 }] })).version).toBe(1);
    expect(sets).toBe(1);
    // Tokens never appear in history.
    const raw = JSON.stringify((await handle.fetchHistory()).events, (_k, v) =>
      v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : v,
    );
    for (const secret of [
      before.accessToken,
      before.refreshToken,
      after.accessToken,
      after.refreshToken,
      before.clientSecret,
    ])
      expect(raw).not.toContain(secret);
    await handle.terminate();
  }, 60_000);

  it('refreshes by itself before expiry', async () => {
    connect('seller-b', 1_500);
    const handle = await startAuth('b', 'seller-b', { refreshAheadMs: 1_000 });
    let state = await handle.query(authStateQuery);
    for (let i = 0; i < 100 && state.refreshes === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      state = await handle.query(authStateQuery);
    }
    expect(state.refreshes).toBeGreaterThanOrEqual(1);
    expect(state.expiresAt).toBeGreaterThan(Date.now() + 60_000);
    await handle.terminate();
  }, 60_000);

  it('invalid_grant: a visible reauthorization_required state, no refresh loop', async () => {
    connect('seller-c', 3_600_000);
    const handle = await startAuth('c', 'seller-c');
    sim.world.refreshTokens.delete(store.get('seller-c')!.refreshToken); // revoked by the seller
    const state = await handle.executeUpdate(refreshUpdate, { args: [{ seenVersion: 0 }] });
    expect(state).toMatchObject({ state: 'reauthorization_required', refreshes: 0 });
    expect(state.reason).toMatch(/authorise the application again/);
    expect((await handle.query(authStateQuery)).state).toBe('reauthorization_required');
    expect((await handle.executeUpdate(refreshUpdate, { args: [{ seenVersion: 0 }] })).state).toBe(
      'reauthorization_required',
    );
    await handle.terminate();
  }, 60_000);
});
