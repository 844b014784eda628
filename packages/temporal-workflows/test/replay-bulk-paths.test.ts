// Determinism of the bulk job's risky paths (review N13): a job cancelled mid-run (the wrap-up's
// verification timers and `reportUnread`), a job that continues as new (the run that hands its carry on
// and the run that starts from it) and a job that fails. One run of each on the real dev server, its
// histories replayed with the current code by both bundles a worker may run (replay-histories.ts).
// `UPDATE_HISTORIES=1` records them as `bulk-listing-<path>@<RELEASE>.json`; replay.test.ts replays every
// committed history, these included.
// @needs temporal
import { WorkflowFailedError, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { cancelJob, startBulkJob } from '../src/client/client.ts';
import { bulkWorkflowId } from '../src/contract.ts';
import { addFault, admin, csvFeed, job, products, reportOf, useTestEnv, waitFor } from './helpers.ts';
import { freshHistories, replayHistories } from './replay-histories.ts';

const env = useTestEnv('replay-paths');

/** The names of the activities a history schedules, and its event types, in order. */
function shapeOf(history: unknown) {
  const events = (history as { events: Record<string, unknown>[] }).events;
  const types = events.map((e) => String(e.eventType).replace(/^EVENT_TYPE_/, ''));
  const activities = events.flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes as { activityType: { name: string } } | undefined;
    return a ? [a.activityType.name] : [];
  });
  return { types, activities };
}

it("replays a bulk job's cancel wrap-up, continue-as-new and failure with the current code", async () => {
  // Cancelled while creates are in doubt (504 after commit, read back only 2 s later) and most of the
  // feed (6 chunks) is unread: the wrap-up sleeps and verifies, then reports the unread lines.
  const shop = env.shop('rbp-a');
  await admin(env, 'PATCH', '/admin/config', { readAfterCreateDelayMs: 20_000 }); // 2 real seconds
  await addFault(env, { type: 'timeout_after_commit', operationId: 'products.create', probability: 1 });
  const cancelled = job(env, shop, csvFeed(env, 'RBC', 60), {
    chunkSize: 10,
    allowance: { limit: 5, windowMs: 1000 },
    verifyDelaysMs: [500, 1000, 4000],
  });
  try {
    const handle = await startBulkJob(env.client, cancelled, env.taskQueue);
    await waitFor('the first window to land', () => products(env, shop.sellerId, 'RBC').length > 0);
    await cancelJob(env.client, cancelled.jobId);
    expect(await handle.result()).toMatchObject({ state: 'cancelled', total: 60, pending: 0 });
  } finally {
    await admin(env, 'DELETE', '/admin/faults');
    await admin(env, 'PATCH', '/admin/config', { readAfterCreateDelayMs: 0 });
  }
  const lines = await reportOf(env, cancelled.jobId);
  expect(lines).toHaveLength(60);
  // What verification found is ok: the wrap-up waited out the read-after-create delay.
  const created = products(env, shop.sellerId, 'RBC').length;
  expect(lines.filter((l) => l.status === 'ok')).toHaveLength(created);

  // Continues as new every two windows: 20 items at 5 per window take four.
  const continued = job(env, env.shop('rbp-b'), csvFeed(env, 'RBN', 20), {
    windowsPerRun: 2,
    allowance: { limit: 5, windowMs: 500 },
  });
  const continuedHandle = (await startBulkJob(
    env.client,
    continued,
    env.taskQueue,
  )) as WorkflowHandleWithFirstExecutionRunId;
  const progress = await continuedHandle.result();
  expect(progress).toMatchObject({ state: 'finished', done: 20 });
  expect(progress.runs).toBeGreaterThanOrEqual(2);

  // An unknown credential fails the job (non-retryable), after its snapshot and with a line per item held.
  const failed = job(
    env,
    { shopId: env.shop('rbp-c').shopId, ref: 'no-such-credential' },
    csvFeed(env, 'RBF', 3),
  );
  const error = await (
    await startBulkJob(env.client, failed, env.taskQueue)
  )
    .result()
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(String((error as WorkflowFailedError).cause?.message)).toMatch(/no credential named/);

  const fresh = freshHistories({
    'bulk-listing-cancelled': bulkWorkflowId(cancelled.jobId),
    // The first run ends by continuing as new; the newest run starts from the carry it handed on.
    'bulk-listing-continued': {
      workflowId: bulkWorkflowId(continued.jobId),
      runId: continuedHandle.firstExecutionRunId,
    },
    'bulk-listing-carried': bulkWorkflowId(continued.jobId),
    'bulk-listing-failed': bulkWorkflowId(failed.jobId),
  });
  const shape = Object.fromEntries(fresh.map((h) => [h.name, shapeOf(h.history)]));
  // Each history holds the path it stands for (else it guards nothing).
  const wrapUp = shape['bulk-listing-cancelled']!;
  const cancelAt = wrapUp.types.indexOf('WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
  expect(cancelAt).toBeGreaterThan(0);
  expect(wrapUp.types.slice(cancelAt)).toContain('TIMER_STARTED');
  expect(wrapUp.activities).toEqual(expect.arrayContaining(['verifyBySku', 'reportUnread']));
  expect(shape['bulk-listing-continued']!.types.at(-1)).toBe('WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
  expect(shape['bulk-listing-carried']!.types.at(-1)).toBe('WORKFLOW_EXECUTION_COMPLETED');
  expect(shape['bulk-listing-carried']!.types).not.toContain('WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
  expect(shape['bulk-listing-failed']!.types.at(-1)).toBe('WORKFLOW_EXECUTION_FAILED');

  const { failures, replayed } = await replayHistories('replay-bulk-paths', fresh);
  expect(failures).toEqual([]);
  expect(replayed).toBe(fresh.length);
}, 180_000);
