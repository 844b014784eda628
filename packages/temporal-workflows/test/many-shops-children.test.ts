// A many-shop job and children that do not all tell it (review B8, B9, P8; issue 10 items 8 and 9): a
// child terminated or cancelled through Temporal, a cancel that arrives while children are starting, a
// job cancelled through Temporal itself, children started together, a shop listed twice. Real dev server
// (global set-up), simulator over 127.0.0.1.
// @needs temporal
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bulkWorkflowId, cancelJob, pauseJob, resumeJob, startBulkJob } from '../src/client/client.ts';
import { multiShopJobWorkflow, shopsProblem, shopWorkflowId } from '../src/workflows/multi-shop.ts';
import { createChildrenActivities } from '../src/activities/children.ts';
import type { ActivityContext } from '../src/activities/context.ts';
import type { BulkProgress, MultiShopJobInput } from '../src/types.ts';
import { csvFeed, job, products, reportOf, startEnv, type TestEnv } from './helpers.ts';
import { progressQuery } from '../src/workflows/messages.ts';

const EventType = temporal.api.enums.v1.EventType;
let env: TestEnv;
beforeAll(async () => {
  env = await startEnv('kids');
}, 120_000);
afterAll(() => env?.close());

const until = async (check: () => Promise<boolean> | boolean, what: string | (() => string), ms = 60_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${typeof what === 'string' ? what : what()}: not reached`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** A hang shows as a failure naming what hung, not as the test's timeout. */
const within = <T>(p: Promise<T>, what: string, ms = 90_000) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: still waiting`)), ms).unref(),
    ),
  ]);

/** A many-shop job over `n` new shops, each with its own feed of `items` creates (SKUs `<prefix><i>-…`). */
function manyShops(prefix: string, n: number, items: number, over: Partial<MultiShopJobInput> = {}) {
  const shops = Array.from({ length: n }, (_, i) => env.shop(`${prefix}-${i}-${randomUUID().slice(0, 4)}`));
  const input: MultiShopJobInput = {
    jobId: `kids-${randomUUID()}`,
    shops: shops.map((s, i) => ({
      shopId: s.shopId,
      credentialRef: s.ref,
      feed: { path: csvFeed(env, `${prefix}${i}`, items), format: 'csv' },
    })),
    operation: 'create',
    allowance: { limit: 5, windowMs: 1000 },
    verifyDelaysMs: [100, 200, 400],
    ...over,
  };
  return { shops, input, created: (i: number) => products(env, shops[i]!.sellerId, `${prefix}${i}`) };
}

const childOf = (jobId: string, shopId: string) =>
  env.client.workflow.getHandle<() => Promise<BulkProgress>>(shopWorkflowId(jobId, shopId));

/** Long-polls a workflow's history until an event of `type` is in it. */
async function waitForEvent(workflowId: string, type: number) {
  let nextPageToken: Uint8Array | undefined = undefined;
  for (;;) {
    const page: temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse =
      await env.client.workflowService.getWorkflowExecutionHistory({
        namespace: 'default',
        execution: { workflowId },
        waitNewEvent: true,
        nextPageToken,
      });
    if (page.history?.events?.some((e) => e.eventType === type)) return;
    if (page.nextPageToken?.length) nextPageToken = page.nextPageToken;
  }
}

describe('children that never report (B8)', () => {
  it('a child terminated and one cancelled through Temporal: the job finishes and reports both shops', async () => {
    const { shops, input, created } = manyShops('TT', 3, 40, { childCheckMs: 300 });
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    const [a, b, c] = shops.map((s) => s.shopId) as [string, string, string];
    await until(() => created(0).length > 0 && created(1).length > 0, 'shops 0 and 1 creating');
    await childOf(input.jobId, a).terminate('stopped by an operator');
    await childOf(input.jobId, b).cancel();
    const result = await within(handle.result(), 'the job after a child was terminated');
    expect(result.state).toBe('finished');
    const shop = result.shops!;
    expect(shop[a]!.state).toBe('failed');
    expect(shop[a]!.reason).toMatch(/terminated through Temporal: stopped by an operator/);
    // The terminated shop's last counts (from its history): each of its 40 items counted once.
    expect(shop[a]!.total).toBe(40);
    expect(shop[a]!.done + shop[a]!.failed + shop[a]!.cancelled).toBe(40);
    expect(shop[a]!.done).toBeLessThanOrEqual(created(0).length);
    expect(shop[b]!.state).toBe('cancelled');
    expect(shop[c]).toMatchObject({ state: 'finished', done: 40, failed: 0 });
    expect(created(2)).toHaveLength(40);
    expect(result.done).toBe(shop[a]!.done + shop[b]!.done + 40);
  }, 150_000);

  it('the look at the children: a completed one gives its own result, a running one is left out', async () => {
    const shop = env.shop('look');
    const finished = job(env, shop, csvFeed(env, 'LK', 3));
    const done = await (await startBulkJob(env.client, finished, env.taskQueue)).result();
    const running = job(env, shop, csvFeed(env, 'LR', 200), { allowance: { limit: 1, windowMs: 1000 } });
    await startBulkJob(env.client, running, env.taskQueue);
    const ctx = {
      deps: { credentials: () => undefined, temporal: env.client },
    } as unknown as ActivityContext;
    const closed = await createChildrenActivities(ctx).closedChildren([
      { shopId: 'done', workflowId: bulkWorkflowId(finished.jobId), jobId: finished.jobId },
      { shopId: 'running', workflowId: bulkWorkflowId(running.jobId), jobId: running.jobId },
      { shopId: 'never', workflowId: bulkWorkflowId('no-such-job'), jobId: 'no-such-job' },
    ]);
    expect(closed.done).toEqual(done);
    expect(closed.running).toBeUndefined();
    expect(closed.never).toMatchObject({ state: 'failed', reason: expect.stringMatching(/not found/) });
    await cancelJob(env.client, running.jobId);
  }, 120_000);
});

