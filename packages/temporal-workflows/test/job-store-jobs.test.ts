// Bulk jobs and the job store (issue 21 §1, review N1, N3, N10): a job's outcomes live in the store every
// worker opens, keyed by its workflow id and first run id, and a job never says `finished` with a report
// shorter than what it settled. Workers here stand for hosts: each opens its own store instance, on one
// folder (shared storage) or on another (a host's private disk). Real dev server, simulator over 127.0.0.1.
// @needs temporal
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { getProgress, resumeJob, startBulkJob } from '../src/client/client.ts';
import { bulkWorkflowId, shopWorkflowId } from '../src/contract.ts';
import { createActivities } from '../src/activities/index.ts';
import { TEST_FEED_POLICY } from './feed-files.ts';
import { dataConverter } from '../src/codec/data-converter.ts';
import { workflowBundle } from '../src/worker/worker.ts';
import { bulkListingWorkflow, REPORT_INCOMPLETE } from '../src/workflows/bulk-listing.ts';
import type { JobStore, OutcomePart } from '../src/stores/job-store.ts';
import { createLocalJobStore } from '../src/stores/job-store-local.ts';
import type { BulkProgress } from '../src/types.ts';
import {
  addFault,
  admin,
  csvFeed,
  job,
  okOf,
  products,
  reportOf,
  useTestEnv,
  waitFor,
  type TestEnv,
} from './helpers.ts';
import { shopsWithFeeds, startShopsJob } from './many-shop-jobs.ts';
import { jobDataQuery } from '../src/workflows/messages.ts';

const env = useTestEnv('jobstore');
afterEach(() => admin(env, 'DELETE', '/admin/faults'));

const NOT_SHARED = 'job storage is not shared between workers: set SELLING_KIT_JOB_STORE';

/**
 * A worker "on another host" running only the activities `pick` keeps (and the workflows, with
 * `workflows`), on `store`: what a deployment whose workers see different storage looks like.
 */
async function hostWorker(
  e: TestEnv,
  taskQueue: string,
  store: JobStore,
  pick: (activity: string) => boolean,
  workflows: boolean,
): Promise<() => Promise<void>> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS! });
  const closers: (() => Promise<void>)[] = [];
  const all = createActivities({
    credentials: (ref) => e.keys.get(ref),
    temporal: e.client,
    taskQueue,
    jobStore: store,
    feedPolicy: TEST_FEED_POLICY,
    closers,
  });
  const worker = await Worker.create({
    connection,
    taskQueue,
    activities: Object.fromEntries(Object.entries(all).filter(([name]) => pick(name))),
    ...(workflows ? { workflowBundle: await workflowBundle() } : {}),
    dataConverter: dataConverter(),
    maxHeartbeatThrottleInterval: '1s',
  });
  const running = worker.run();
  return async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
    for (const c of closers) await c();
    await connection.close();
  };
}

/** Another store instance on the env's folder: a second host's view of shared storage. */
const sharedStore = () => createLocalJobStore(env.storeDir);
/** A store on a folder of its own: a host with its own disk. */
const privateStore = () => createLocalJobStore(join(mkdtempSync(join(tmpdir(), 'sk-host-b-')), 'jobs'));

