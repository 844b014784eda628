// How a bulk job ends (bulk-listing.ts): cancelled (every line not yet answered gets its line, creates in
// doubt verified first), finished (the report proven complete before the job says so), failed (the reason
// shown, every held item's line written), or stopped by trouble that reached its catch (waited out, then
// going on in a new run). A many-shop child tells its parent in every case.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  sleep,
  workflowInfo,
  allHandlersFinished,
} from '@temporalio/workflow';
import type { BulkJobInput, BulkProgress, FeedItem, JobState } from '../types.ts';
import { ABORTED } from './item-codes.ts';
import { failureMessage, INFRA_MAX_WAIT_MS } from './infra-trouble.ts';
import { pendingOf } from './bulk-job.ts';
import { finalizeReport, reportUnread, VERIFY_PER_ROUND, verifyBySku } from './bulk-activities.ts';
import { shopDoneSignal } from './messages.ts';
import {
  accept,
  flush,
  inDoubt,
  jobRef,
  ownSnapshot,
  part,
  progress,
  release,
  report,
  settle,
  type BulkRun,
  type BulkWorkflow,
} from './bulk-run.ts';

/** The report merged at the end holds fewer lines than the items the job settled (retried). */
export const REPORT_INCOMPLETE = 'ReportIncomplete';

/** Cancelled: nothing more is sent; every line not yet answered gets its line in the report. */
export async function wrapUpCancelled(run: BulkRun): Promise<void> {
  const { s, input } = run;
  // Creates that were on the wire or in doubt: verified through the read-after-create delay (the usual
  // rounds); found → ok, absent in every round → never applied, so cancelled; lookups that kept failing
  // → unknown.
  const doubt = [...s.unknown.map((u) => u.item), ...(run.sending ?? []).flatMap((b) => b.items)];
  run.sending = undefined;
  s.unknown = [];
  const { open, answered } = await verifyCancelled(
    run,
    input.operation === 'create' ? doubt.filter((i) => i.sku) : [],
  );
  const absent = open.filter((i) => answered.get(i.line));
  const unchecked = [
    ...doubt.filter((i) => input.operation !== 'create' || !i.sku),
    ...open.filter((i) => !answered.get(i.line)),
  ];
  /** Ends items as cancelled or unknown: both are counted as cancelled (never sent, or not known to be). */
  const end = (items: FeedItem[], status: 'cancelled' | 'unknown', message: string) => {
    s.counts.cancelled += items.length;
    report(
      run,
      items.map((i) => ({ line: i.line, sku: i.sku, status, message })),
    );
  };
  end(
    unchecked,
    'unknown',
    'job cancelled while this item was in doubt: it may or may not have been applied',
  );
  end(absent, 'cancelled', 'job cancelled; the earlier send of this item was not applied (verified)');
  // Idempotent items cut off on the wire by the cancel may have been applied: unknown, not cancelled.
  const cutOff = (i: FeedItem) => i.lastError?.code === ABORTED;
  end(
    s.later.filter(cutOff),
    'unknown',
    'job cancelled while this item was being sent: it may or may not have been applied',
  );
  end(
    [...s.queue, ...s.later.filter((i) => !cutOff(i))],
    'cancelled',
    'job cancelled before this item was sent',
  );
  s.queue = [];
  s.later = [];
  await reportUnreadLines(run);
}

/**
 * The creates in doubt of a cancelled job, looked up by SKU in the usual rounds: found ones are done (or
 * `sku_exists` when an older listing had the SKU); what is left is `open`, with whether each one's last
 * lookup was answered (absent) rather than failed.
 */
async function verifyCancelled(run: BulkRun, creates: FeedItem[]) {
  const { s } = run;
  let open = creates;
  const answered = new Map<number, boolean>();
  for (const delay of run.verifyDelays) {
    if (open.length === 0) break;
    await sleep(delay);
    const still: FeedItem[] = [];
    for (let i = 0; i < open.length; i += VERIFY_PER_ROUND) {
      const round = open.slice(i, i + VERIFY_PER_ROUND);
      const at = part(run, 'verify');
      const res = await verifyBySku(
        run.input.shop,
        round.map((c) => ({ line: c.line, sku: c.sku! })),
        at,
        run.createdSince,
      ).catch(() => ({
        found: [] as number[],
        taken: [] as number[],
        checked: [] as number[],
        attempt: 1,
      }));
      // A retried round's part is the one that counts (as in verifyRound).
      accept(run, at, res.attempt);
      const found = new Set(res.found);
      const taken = new Set(res.taken);
      const checked = new Set(res.checked);
      s.counts.done += found.size;
      s.counts.verified += found.size;
      s.counts.failed += taken.size; // an older listing had the SKU: failed `sku_exists` (its line written)
      for (const item of round)
        if (!found.has(item.line) && !taken.has(item.line)) {
          still.push(item);
          answered.set(item.line, checked.has(item.line));
        }
    }
    open = still;
  }
  return { open, answered };
}

/** Lines never read: reported by one activity on the worker (bodies never enter history). */
async function reportUnreadLines(run: BulkRun): Promise<void> {
  const { s } = run;
  if (s.feedDone || !s.snapshot) return;
  const at = part(run, 'unread');
  const snap = s.snapshot;
  const rest = await run.trouble.infra('reporting the unread lines', () =>
    reportUnread(snap, s.offset, run.input.operation, at),
  );
  accept(run, at, rest.attempt);
  s.counts.cancelled += rest.cancelled;
  s.counts.failed += rest.invalid;
  run.metrics.invalid(rest.invalid);
  s.offset = s.counts.total;
  s.feedDone = true;
}

