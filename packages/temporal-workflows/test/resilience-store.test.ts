// Infrastructure trouble pauses a bulk job and is waited out by itself; it never fails the job (issue 21
// §2, review N5): the job store unavailable for 4 minutes, then a cancel while it is down. A worker of
// its own task queue whose job store fails every call while told to (`down`): the same folder the test
// reads the report from. Real dev server (global set-up), simulator over 127.0.0.1.
// @needs temporal
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { cancelJob, getProgress, resumeJob, startBulkJob } from '../src/client/client.ts';
import { JOB_STORE_UNAVAILABLE, type JobStore } from '../src/stores/job-store.ts';
import type { BulkProgress } from '../src/types.ts';
import { csvFeed, job, products, reportOf, useTestEnv, waitFor } from './helpers.ts';

const env = useTestEnv('resil-store');

/** Until when (epoch ms) every call of the wrapped store fails as an unreachable database would. */
let downUntil = 0;
const flaky = (store: JobStore): JobStore =>
  new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || name === 'close') return value;
      return (...args: unknown[]) => {
        if (Date.now() < downUntil)
          throw ApplicationFailure.retryable(
            'the job store is unavailable: connect ECONNREFUSED 127.0.0.1:5432',
            JOB_STORE_UNAVAILABLE,
          );
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });

let queue: string;
beforeAll(async () => {
  queue = `${env.taskQueue}-flaky-${randomUUID().slice(0, 6)}`;
  await env.worker({ taskQueue: queue, jobStore: flaky(env.store) });
}, 60_000);
afterEach(() => void (downUntil = 0));

/** Every progress the job showed while `during()` holds, polled. */
function watch(jobId: string) {
  const seen: BulkProgress[] = [];
  let stop = false;
  const running = (async () => {
    while (!stop) {
      const p = await getProgress(env.client, jobId).catch(() => undefined);
      if (p) seen.push(p);
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  return {
    seen,
    async end() {
      stop = true;
      await running;
    },
  };
}

describe('the job store unavailable', () => {
  it('for 4 minutes mid-job: the job shows paused with the reason, then finishes by itself, its report whole', async () => {
    const shop = env.shop('rss-out');
    const input = job(env, shop, csvFeed(env, 'RSS', 300));
    const handle = await startBulkJob(env.client, input, queue);
    await waitFor('some listings', () => products(env, shop.sellerId, 'RSS').length >= 40);
    downUntil = Date.now() + 4 * 60_000;
    const progress = watch(input.jobId);
    const result = await handle.result().finally(() => progress.end());
    expect(result).toMatchObject({ state: 'finished', done: 300, failed: 0 });
    const paused = progress.seen.filter((p) => p.state === 'paused');
    expect(paused.length).toBeGreaterThan(0);
    expect(paused[0]!.reason).toMatch(/job store is unavailable/);
    const listed = products(env, shop.sellerId, 'RSS');
    expect(new Set(listed.map((p) => p.sku)).size).toBe(300);
    expect(listed).toHaveLength(300);
    const report = await reportOf(env, input.jobId);
    expect(report).toHaveLength(300);
    expect(report.every((r) => r.status === 'ok')).toBe(true);
  }, 600_000);

  it('a cancel while it is down is honoured once it is back: every line reported', async () => {
    const shop = env.shop('rss-cancel');
    const input = job(env, shop, csvFeed(env, 'RSC', 200));
    const handle = await startBulkJob(env.client, input, queue);
    await waitFor('some listings', () => products(env, shop.sellerId, 'RSC').length >= 20);
    downUntil = Date.now() + 60 * 60_000;
    await waitFor(
      'the job to pause',
      async () => (await getProgress(env.client, input.jobId)).state === 'paused',
      120_000,
    );
    await cancelJob(env.client, input.jobId);
    downUntil = 0;
    await resumeJob(env.client, input.jobId); // tries again at once
    const result = await handle.result();
    expect(result.state).toBe('cancelled');
    const report = await reportOf(env, input.jobId);
    expect(new Set(report.map((r) => r.line)).size).toBe(200);
    expect(report.filter((r) => r.status === 'ok')).toHaveLength(products(env, shop.sellerId, 'RSC').length);
  }, 300_000);
});
