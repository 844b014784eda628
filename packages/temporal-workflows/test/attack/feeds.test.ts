// Attack tests of the worker's confined inputs (issue 22 §2, review H2, M1, M2): a job's feed path, feed
// URL, size, ids and SKU map are bounded by the worker's own feed policy (activities/feed-policy.ts) and
// the contract's id rule, never by the job input. Each test starts the attack through a real worker on
// the test's Temporal server and asserts it is refused with its reason, 0 listings touched on the
// simulator and nothing written outside the job store.
// @needs temporal
import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, readdirSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { startBulkJob } from '../../src/client/client.ts';
import { WORKFLOW_TYPES, bulkWorkflowId } from '../../src/contract.ts';
import { feedPolicy } from '../../src/activities/feed-policy.ts';
import { takeSnapshot } from '../../src/activities/snapshot.ts';
import { createActivities } from '../../src/activities/index.ts';
import type { BulkJobInput } from '../../src/types.ts';
import { HEADER, job, reportOf, row, useTestEnv, type TestEnv } from '../helpers.ts';
import { failure, inActivity, newJob, tempStore } from '../feed-files.ts';

/** The worker's one feed root: every feed the jobs may read is in here. */
const root = mkdtempSync(join(tmpdir(), 'sk-attack-root-'));
/** A production worker's policy (no loopback exemption), and a dev worker's (plain http to loopback). */
const production = feedPolicy({ roots: [root] });
const dev = feedPolicy({ roots: [root], allowLoopbackHttp: true });

const env = useTestEnv('attack-feeds', { feedPolicy: dev });
let productionQueue: string;
beforeAll(async () => {
  productionQueue = `${env.taskQueue}-production`;
  await env.worker({ taskQueue: productionQueue, feedPolicy: production });
}, 60_000);

/** Every message of a failure's chain (workflow → activity → application failure), joined. */
function reasons(error: unknown): string {
  const out: string[] = [];
  for (let e = error as { message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    out.push(e.message ?? '');
  return out.join(' ← ');
}

/** Runs a create job of `path` on `queue` for a new shop; its failure's reasons and the shop's listings. */
async function attack(path: string, queue = env.taskQueue, over: Partial<BulkJobInput> = {}) {
  const shop = env.shop('victim');
  const input = job(env, shop, path, over);
  const handle = await startBulkJob(env.client, input, queue);
  const error = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const listings = env.sim.world.sellers.get(shop.sellerId)!.products.size;
  const snapshot = await env.store.getSnapshot({
    workflowId: bulkWorkflowId(input.jobId),
    firstRunId: (await handle.describe()).runId,
    jobId: input.jobId,
    storeId: await env.store.id(),
  });
  return { reasons: reasons(error), listings, snapshot };
}

/** A local HTTP server (127.0.0.1) answering `handler`; closed after the file's tests. */
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});
async function serve(handler: (path: string, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => handler(req.url ?? '/', res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Writes `chunk` until `total` bytes went out or the reader hung up; counts what was written. */
function stream(res: ServerResponse, chunk: Buffer, total: number, sent: { bytes: number }) {
  let closed = false;
  res.on('close', () => (closed = true));
  const pump = () => {
    while (!closed && sent.bytes < total) {
      sent.bytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!closed) res.end();
  };
  pump();
}

describe('feed paths: only inside the worker’s feed roots', () => {
  it('a job naming /etc/passwd is refused, nothing read, 0 listings', async () => {
    const r = await attack('/etc/passwd');
    expect(r.reasons).toContain(`/etc/passwd is outside this worker's feed roots (SELLING_KIT_FEED_ROOTS)`);
    expect(r.listings).toBe(0);
    expect(r.snapshot).toBeUndefined();
  });

  it('a symlink inside a root that points out of it is refused', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'sk-attack-outside-'));
    writeFileSync(join(outside, 'secret.csv'), [HEADER, row('SECRET-1')].join('\n') + '\n');
    const link = join(root, `link-${randomUUID()}.csv`);
    symlinkSync(join(outside, 'secret.csv'), link);
    const r = await attack(link);
    expect(r.reasons).toContain(`${link} is outside this worker's feed roots (SELLING_KIT_FEED_ROOTS)`);
    expect(r.listings).toBe(0);
    expect(r.snapshot).toBeUndefined();
  });

  it('a worker without feed roots refuses every path feed', async () => {
    const store = tempStore();
    const path = join(root, 'fine.csv');
    writeFileSync(path, [HEADER, row('OK-1')].join('\n') + '\n');
    const e = await failure(takeSnapshot({ path, format: 'csv' }, store, newJob(), { policy: feedPolicy() }));
    expect(e.message).toBe('feed paths are off on this worker: set SELLING_KIT_FEED_ROOTS');
    expect(e.type).toBe('FeedRefused');
    expect(e.nonRetryable).toBe(true);
  });
});