/**
 * The report is complete: the store's merged report holds one line per settled item (`total − pending`,
 * the counts this workflow settled), or a retryable ReportIncomplete naming both numbers. The job's own
 * snapshot goes with the first merge: the report no longer needs it.
 */
async function assertReportComplete(run: BulkRun, state: 'finished' | 'cancelled'): Promise<void> {
  const { s } = run;
  const settled = s.counts.total - pendingOf(s);
  const { lines } = await finalizeReport(
    jobRef(run),
    { accepted: s.accepted, upToSeq: s.seq, state },
    ownSnapshot(run),
  );
  if (lines !== settled)
    throw ApplicationFailure.retryable(
      `the job's report holds ${lines} lines but ${settled} items were settled: merging again (is every worker on the same job store?)`,
      REPORT_INCOMPLETE,
    );
}

/** The job's end: its report proven complete (merged until it is, shown paused meanwhile), the parent told. */
export async function finish(run: BulkRun, state: JobState): Promise<BulkProgress> {
  run.metrics.settled(run.s.counts);
  await flush(run);
  if (run.s.snapshot)
    await run.trouble.infra('merging the report', () =>
      assertReportComplete(run, state === 'cancelled' ? 'cancelled' : 'finished'),
    );
  run.ended = state;
  const final = progress(run, state);
  await tellParent(run.input, final);
  return final;
}

/**
 * Trouble that reached the job's catch: the job shows paused with the reason and waits (a resume or
 * cancel request ends the wait), then goes on in a new run with the same carry. Answers true when the
 * job was cancelled through Temporal meanwhile (the caller cleans up).
 */
export async function goOnAfter(run: BulkRun, error: unknown): Promise<boolean> {
  try {
    if (run.sending) settle(run, inDoubt(run, run.sending, Date.now()), run.sending);
    run.sending = undefined;
    await run.trouble.wait(
      `the job stopped on: ${failureMessage(error)} (going on by itself within ${INFRA_MAX_WAIT_MS / 60_000} min, or at once on resume)`,
      INFRA_MAX_WAIT_MS,
      () => run.s.cancelled,
    );
    await flush(run);
    await condition(allHandlersFinished);
  } catch (e) {
    if (isCancellation(e)) return true;
    throw e;
  }
  log.warn('going on after trouble, in a new run', { jobId: run.jobId, error: failureMessage(error) });
  return await continueAsNew<BulkWorkflow>(run.input, run.s);
}

/**
 * Cancelled through Temporal (the UI's button, `temporal workflow cancel`): the same clean-up as a cancel
 * request, shielded from the cancellation itself; the parent is told.
 */
export async function wrapUpTemporalCancel(run: BulkRun): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    run.s.cancelled = true;
    await release(run).catch(() => undefined);
    await wrapUpCancelled(run).catch(() => undefined);
    await finish(run, 'cancelled').catch(() => undefined);
  });
}

/**
 * A job that cannot go on (an unreadable feed, an unknown credential: non-retryable) fails visibly, with
 * the reason; its parent (many-shop job) hears of it. Throws the job's failure.
 */
export async function failJob(run: BulkRun, error: unknown): Promise<never> {
  const { s } = run;
  const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
  s.pauseReason = cause instanceof Error ? cause.message : String(cause);
  run.ended = 'failed';
  await release(run).catch(() => undefined);
  // Every item the job held gets its line: in doubt → unknown, not yet sent → failed. (Lines never
  // read stay without one: the report of a failed job ends where its reading did.)
  const message = `the job failed before this item was settled: ${s.pauseReason}`.slice(0, 300);
  const doubt = [...s.unknown.map((u) => u.item), ...(run.sending ?? []).flatMap((b) => b.items)];
  const held = [...s.queue, ...s.later];
  s.counts.failed += doubt.length + held.length;
  run.metrics.settled(s.counts);
  const line = (i: FeedItem, status: 'unknown' | 'failed') => ({
    line: i.line,
    sku: i.sku,
    status,
    code: 'job_failed',
    message,
  });
  report(run, [...doubt.map((i) => line(i, 'unknown')), ...held.map((i) => line(i, 'failed'))]);
  await Promise.all(run.writes.splice(0));
  // Its report ends where the job did; its own snapshot is dropped (N10: never left behind).
  if (s.snapshot)
    await finalizeReport(
      jobRef(run),
      { accepted: s.accepted, upToSeq: s.seq, state: 'failed' },
      ownSnapshot(run),
    ).catch(() => undefined);
  await tellParent(run.input, progress(run, 'failed'));
  throw ApplicationFailure.nonRetryable(
    s.pauseReason,
    cause instanceof ApplicationFailure && cause.type ? cause.type : 'JobFailed',
  );
}

/** A many-shop child tells its parent; a parent that has closed meanwhile changes nothing for the child. */
async function tellParent(input: BulkJobInput, progress: BulkProgress) {
  const parent = workflowInfo().parent;
  if (!parent) return;
  await getExternalWorkflowHandle(parent.workflowId)
    .signal(shopDoneSignal, { shopId: input.shop.shopId, progress })
    .catch((e) => log.warn('the many-shop parent could not be told', { error: String(e) }));
}
