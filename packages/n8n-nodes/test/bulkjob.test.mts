// The Marketplace Bulk Job node against a real Temporal dev server (its HTTP API) and a real selling-kit
// worker with the payload codec, listing into a simulator: start and wait, progress, sealed history,
// and clear errors.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IExecuteFunctions } from 'n8n-workflow';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { AesGcmCodec, createWorker } from '@selling-kit/temporal-workflows';
import { MarketplaceBulkJob } from '../nodes/MarketplaceBulkJob/MarketplaceBulkJob.node.ts';

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

let server: ChildProcess;
let httpUrl: string;
let sim: RunningSimulator;
let worker: Awaited<ReturnType<typeof createWorker>>;
let running: Promise<void>;
const key = randomBytes(32);
const dir = mkdtempSync(join(tmpdir(), 'sk-bulknode-'));
const taskQueue = 'n8n-bulk-node';

beforeAll(async () => {
  const bin = process.env.TEMPORAL_CLI_PATH;
  if (!bin)
    throw new Error('TEMPORAL_CLI_PATH is not set: source scripts/env.sh (scripts/setup.sh builds it)');
  const [port, http, ui] = [await freePort(), await freePort(), await freePort()];
  server = spawn(
    bin,
    [
      ...['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--http-port', String(http)],
      ...['--ui-port', String(ui), '--headless', '--log-level', 'error', '--db-filename', join(dir, 't.db')],
      ...['SellingKitShop', 'SellingKitJobId', 'SellingKitOperation'].flatMap((n) => [
        '--search-attribute',
        `${n}=Keyword`,
      ]),
    ],
    { stdio: 'ignore' },
  );
  httpUrl = `http://127.0.0.1:${http}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${httpUrl}/api/v1/namespaces/default`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 120) throw new Error('Temporal dev server did not start');
    await new Promise((r) => setTimeout(r, 500));
  }
  sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  worker = await createWorker({
    address: `127.0.0.1:${port}`,
    taskQueue,
    credentials: (ref) => (ref === 'demo' ? { baseUrl: sim.url, apiKey: 'pak_demo_selling_kit' } : undefined),
    codec: new AesGcmCodec(key),
  });
  running = worker.worker.run();
}, 180_000);

afterAll(async () => {
  worker?.worker.shutdown();
  await running;
  await worker?.close();
  await sim?.close();
  server?.kill('SIGTERM');
}, 60_000);

function mock(params: Record<string, unknown>, credentials: Record<string, unknown> = {}) {
  const calls: { method: string; url: string; body?: unknown }[] = [];
  const fns = {
    getInputData: () => [{ json: {} }],
    getNode: () => ({ id: 'n', name: 'Bulk', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} }),
    getExecutionId: () => 'exec-1',
    continueOnFail: () => false,
    getCredentials: async () => ({
      url: httpUrl,
      namespace: 'default',
      taskQueue,
      codecKey: key.toString('base64'),
      reportDir: join(dir, 'reports'),
      apiKey: '',
      ...credentials,
    }),
    getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
      name in params ? params[name] : fallback,
    helpers: {
      async httpRequestWithAuthentication(
        _type: string,
        req: { method: string; url: string; body?: unknown },
      ) {
        calls.push(req);
        const res = await fetch(req.url, {
          method: req.method,
          headers: { 'content-type': 'application/json' },
          body: req.body === undefined ? undefined : JSON.stringify(req.body),
        });
        const text = await res.text();
        return { statusCode: res.status, body: text ? JSON.parse(text) : {} };
      },
    },
  };
  return { fns: fns as unknown as IExecuteFunctions, calls };
}

const node = new MarketplaceBulkJob();
const header =
  'sku,description,price_amount,price_currency,quantity,national_shipping_cost,pictures,department,product_type,condition,brand_name,country_code';
const row = (sku: string) =>
  `${sku},Vintage tee #nike,20.00,GBP,1,3.50,https://img.example/${sku}.png,menswear,tshirts,used_good,Nike,GB`;

describe('Marketplace Bulk Job node', () => {
  it('starts a job through the HTTP API, waits, and returns the final counts; history holds no plaintext', async () => {
    const feed = join(dir, 'feed.csv');
    writeFileSync(feed, [header, row('BJ-1'), row('BJ-2'), row('BJ-3'), 'BJ-4,,oops'].join('\n') + '\n');
    const { fns, calls } = mock({
      operation: 'start',
      feed,
      format: 'csv',
      shops: 'demo',
      jobOperation: 'create',
      jobId: 'bj-1',
      wait: true,
      maxWaitMinutes: 5,
    });
    const [[item]] = (await node.execute.call(fns)) as [[{ json: Record<string, unknown> }]];
    expect(item!.json).toMatchObject({ jobId: 'bj-1', state: 'finished', total: 4, done: 3, failed: 1 });
    const seller = sim.world.sellers.get(1001)!;
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
    const start = mock({
      operation: 'start',
      feed,
      format: 'csv',
      shops: 'demo',
      jobOperation: 'create',
      jobId: 'bj-2',
      wait: false,
    });
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

  it('errors: a taken job id (NodeApiError), a wrong codec key, an unknown job', async () => {
    const feed = join(dir, 'feed.csv');
    const again = mock({
      operation: 'start',
      feed,
      format: 'csv',
      shops: 'demo',
      jobOperation: 'create',
      jobId: 'bj-1',
      wait: false,
    });
    const taken = await node.execute.call(again.fns).catch((e: unknown) => e);
    expect((taken as Error).constructor.name).toBe('NodeApiError');
    expect((taken as Error).message).toMatch(/refused to start job bj-1/);
    const badKey = await node.execute
      .call(mock({ operation: 'progress', jobId: 'bj-1' }, { codecKey: 'c2hvcnQ=' }).fns)
      .catch((e: unknown) => e);
    expect((badKey as Error).message).toMatch(/Codec Key: must be the base64 of 32 bytes/);
    const unknown = await node.execute
      .call(mock({ operation: 'progress', jobId: 'no-such-job' }).fns)
      .catch((e: unknown) => e);
    expect((unknown as Error).constructor.name).toBe('NodeApiError');
    expect((unknown as Error).message).toMatch(/No progress for job no-such-job/);
  });
});