describe('feed URLs: https to public addresses, every hop checked', () => {
  it("the simulator's admin state (http://127.0.0.1:<admin port>) is refused by a production worker", async () => {
    const url = `${env.sim.adminUrl}/admin/state`;
    for (const asked of [url, url.replace('http:', 'https:')]) {
      const r = await attack(asked, productionQueue);
      expect(r.reasons).toContain(
        `the feed URL ${asked} resolves to a loopback address: feeds are fetched from public addresses only`,
      );
      expect(r.listings).toBe(0);
      expect(r.snapshot).toBeUndefined();
    }
  });

  it('plain http to a public address is refused before any connection', async () => {
    const url = 'http://93.184.216.34/feed.csv';
    const e = await failure(
      takeSnapshot({ path: url, format: 'csv' }, tempStore(), newJob(), { policy: production }),
    );
    expect(e.message).toBe(
      `the feed URL ${url} is not https (plain http only to a loopback address on a dev worker)`,
    );
    expect(e.type).toBe('FeedRefused');
  });

  it('a host outside SELLING_KIT_FEED_HOSTS is refused before its name is resolved', async () => {
    const url = 'https://feeds.attacker.example/feed.csv';
    const e = await failure(
      takeSnapshot({ path: url, format: 'csv' }, tempStore(), newJob(), {
        policy: feedPolicy({ hosts: ['feeds.supplier.example'] }),
      }),
    );
    expect(e.message).toBe(`the feed URL ${url} names a host not in SELLING_KIT_FEED_HOSTS`);
  });

  it('a redirect from an allowed host to 169.254.169.254 is refused at that hop, never connected to', async () => {
    const asked: string[] = [];
    const base = await serve((path, res) => {
      asked.push(path);
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' });
      res.end();
    });
    const r = await attack(`${base}/feed.csv`);
    expect(asked).toEqual(['/feed.csv']); // the allowed host was asked once…
    expect(r.reasons).toContain(
      'the feed URL http://169.254.169.254/latest/meta-data/iam/security-credentials/ resolves to a link-local address: feeds are fetched from public addresses only',
    );
    expect(r.listings).toBe(0);
    expect(r.snapshot).toBeUndefined();
  });
});

