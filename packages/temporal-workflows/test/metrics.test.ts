// Worker metrics (issue 12 §4): a worker process with SELLING_KIT_METRICS_ADDRESS serves Prometheus text
// at /metrics — the SDK runtime's own `temporal_*` metrics and ours (metric-names.ts) — and a scrape
// during a bulk job finds our counters moving: requests by rate group, 429s, items by outcome, pacing
// waits, a pause by its cause. A bad address stops the worker with the variable named.
// @needs temporal
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@selling-kit/simulator/testing';
import { pauseJob, resumeJob, startBulkJob } from '../src/client/client.ts';
import {
  ITEMS_METRIC,
  JOB_PAUSES_METRIC,
  METRICS_ADDRESS_ENV,
  PACING_WAIT_METRIC,
  RATE_LIMITED_METRIC,
  REQUESTS_METRIC,
} from '../src/observability/metrics.ts';
import { csvFeed, job, products, startEnv, type TestEnv } from './helpers.ts';

const workerMain = fileURLToPath(new URL('../src/worker/worker-main.ts', import.meta.url));

let env: TestEnv;
beforeAll(async () => {
  env = await startEnv('metrics');
}, 60_000);
afterAll(() => env?.close(), 60_000);

function spawnWorker(extra: NodeJS.ProcessEnv, queue: string, credentials: string) {
  const child = spawn(process.execPath, [workerMain], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS,
      SELLING_KIT_TASK_QUEUE: queue,
      SELLING_KIT_CREDENTIALS: credentials,
      SELLING_KIT_CODEC: '0', // this file's client does not encrypt
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => out.includes('worker ready') && resolve());
    child.on('exit', (code) => reject(new Error(`worker exited (${code}): ${out.slice(-500)}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, ready, exited, output: () => out };
}

/** Sums the samples of one metric (every label set), optionally only those with the given labels. */
function total(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const m = /^([a-z_]+)(\{[^}]*\})?\s+([0-9.eE+-]+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const set = m[2] ?? '';
    if (Object.entries(labels).every(([k, v]) => set.includes(`${k}="${v}"`))) sum += Number(m[3]);
  }
  return sum;
}

describe('worker metrics on a Prometheus endpoint', () => {
  let worker: ReturnType<typeof spawnWorker> | undefined;
  afterEach(async () => {
    if (worker && worker.child.exitCode === null) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    worker = undefined;
  }, 60_000);

  it('a scrape during a bulk job finds the counters moving; the SDK runtime metrics are there too', async () => {
    const shop = env.shop('metrics');
    const credentials = join(env.dir, 'metrics-credentials.json');
    writeFileSync(credentials, JSON.stringify({ [shop.ref]: env.keys.get(shop.ref) }));
    const port = await freePort();
    const queue = `${env.taskQueue}-metrics`;
    worker = spawnWorker(
      { [METRICS_ADDRESS_ENV]: `127.0.0.1:${port}`, SELLING_KIT_FEED_ROOTS: env.dir },
      queue,
      credentials,
    );
    await worker.ready;
    expect(worker.output()).toContain(`metrics on http://127.0.0.1:${port}/metrics`);
    const scrape = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();

    // A 429 storm at the start of the job: the rate-limited counter has something to count.
    await fetch(`${env.sim.adminUrl}/admin/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'rate_limit_storm', count: 3, operationId: 'products.create' }),
    });
    // 60 creates at 20 per 2 s, plus two rows the feed check refuses. A window's 20 leave at once and the
    // next window opens 2 s after their answers, so the job sleeps on a pacing timer (≥ the workflow's 1 s
    // minimum) between windows for sure; at 10 per 1 s every wait may be shorter than that and be left to
    // the activity (CI once saw no pacing timer at all).
    const bad = ['BAD-1,,x,GBP,1,3.50,,menswear,tshirts,used_good,Nike,GB', 'BAD-2,,y,GBP,1,,,,,,,GB'];
    const input = job(env, shop, csvFeed(env, 'MET', 60, bad), { allowance: { limit: 20, windowMs: 2000 } });
    const handle = await startBulkJob(env.client, input, queue);

    // During the job: requests counted and growing between two scrapes.
    const created = REQUESTS_METRIC.name;
    let during = 0;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      during = total(await scrape(), created, { group: 'create_update', status: '2xx' });
      if (during > 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(during).toBeGreaterThan(0);
    const progress = await handle.query<{ done: number }>('progress');
    expect(progress.done).toBeLessThan(60); // the scrape was taken while the job ran
    // Paused by request and resumed: one pause, tagged with its cause (the alert rules skip `request`).
    await pauseJob(env.client, input.jobId, 'metrics test');
    await resumeJob(env.client, input.jobId);

    const final = await handle.result();
    expect(final).toMatchObject({ state: 'finished', done: 60, failed: 2 });
    expect(products(env, shop.sellerId, 'MET')).toHaveLength(60);
    const after = await scrape();
    expect(total(after, created, { group: 'create_update', status: '2xx' })).toBeGreaterThan(during);
    expect(total(after, created, { group: 'create_update', status: '2xx' })).toBe(60);
    expect(total(after, created, { group: 'create_update', status: '429' })).toBe(3);
    expect(total(after, RATE_LIMITED_METRIC.name, { group: 'create_update' })).toBe(3);
    const items = ITEMS_METRIC.name;
    expect(total(after, items, { operation: 'create', outcome: 'ok' })).toBe(60);
    expect(total(after, items, { operation: 'create', outcome: 'invalid' })).toBe(2);
    expect(total(after, items, { outcome: 'failed' })).toBe(0);
    const pauses = JOB_PAUSES_METRIC.name;
    expect(total(after, pauses, { operation: 'create', cause: 'request' })).toBe(1);
    expect(total(after, pauses) - total(after, pauses, { cause: 'request' })).toBe(0);
    // Pacing waits recorded as a histogram: at least one timer of ≥ 1 s between windows.
    expect(total(after, `${PACING_WAIT_METRIC.name}_count`)).toBeGreaterThan(0);
    expect(total(after, `${PACING_WAIT_METRIC.name}_sum`)).toBeGreaterThanOrEqual(1000);
    // The SDK runtime's own metrics share the endpoint.
    expect(after).toMatch(/^temporal_/m);
    // No secret or path in the labels.
    expect(after).not.toContain(env.keys.get(shop.ref)!.apiKey);
  }, 180_000);

  it('a bad address stops the worker at start, naming the variable', async () => {
    const credentials = join(env.dir, 'metrics-bad-credentials.json');
    writeFileSync(credentials, '{}');
    const w = spawnWorker({ [METRICS_ADDRESS_ENV]: 'not an address' }, `${env.taskQueue}-bad`, credentials);
    await expect(w.ready).rejects.toThrow(/worker exited \(2\)/);
    expect(w.output()).toContain(METRICS_ADDRESS_ENV);
  }, 60_000);
});