describe('pause and cancel reach children that were starting (B9)', () => {
  it('a cancel right after the children start: no shop goes on sending; every report complete', async () => {
    // The cancel is sent as soon as the job's history shows its children's starts: it lands while
    // they are starting, before the job has seen them start (a window of a few ms: tried three times).
    const jobs = [];
    for (let j = 0; j < 3; j++) {
      const { shops, input, created } = manyShops(`RC${j}-`, 4, 30);
      const handle = await startBulkJob(env.client, input, env.taskQueue);
      await waitForEvent(
        bulkWorkflowId(input.jobId),
        EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
      );
      await cancelJob(env.client, input.jobId);
      jobs.push({ shops, input, created, handle });
    }
    for (const { shops, input, created, handle } of jobs) {
      const result = await within(handle.result(), 'the cancelled job');
      expect(result.state).toBe('cancelled');
      const report = await reportOf(env, input.jobId);
      for (const [i, shop] of shops.entries()) {
        const own = result.shops![shop.shopId]!;
        expect({ shop: i, state: own.state }).toEqual({ shop: i, state: 'cancelled' });
        const lines = report.filter((r) => r.shopId === shop.shopId);
        if (own.total === 0) continue; // cancelled before it started: nothing sent, no report
        expect(lines).toHaveLength(30);
        expect(lines.filter((r) => r.status === 'ok')).toHaveLength(created(i).length);
        expect(created(i).length).toBeLessThan(30);
      }
      // The job counts its shops' cancelled items (BulkProgress.cancelled).
      expect(result.cancelled).toBe(report.filter((r) => r.status === 'cancelled').length);
      expect(result.cancelled).toBeGreaterThan(0);
    }
  }, 180_000);

  it('a pause right after the children start reaches every child, with its reason; resume finishes', async () => {
    const { shops, input, created } = manyShops('RP', 4, 20);
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    await waitForEvent(
      bulkWorkflowId(input.jobId),
      EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
    );
    await pauseJob(env.client, input.jobId, 'stock count');
    const states = () =>
      Promise.all(
        shops.map((s) =>
          childOf(input.jobId, s.shopId)
            .query(progressQuery)
            .then((p) => `${p.state}: ${p.reason}`)
            .catch(() => 'not started'),
        ),
      );
    let seen: string[] = [];
    await until(
      async () => (seen = await states()).every((s) => s === 'paused: stock count'),
      () => `every child paused (${seen.join(', ')})`,
    );
    await resumeJob(env.client, input.jobId);
    expect(await within(handle.result(), 'the resumed job')).toMatchObject({ state: 'finished', done: 80 });
    shops.forEach((_, i) => expect(created(i)).toHaveLength(20));
  }, 150_000);

  it('a job cancelled through Temporal (UI, CLI, handle.cancel()) cancels its children like cancelJob', async () => {
    const { shops, input, created } = manyShops('TC', 2, 40);
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    await until(() => created(0).length > 0 && created(1).length > 0, 'both shops creating');
    await handle.cancel();
    const result = await within(handle.result(), 'the job cancelled through Temporal');
    expect(result.state).toBe('cancelled');
    for (const [i, shop] of shops.entries()) {
      expect(result.shops![shop.shopId]!.state).toBe('cancelled');
      expect(created(i).length).toBeLessThan(40);
    }
  }, 150_000);
});

describe('starting the children (P8)', () => {
  it('children start together, up to the limit, in one workflow task', async () => {
    const { input } = manyShops('PS', 3, 2, { maxConcurrentShops: 2 });
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', done: 6 });
    const { events } = await env.client.workflow.getHandle(bulkWorkflowId(input.jobId)).fetchHistory();
    const starts = events!
      .filter((e) => e.eventType === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)
      .map((e) =>
        Number(e.startChildWorkflowExecutionInitiatedEventAttributes!.workflowTaskCompletedEventId),
      );
    expect(starts).toHaveLength(3);
    expect(starts[0]).toBe(starts[1]); // the first two in one task
    expect(starts[2]).toBeGreaterThan(starts[1]!); // the third when a slot frees
  }, 120_000);

  it('a shop listed twice is refused with a clear error, by the client check and by the job itself', async () => {
    const { input } = manyShops('DU', 2, 2);
    const twice = { ...input, shops: [...input.shops, input.shops[0]!] };
    expect(shopsProblem(twice.shops)).toMatch(
      new RegExp(`shops\\[\\]\\.shopId: .*duplicate_shop.*"${input.shops[0]!.shopId}" \\(2 times\\)`),
    );
    expect(shopsProblem(input.shops)).toBeUndefined();
    const handle = await env.client.workflow.start(multiShopJobWorkflow, {
      taskQueue: env.taskQueue,
      workflowId: bulkWorkflowId(twice.jobId),
      args: [twice],
    });
    const error = await within(
      handle.result().then(
        () => undefined,
        (e: unknown) => e,
      ),
      'the job with a shop listed twice',
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause?.message).toMatch(/duplicate_shop/);
    // Nothing was started.
    await expect(childOf(twice.jobId, input.shops[1]!.shopId).describe()).rejects.toThrow(/not found/i);
  }, 60_000);
});