describe('outcomes in a store every worker shares (N1)', () => {
  /**
   * Host A runs the workflows and every activity but the verification; host B only the verification,
   * on `storeB`. Two creates time out after committing, so B's verification decides their lines. B
   * starts once the job has its snapshot: until then the snapshot could only be retried (an activity
   * landing on a host without it fails), which would only slow the test down.
   */
  async function twoHosts(name: string, storeB: JobStore) {
    const queue = `${env.taskQueue}-${name}`;
    const stopA = await hostWorker(env, queue, env.store, (n) => n !== 'verifyBySku', true);
    const shop = env.shop(name);
    await addFault(env, { type: 'timeout_after_commit', operationId: 'products.create', count: 2 });
    const input = job(env, shop, csvFeed(env, name.toUpperCase(), 5));
    const handle = await startBulkJob(env.client, input, queue);
    await waitFor('the snapshot', async () => (await getProgress(env.client, input.jobId)).total === 5);
    let stopB = await hostWorker(env, queue, storeB, (n) => n === 'verifyBySku', false);
    return {
      shop,
      input,
      handle,
      /** Host B again, on another store. */
      async moveB(store: JobStore) {
        await stopB();
        stopB = await hostWorker(env, queue, store, (n) => n === 'verifyBySku', false);
      },
      async stop() {
        await stopB();
        await stopA();
      },
    };
  }

  it('a host whose store is another never makes a short report: the job waits with the reason, then finishes once it shares', async () => {
    const storeB = privateStore();
    const hosts = await twoHosts('n1-private', storeB);
    try {
      // B refuses the verification retryably, with the plain reason: the job pauses with it and waits.
      const paused = await waitFor(
        'the job paused with the reason',
        async () => {
          const p = await getProgress(env.client, hosts.input.jobId);
          return p.state === 'paused' && p.reason?.includes(NOT_SHARED) && p;
        },
        90_000,
      );
      expect(paused.reason).toMatch(/^verifying creates failed: job storage is not shared between workers/);
      expect(paused.pending).toBeGreaterThan(0);
      // Nothing was written where nobody will read it.
      expect(await storeB.findJobs(hosts.input.jobId)).toEqual([]);

      // The operator points B at the shared store and resumes (else the job tries again by itself).
      await hosts.moveB(sharedStore());
      await resumeJob(env.client, hosts.input.jobId);
      const result = (await hosts.handle.result()) as BulkProgress;
      expect(result).toMatchObject({ state: 'finished', done: 5, failed: 0 });
      expect(result.verified).toBe(2);
      const report = await reportOf(env, hosts.input.jobId);
      expect(report.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
      expect(report.map((r) => r.sku).sort()).toEqual(
        products(env, hosts.shop.sellerId, 'N1-PRIVATE')
          .map((p) => p.sku)
          .sort(),
      );
    } finally {
      await hosts.stop();
      await storeB.close();
    }
  }, 180_000);

  it('two hosts that both run everything, one on another store: the job shows the reason at once, never a retry that happens to land on the right host', async () => {
    // The chaos run's finding: activities retried by Temporal often land on the host holding the data,
    // so a misconfigured deployment could run for ever without showing why it is slow.
    const queue = `${env.taskQueue}-n1-both`;
    const stopA = await hostWorker(env, queue, env.store, () => true, true);
    const shop = env.shop('n1-both');
    const input = job(env, shop, csvFeed(env, 'N1-BOTH', 40), { allowance: { limit: 4, windowMs: 500 } });
    const handle = await startBulkJob(env.client, input, queue);
    await waitFor('the snapshot', async () => (await getProgress(env.client, input.jobId)).total === 40);
    const stopB = await hostWorker(env, queue, privateStore(), () => true, true);
    try {
      const seen = await waitFor(
        'the reason shown on the job',
        async () => {
          const p = await getProgress(env.client, input.jobId);
          return (p.reason?.includes(NOT_SHARED) || p.state === 'finished') && p;
        },
        90_000,
      );
      expect(seen.reason).toContain(NOT_SHARED);
    } finally {
      await stopB();
    }
    const result = (await handle.result()) as BulkProgress;
    expect(result).toMatchObject({ state: 'finished', done: 40, failed: 0 });
    expect(await reportOf(env, input.jobId)).toHaveLength(40);
    // Nothing in doubt was re-created: one listing per line.
    expect(products(env, shop.sellerId, 'N1-BOTH')).toHaveLength(40);
    await stopA();
  }, 180_000);

  it('two hosts on one shared store: the verified lines are in the report (5 of 5)', async () => {
    const storeB = sharedStore();
    const hosts = await twoHosts('n1-shared', storeB);
    try {
      const result = (await hosts.handle.result()) as BulkProgress;
      expect(result).toMatchObject({ state: 'finished', done: 5, failed: 0, verified: 2 });
      const report = await reportOf(env, hosts.input.jobId);
      expect(report).toHaveLength(5);
      expect(new Set(report.map((r) => r.status))).toEqual(new Set(['ok']));
      expect((await env.store.findJobs(hosts.input.jobId))[0]).toMatchObject({ state: 'finished' });
    } finally {
      await hosts.stop();
      await storeB.close();
    }
  }, 120_000);
});

describe('a report shorter than what the job settled (N1)', () => {
  it('the job does not finish with it: it shows the reason and merges again until the store has every line', async () => {
    // A store whose first part with lines stays invisible until released (an NFS cache, a lagging replica).
    let held: { job: Parameters<JobStore['writePart']>[0]; part: OutcomePart; lines: unknown[] } | undefined;
    let hiding = true;
    const lagging: JobStore = {
      ...env.store,
      async writePart(job, part, lines) {
        if (hiding && !held && lines.length > 0) {
          held = { job, part, lines };
          return;
        }
        return env.store.writePart(job, part, lines);
      },
    };
    const queue = `${env.taskQueue}-short`;
    const stop = await env.worker({ taskQueue: queue, jobStore: lagging });
    try {
      const shop = env.shop('short');
      const input = job(env, shop, csvFeed(env, 'SHORT', 5));
      const handle = await startBulkJob(env.client, input, queue);
      const paused = await waitFor('the job paused on its short report', async () => {
        const p = await getProgress(env.client, input.jobId);
        return p.state === 'paused' && p.reason?.includes('5 items were settled') && p;
      });
      expect(paused.reason).toMatch(/report holds 0 lines but 5 items were settled/);
      expect(paused.done).toBe(5);
      // The part becomes visible: the next merge finds every line and the job finishes.
      hiding = false;
      await env.store.writePart(held!.job, held!.part, held!.lines as never);
      expect(await handle.result()).toMatchObject({ state: 'finished', done: 5 });
      expect(await reportOf(env, input.jobId)).toHaveLength(5);
      expect(REPORT_INCOMPLETE).toBe('ReportIncomplete');
    } finally {
      await stop();
    }
  }, 120_000);
});

describe("a report's identity is the job's run, not its name (N3)", () => {
  it('a job id used again (its first job out of Temporal’s retention) reports only the second job’s lines', async () => {
    const shop = env.shop('reuse');
    const jobId = `reuse-${randomUUID()}`;
    const first = job(env, shop, csvFeed(env, 'REUSE-A', 3), { jobId });
    expect(await (await startBulkJob(env.client, first, env.taskQueue)).result()).toMatchObject({
      state: 'finished',
      done: 3,
    });
    // The id free again, as once the first job's retention has passed (or it was deleted): the same
    // workflow id and job id, a new run.
    const second = job(env, shop, csvFeed(env, 'REUSE-B', 2), { jobId });
    const again = await env.client.workflow.start(bulkListingWorkflow, {
      taskQueue: env.taskQueue,
      workflowId: bulkWorkflowId(jobId),
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      args: [second],
    });
    expect(await again.result()).toMatchObject({ state: 'finished', done: 2 });
    const report = await reportOf(env, jobId);
    expect(report.map((r) => r.sku)).toEqual(['REUSE-B-1', 'REUSE-B-2']);
    // Both jobs are in the store, each under its own run.
    const records = await env.store.findJobs(jobId);
    expect(records).toHaveLength(2);
    expect(new Set(records.map((r) => r.key.firstRunId)).size).toBe(2);
  }, 120_000);

  // A shop id with a `/` breaks the contract's id rule (contract.ts ID_PATTERN) and is refused at start;
  // ids the rule allows may still look alike once made file-safe (`.` and `_`).
  it('a many-shop job with shops `x.y` and `x_y`: both shops’ reports are complete', async () => {
    const tag = randomUUID().slice(0, 6);
    const [a, b] = [env.shop('dot'), env.shop('under')];
    const shops = [
      { ...a, shopId: `${tag}x.y` },
      { ...b, shopId: `${tag}x_y` },
    ];
    const { jobId, handle } = await startShopsJob(env, 'alike', shopsWithFeeds(env, shops, `AL${tag}`, 3));
    expect(await handle.result()).toMatchObject({ state: 'finished', done: 6 });
    const report = await reportOf(env, jobId);
    for (const [i, shop] of shops.entries()) {
      const lines = report.filter((r) => r.shopId === shop.shopId);
      expect(lines.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
      expect(lines.map((r) => r.sku).sort()).toEqual(
        products(env, shop.sellerId, `AL${tag}${i}`)
          .map((p) => p.sku)
          .sort(),
      );
    }
  }, 120_000);
});

describe('a many-shop job’s shop stopped through Temporal (N10)', () => {
  it('its report is finalized with the attempts the shop accepted, and its snapshot dropped', async () => {
    // The first write of a workflow-decided part fails once: its second attempt's part is the one the
    // shop accepts (finalizing with `{}` would drop that line).
    let failed = false;
    const flaky: JobStore = {
      ...env.store,
      async writePart(job, part, lines) {
        if (!failed && part.kind === 'wf' && part.attempt === 1) {
          failed = true;
          throw new Error('a storage blip');
        }
        return env.store.writePart(job, part, lines);
      },
    };
    const queue = `${env.taskQueue}-n10`;
    const stop = await env.worker({ taskQueue: queue, jobStore: flaky });
    try {
      const shop = env.shop('n10');
      // Its first item always fails (500 to the create, absent when looked up): given up after 1 try,
      // reported by the workflow's own part. The rest goes slowly enough to be stopped midway.
      await addFault(env, { type: 'error_500', sku: 'N10-1', operationId: 'products.create' });
      const jobId = `n10-${randomUUID()}`;
      const handle = await startBulkJob(
        env.client,
        {
          jobId,
          shops: [
            {
              shopId: shop.shopId,
              credentialRef: shop.ref,
              feed: { path: csvFeed(env, 'N10', 40), format: 'csv' },
            },
          ],
          operation: 'create',
          allowance: { limit: 5, windowMs: 1000 },
          verifyDelaysMs: [100, 200, 400],
          maxItemTries: 1,
          childCheckMs: 300,
        },
        queue,
      );
      const child = env.client.workflow.getHandle(shopWorkflowId(jobId, shop.shopId));
      // Stopped once its given-up item's line is written, by a second attempt the shop accepted.
      await waitFor('the given-up item reported', async () => {
        // (Not found until the parent has started it.)
        const data = await child.query(jobDataQuery).catch(() => undefined);
        return data && Object.values(data.accepted).includes(2);
      });
      await child.terminate('stopped by an operator');
      const result = await handle.result();
      expect(result.shops![shop.shopId]).toMatchObject({ state: 'failed' });
      const report = await reportOf(env, jobId);
      expect(report.find((r) => r.sku === 'N10-1')).toMatchObject({ status: 'failed', shopId: shop.shopId });
      // Every listing the shop made has its line, nothing else does.
      expect(okOf(report, 'sku')).toEqual(
        products(env, shop.sellerId, 'N10')
          .map((p) => p.sku)
          .sort(),
      );
      const [record] = await env.store.findJobs(jobId);
      expect(record).toMatchObject({ shopId: shop.shopId, state: 'failed' });
      expect(
        await env.store.getSnapshot({ ...record!.key, jobId: record!.jobId, storeId: await env.store.id() }),
      ).toBeUndefined();
    } finally {
      await stop();
    }
  }, 120_000);
});