describe('feed limits: enforced while streaming, memory flat', () => {
  it('a 2 GiB newline-free stream stops at the line limit, the worker’s RSS flat', async () => {
    const sent = { bytes: 0 };
    const TWO_GIB = 2 * 1024 * 1024 * 1024;
    const base = await serve((_path, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      stream(res, Buffer.alloc(64 * 1024, 'a'), TWO_GIB, sent);
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    try {
      const r = await attack(`${base}/endless.ndjson`, env.taskQueue, {
        feed: { path: `${base}/endless.ndjson`, format: 'ndjson' },
      });
      expect(r.reasons).toContain(
        'has a line, CSV record or JSON item above SELLING_KIT_FEED_MAX_RECORD_BYTES (1048576 bytes)',
      );
      expect(r.listings).toBe(0);
    } finally {
      clearInterval(sampler);
    }
    // The read stopped within a few MiB of the limit (socket buffers), far from the 2 GiB offered…
    expect(sent.bytes).toBeLessThan(64 * 1024 * 1024);
    // …and the process never held more than a small part of it.
    expect(peak - before).toBeLessThan(128 * 1024 * 1024);
  });

  it('a stream of valid lines stops at SELLING_KIT_FEED_MAX_BYTES, nothing kept', async () => {
    const sent = { bytes: 0 };
    const line = Buffer.from(`${JSON.stringify({ sku: 'X', description: 'x'.repeat(100) })}\n`.repeat(500));
    const base = await serve((_path, res) => {
      res.writeHead(200);
      stream(res, line, 2 * 1024 * 1024 * 1024, sent);
    });
    const store = tempStore();
    const limit = 8 * 1024 * 1024;
    const job = newJob();
    const e = await failure(
      takeSnapshot({ path: `${base}/lines.ndjson`, format: 'ndjson' }, store, job, {
        policy: feedPolicy({ allowLoopbackHttp: true, maxBytes: limit }),
      }),
    );
    expect(e.message).toBe(
      `the ndjson feed ${base}/lines.ndjson exceeds SELLING_KIT_FEED_MAX_BYTES (${limit} bytes)`,
    );
    expect(e.nonRetryable).toBe(true);
    expect(sent.bytes).toBeLessThan(limit + 32 * 1024 * 1024);
    expect(await store.getSnapshot({ ...job, storeId: await store.id() })).toBeUndefined();
  });

  it('more items than SELLING_KIT_FEED_MAX_ITEMS are refused', async () => {
    const path = join(root, `many-${randomUUID()}.csv`);
    writeFileSync(
      path,
      [HEADER, ...Array.from({ length: 11 }, (_, i) => row(`M-${i}`, i))].join('\n') + '\n',
    );
    const e = await failure(
      takeSnapshot({ path, format: 'csv' }, tempStore(), newJob(), {
        policy: feedPolicy({ roots: [root], maxItems: 10 }),
      }),
    );
    expect(e.message).toBe(`the csv feed ${path} has more items than SELLING_KIT_FEED_MAX_ITEMS (10)`);
  });
});

describe('ids: one rule, checked by the client and by the worker', () => {
  /** Entries of the job store's parent folder: nothing may appear beside the store. */
  const beside = (e: TestEnv) => readdirSync(join(e.storeDir, '..')).sort();

  it('startBulkJob refuses the job id "../x" before anything starts', async () => {
    const shop = env.shop('victim');
    const input = { ...job(env, shop, join(root, 'none.csv')), jobId: '../x' };
    await expect(startBulkJob(env.client, input, env.taskQueue)).rejects.toThrow(
      'jobId "../x" is not a valid id: letters, digits, ".", "_" and "-", 1 to 128 characters, starting with a letter or digit',
    );
  });

  it('a job started around the client with the id "../x" is refused by the worker, nothing written outside the store', async () => {
    const shop = env.shop('victim');
    const path = join(root, `ok-${randomUUID()}.csv`);
    writeFileSync(path, [HEADER, row('ID-1')].join('\n') + '\n');
    const before = beside(env);
    const input = { ...job(env, shop, path), jobId: '../x' };
    const handle = await env.client.workflow.start(WORKFLOW_TYPES.bulkListing, {
      taskQueue: env.taskQueue,
      workflowId: `bulk:../x-${randomUUID()}`,
      args: [input],
    });
    const error = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect(reasons(error)).toContain('jobId "../x" is not a valid id');
    expect((error as WorkflowFailedError).cause).toMatchObject({ type: 'InvalidId', nonRetryable: true });
    expect(env.sim.world.sellers.get(shop.sellerId)!.products.size).toBe(0);
    expect(beside(env)).toEqual(before);
    expect(existsSync(join(env.storeDir, '..', 'x.ndjson'))).toBe(false);
  });

  it('report-folder-like extra fields in the input write nothing outside the store', async () => {
    const shop = env.shop('victim');
    const path = join(root, `extra-${randomUUID()}.csv`);
    writeFileSync(path, [HEADER, row(`EXTRA-${randomUUID().slice(0, 6)}`)].join('\n') + '\n');
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'sk-attack-elsewhere-')), 'reports');
    const input = {
      ...job(env, shop, path),
      reportDir: elsewhere,
      dir: elsewhere,
      path: elsewhere,
      storeDir: elsewhere,
    } as BulkJobInput & { jobId: string };
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    await handle.result();
    expect(existsSync(elsewhere)).toBe(false);
    expect(await env.store.findJobs(input.jobId)).toHaveLength(1);
  });
});

describe('SKUs that are dot-segments never become path segments', () => {
  it('an upsert of SKU ".." is a bad item (field and rule named), the job goes on', async () => {
    const shop = env.shop('victim');
    const good = `GOOD-${randomUUID().slice(0, 6)}`;
    const path = join(root, `dots-${randomUUID()}.csv`);
    writeFileSync(path, [HEADER, row('..', 0), row('.', 1), row(good, 2)].join('\n') + '\n');
    const input = job(env, shop, path, { operation: 'upsert' });
    await (await startBulkJob(env.client, input, env.taskQueue)).result();
    const report = await reportOf(env, input.jobId);
    const bySku = Object.fromEntries(report.map((l) => [l.sku, l]));
    for (const sku of ['..', '.'])
      expect(bySku[sku]).toMatchObject({
        status: 'failed',
        code: 'validation',
        message: `sku ${JSON.stringify(sku)} would be a URL dot-segment: such a value cannot be sent in a path [sku: not a dot-segment]`,
      });
    expect(bySku[good]).toMatchObject({ status: 'ok' });
    const skus = [...env.sim.world.sellers.get(shop.sellerId)!.products.values()].map((p) => p.sku);
    expect(skus).toEqual([good]);
  });
});

describe('SKU maps: the same roots', () => {
  it('a delist whose skuMapPath is /etc/passwd is refused before any request', async () => {
    const activities = createActivities({
      credentials: () => undefined,
      jobStore: env.store,
      feedPolicy: production,
    });
    const source = { shopId: 'a', credentialRef: 'a' };
    const e = await failure(
      inActivity(() =>
        activities.planDelist(source, [1], [source, { shopId: 'b', credentialRef: 'b' }], '/etc/passwd'),
      ),
    );
    expect(e.message).toBe(
      `the SKU map /etc/passwd is outside this worker's feed roots (SELLING_KIT_FEED_ROOTS)`,
    );
    expect(e.type).toBe('FeedRefused');
  });
});
