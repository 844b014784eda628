// Bulk jobs past the happy path (issue 10): cancel across continue-as-new, history bytes per item,
// cancelling a large job, slow answers, poison items, a failing API, cancellation through Temporal, a
// child whose parent is gone. Real dev server (global set-up), simulator over 127.0.0.1.
// @needs temporal
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { startBulkJob, getProgress, cancelJob, resumeJob } from '../src/client/client.ts';
import { bulkWorkflowId } from '../src/contract.ts';
import { bulkListingWorkflow } from '../src/workflows/bulk-listing.ts';
import { newCarry, type BulkCarry } from '../src/workflows/bulk-job.ts';
import { shopWorkflowId } from '../src/workflows/multi-shop.ts';
import { laneWorkflowId } from '../src/workflows/shop-lane.ts';
import {
  addFault,
  admin,
  csvFeed,
  job,
  listDirectly,
  products,
  reportOf,
  spawnReadyWorker,
  useTestEnv,
} from './helpers.ts';
import { shopsWithFeeds, startShopsJob } from './many-shop-jobs.ts';

const env = useTestEnv('durable');
afterEach(() => admin(env, 'DELETE', '/admin/faults'));

const until = async (check: () => Promise<boolean> | boolean, ms = 60_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** Bytes and events of every run of a workflow (visibility), once they are all closed. */
async function historyOf(workflowId: string) {
  let runs: { bytes: number; events: number }[] = [];
  await until(async () => {
    runs = [];
    for await (const w of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      runs.push({ bytes: w.historySize ?? 0, events: w.historyLength ?? 0 });
    return runs.length > 0 && runs.every((r) => r.bytes > 0);
  });
  return {
    runs: runs.length,
    bytes: runs.reduce((n, r) => n + r.bytes, 0),
    events: runs.reduce((n, r) => n + r.events, 0),
  };
}

/** A job's state as its first run would carry it on (the workflow's own constructor), with `over` applied. */
const emptyCarry = (over: Partial<BulkCarry>): BulkCarry => ({
  ...newCarry({ allowance: { limit: 20, windowMs: 10_000 }, startedAt: Date.now() }),
  runs: 1,
  ...over,
});

describe('durable bulk jobs', () => {
  it('a cancel carried across continue-as-new is honoured: nothing more is sent', async () => {
    const shop = env.shop('dj-can');
    const input = job(env, shop, csvFeed(env, 'DJC', 30));
    const handle = await env.client.workflow.start(bulkListingWorkflow, {
      taskQueue: env.taskQueue,
      workflowId: bulkWorkflowId(input.jobId),
      args: [input, emptyCarry({ cancelled: true })],
    });
    const result = await handle.result();
    expect(result).toMatchObject({ state: 'cancelled', done: 0, cancelled: 30, pending: 0 });
    expect(products(env, shop.sellerId, 'DJC')).toHaveLength(0);
    const report = await reportOf(env, input.jobId);
    expect(report).toHaveLength(30);
    expect(new Set(report.map((r) => r.status))).toEqual(new Set(['cancelled']));
  }, 60_000);

  it('history stays under 300 bytes per item; continue-as-new goes on while creates are in doubt', async () => {
    const shop = env.shop('dj-bytes');
    await addFault(env, { type: 'timeout_after_commit', operationId: 'products.create', count: 4 });
    const input = job(env, shop, csvFeed(env, 'DJB', 1000), {
      allowance: { limit: 100, windowMs: 1000 },
      windowsPerRun: 5,
    });
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', done: 1000, failed: 0 });
    expect(result.verified).toBeGreaterThanOrEqual(1);
    const listed = products(env, shop.sellerId, 'DJB');
    expect(new Set(listed.map((p) => p.sku)).size).toBe(1000);
    expect(listed).toHaveLength(1000);
    const h = await historyOf(bulkWorkflowId(input.jobId));
    if (process.env.DEBUG_HISTORY) {
      const { temporal } = await import('@temporalio/proto');
      const sizes: Record<string, [number, number]> = {};
      for await (const w of env.client.workflow.list({
        query: `WorkflowId = '${bulkWorkflowId(input.jobId)}'`,
      })) {
        const hist = await env.client.workflow.getHandle(w.workflowId, w.runId).fetchHistory();
        for (const e of hist.events!) {
          const type = String(e.eventType);
          const n = temporal.api.history.v1.HistoryEvent.encode(e as never).finish().length;
          sizes[type] = [(sizes[type]?.[0] ?? 0) + 1, (sizes[type]?.[1] ?? 0) + n];
        }
      }
      console.log(JSON.stringify(sizes, null, 1));
    }
    expect(h.runs).toBeGreaterThan(2);
    expect(h.bytes / 1000).toBeLessThanOrEqual(300);
  }, 120_000);

  it('cancelling a 20,000-line job reports every line from the worker, with a small history', async () => {
    const shop = env.shop('dj-big');
    const input = job(env, shop, csvFeed(env, 'DJG', 20_000, ['bad,row']));
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    await until(async () => (await getProgress(env.client, input.jobId)).done > 0);
    await cancelJob(env.client, input.jobId);
    const result = await handle.result();
    expect(result.state).toBe('cancelled');
    const report = await reportOf(env, input.jobId);
    expect(report).toHaveLength(20_001);
    expect(new Set(report.map((r) => r.line)).size).toBe(20_001);
    const by = (status: string) => report.filter((r) => r.status === status).length;
    expect(by('invalid')).toBe(1);
    expect(by('ok')).toBe(products(env, shop.sellerId, 'DJG').length);
    // Counted as cancelled, not as failed.
    expect(result.cancelled).toBe(by('cancelled') + by('unknown'));
    expect(result.failed).toBe(by('invalid') + by('failed'));
    expect(result.done + result.failed + result.cancelled).toBe(20_001);
    expect((await historyOf(bulkWorkflowId(input.jobId))).bytes).toBeLessThan(1024 * 1024);
  }, 120_000);

  it('a feed URL slower than a heartbeat timeout is read once, without timing out', async () => {
    const shop = env.shop('dj-slowfeed');
    const csv = readFileSync(csvFeed(env, 'DJF', 30));
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      // Headers after 12 s: longer than any heartbeat timeout of the job's activities.
      setTimeout(() => res.end(csv), 12_000);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as { port: number };
      const input = job(env, shop, '', {
        feed: { path: `http://127.0.0.1:${port}/feed.csv`, format: 'csv' },
      });
      const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
      expect(result).toMatchObject({ state: 'finished', done: 30, failed: 0 });
      expect(requests).toBe(1);
    } finally {
      server.close();
    }
  }, 120_000);

  it('answers slower than the heartbeat timeout: each item is sent once', async () => {
    const shop = env.shop('dj-slow');
    for (const sku of ['DJS-2', 'DJS-5']) await addFault(env, { type: 'latency', sku, latencyMs: 12_000 });
    const input = job(env, shop, csvFeed(env, 'DJS', 8));
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', done: 8, failed: 0 });
    const fired = (await admin(env, 'GET', '/admin/faults')) as {
      rules: { sku?: string; fired?: number }[];
      spent: { sku?: string; fired?: number }[];
    };
    const latency = [...fired.rules, ...fired.spent].filter((r) => r.sku?.startsWith('DJS-'));
    expect(latency.map((r) => r.fired)).toEqual([1, 1]);
  }, 120_000);

  it('a SKU that belonged to a listing before the job is reported with its own code, not as created', async () => {
    const shop = env.shop('dj-taken');
    const before = await listDirectly(env, shop.sellerId, 'DJE-2');
    const input = job(env, shop, csvFeed(env, 'DJE', 4));
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', done: 3, failed: 1 });
    const taken = (await reportOf(env, input.jobId)).find((r) => r.sku === 'DJE-2');
    expect(taken).toMatchObject({ status: 'failed', code: 'sku_exists' });
    expect(taken!.message).toContain(String(before.productId));
  }, 60_000);

  it('a poison item (always 500) is reported failed after its tries, with its last code; the rest are listed', async () => {
    const shop = env.shop('dj-poison');
    // Its creates always fail; its lookups answer (absent), so each try is confirmed not applied.
    await addFault(env, { type: 'error_500', sku: 'DJP-3', operationId: 'products.create' });
    await addFault(env, { type: 'error_500', sku: 'DJU-4' });
    const create = job(env, shop, csvFeed(env, 'DJP', 6), { maxItemTries: 3 });
    const upsert = job(env, shop, csvFeed(env, 'DJU', 6), { maxItemTries: 3, operation: 'upsert' });
    const [c, u] = await Promise.all(
      [create, upsert].map(async (j) => (await startBulkJob(env.client, j, env.taskQueue)).result()),
    );
    expect(c).toMatchObject({ state: 'finished', done: 5, failed: 1 });
    expect(u).toMatchObject({ state: 'finished', done: 5, failed: 1 });
    for (const [j, sku] of [
      [create, 'DJP-3'],
      [upsert, 'DJU-4'],
    ] as const) {
      const failed = (await reportOf(env, j.jobId)).filter((r) => r.status === 'failed');
      expect(failed).toEqual([
        expect.objectContaining({ sku, code: 'generic_error', message: expect.stringMatching(/after 3 /) }),
      ]);
    }
    expect(products(env, shop.sellerId, 'DJP').map((p) => p.sku)).not.toContain('DJP-3');
  }, 120_000);

  it('an API that answers every item with a 5xx pauses the job with the reason; resume finishes it', async () => {
    const shop = env.shop('dj-down');
    await addFault(env, { type: 'error_500', operationId: 'products.update*' });
    const input = job(env, shop, csvFeed(env, 'DJD', 80), { operation: 'upsert' });
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    await until(async () => (await getProgress(env.client, input.jobId)).state === 'paused');
    const paused = await getProgress(env.client, input.jobId);
    expect(paused.reason).toMatch(/server errors/);
    expect(paused.failed).toBe(0);
    await admin(env, 'DELETE', '/admin/faults');
    await resumeJob(env.client, input.jobId);
    expect(await handle.result()).toMatchObject({ state: 'finished', done: 80, failed: 0 });
  }, 120_000);

  it('cancelled through Temporal (UI button): every line reported, the slots handed back', async () => {
    const shop = env.shop('dj-tcancel');
    const input = job(env, shop, csvFeed(env, 'DJT', 200));
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    await until(async () => (await getProgress(env.client, input.jobId)).done > 0);
    await handle.cancel();
    const error = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const report = await reportOf(env, input.jobId);
    expect(new Set(report.map((r) => r.line)).size).toBe(200);
    expect(report.filter((r) => r.status === 'ok')).toHaveLength(products(env, shop.sellerId, 'DJT').length);
    // Another job of the shop gets the whole allowance at once: no slot stayed held by the cancelled one.
    const next = job(env, shop, csvFeed(env, 'DJT2', 20));
    expect(await (await startBulkJob(env.client, next, env.taskQueue)).result()).toMatchObject({
      state: 'finished',
      done: 20,
    });
  }, 120_000);

  it('a worker down longer than the batch deadline, with a read-after-create delay: nothing misreported', async () => {
    const shop = env.shop('dj-crash');
    const credentials = join(env.dir, 'dj-credentials.json');
    writeFileSync(credentials, JSON.stringify({ [shop.ref]: env.keys.get(shop.ref) }));
    const queue = `${env.taskQueue}-crash`;
    const spawnWorker = () =>
      spawnReadyWorker({
        SELLING_KIT_TASK_QUEUE: queue,
        SELLING_KIT_CREDENTIALS: credentials,
        SELLING_KIT_CODEC: '0', // this file's client does not encrypt (encryption is on by default)
        SELLING_KIT_JOB_STORE: env.storeDir, // the store the test reads reports from
        SELLING_KIT_FEED_ROOTS: env.dir, // the test's feeds
      });
    // 20 simulated seconds = 2 real seconds before a new listing can be read back.
    await admin(env, 'PATCH', '/admin/config', { readAfterCreateDelayMs: 20_000 });
    const first = await spawnWorker();
    let second: ChildProcess | undefined;
    try {
      const input = job(env, shop, csvFeed(env, 'DJK', 60), { allowance: { limit: 10, windowMs: 1000 } });
      const handle = await startBulkJob(env.client, input, queue);
      await until(() => products(env, shop.sellerId, 'DJK').length >= 15);
      first.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 35_000)); // past the batch deadline (30 s)
      second = await spawnWorker();
      expect(await handle.result()).toMatchObject({ state: 'finished', done: 60, failed: 0 });
      const listed = products(env, shop.sellerId, 'DJK');
      expect(listed).toHaveLength(60);
      expect(new Set(listed.map((p) => p.sku)).size).toBe(60);
      const report = await reportOf(env, input.jobId);
      expect(report.map((r) => r.status)).toEqual(new Array(60).fill('ok'));
    } finally {
      first.kill('SIGKILL');
      second?.kill('SIGTERM');
      await admin(env, 'PATCH', '/admin/config', { readAfterCreateDelayMs: 0 });
    }
  }, 150_000);

  it('a lane terminated by hand mid-job starts again with a window of warm-up: 0 × 429', async () => {
    const shop = env.shop('dj-lane');
    const before = env.sim.config.rateLimits.create_update;
    // The gateway's limit is the job's allowance (20 per real second): any overshoot is a 429.
    env.sim.config.rateLimits.create_update = { limit: 20, windowMs: 10_000 };
    try {
      const input = job(env, shop, csvFeed(env, 'DJL', 100), { allowance: { limit: 20, windowMs: 1000 } });
      const handle = await startBulkJob(env.client, input, env.taskQueue);
      await until(() => products(env, shop.sellerId, 'DJL').length >= 30);
      await env.client.workflow
        .getHandle(laneWorkflowId(env.taskQueue, shop.shopId, 'create_update'))
        .terminate('by hand');
      const result = await handle.result();
      expect(result).toMatchObject({ state: 'finished', done: 100, failed: 0, rateLimited: 0 });
      const counters = (await admin(env, 'GET', '/admin/counters')) as {
        rateLimits: Record<string, Record<string, { limited: number }>>;
      };
      expect(counters.rateLimits[`shop:${shop.sellerId}`]!.create_update!.limited).toBe(0);
    } finally {
      env.sim.config.rateLimits.create_update = before;
    }
  }, 120_000);

  it("a shop's job whose many-shop parent is gone still finishes as finished", async () => {
    const [a, b] = [env.shop('dj-orph-a'), env.shop('dj-orph-b')];
    const { jobId, handle } = await startShopsJob(env, 'orphans', shopsWithFeeds(env, [a, b], 'DJO', 40), {
      allowance: { limit: 10, windowMs: 1000 },
    });
    await until(async () => products(env, a.sellerId, 'DJO0').length > 0);
    await handle.terminate('the parent goes away');
    for (const shop of [a, b]) {
      const child = env.client.workflow.getHandle(shopWorkflowId(jobId, shop.shopId));
      await expect(child.result()).resolves.toMatchObject({ state: 'finished', done: 40 });
    }
  }, 120_000);
});
