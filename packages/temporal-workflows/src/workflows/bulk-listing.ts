// A bulk job for one shop: snapshot the feed, read it in chunks, send each window's items in one
// activity, paced by the shop's ring (pacing.ts) — the workflow sleeps on ONE timer per window until the
// window's first slot opens. 429s slow the whole shop down; creates in doubt (504, resets, crashes) are
// verified by GET (SKU) on timers before any re-create; every item has a bounded number of tries.
// Decisions and timers live here; all I/O is in activities. History holds lines, SKUs and counts —
// item bodies and report lines stay in the job store every worker opens (stores/job-store.ts): the
// snapshot and the report's parts, numbered here (`seq`) and keyed by the job's workflow id and first
// run id. Before the job says `finished`, the store must hold one line per settled item.
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  condition,
  isCancellation,
  continueAsNew,
  log,
  workflowInfo,
  allHandlersFinished,
  patched,
} from '@temporalio/workflow';
import { INVALID_ID, JOB_ID_RULE_PATCH, jobIdsProblem } from '../contract.ts';
import type { BatchResult, BulkJobInput, BulkProgress, FeedSnapshot, SlotBatch } from '../types.ts';
import type { AcquireResult } from './pacing.ts';
import { fitsOnePayload, jsonBytes, mayRead } from './carry-bytes.ts';
import { isInfraTrouble, failureMessage, notShared, INFRA_FIRST_WAIT_MS } from './infra-trouble.ts';
import { INPUT_REFUSED, refuseInput } from './refuse.ts';
import { drained, fillWindow, handBack, releaseDue, type BulkCarry } from './bulk-job.ts';
import { sendBatch, snapshotFeed } from './bulk-activities.ts';
import {
  flush,
  handleMessages,
  inDoubt,
  openRun,
  part,
  readNext,
  release,
  settle,
  slots,
  verify,
  type BulkRun,
} from './bulk-run.ts';
import { failJob, finish, goOnAfter, wrapUpCancelled, wrapUpTemporalCancel } from './bulk-wrap-up.ts';

export { REPORT_INCOMPLETE } from './bulk-wrap-up.ts';

export async function bulkListingWorkflow(input: BulkJobInput, carry?: BulkCarry): Promise<BulkProgress> {
  refuseInput(input, carry);
  // A shop's part of a many-shop job is started by its parent only. Its input is signed by the worker and
  // bound to its id (codec), so a copy read from history cannot start another workflow — but it could start
  // this id again once the part has ended, the whole delete or create run twice on the shop. No command is
  // issued before this check: no patch needed (a run its parent started passes, replays unchanged).
  if (input.parentJobId !== undefined && workflowInfo().parent === undefined)
    throw ApplicationFailure.nonRetryable(
      `job ${input.jobId} is a shop's part of job ${input.parentJobId}: it runs only as that job's child, never started on its own`,
      INPUT_REFUSED,
    );
  // Ids name store keys and files: one that breaks the contract's rule is refused before any other command
  // (a many-shop job's shop, started by its parent, has the id `<job>/<shop>`).
  // Checked at the job's start only: a run carrying state was started by a checked run, or by a 0.4 run
  // whose id was never checked and must not fail at its continue-as-new.
  if (carry === undefined && patched(JOB_ID_RULE_PATCH)) {
    const badId = jobIdsProblem(input, { child: workflowInfo().parent !== undefined });
    if (badId) throw ApplicationFailure.nonRetryable(badId, INVALID_ID);
  }
  const run = openRun(input, carry);
  handleMessages(run);
  const { s } = run;
  try {
    const snapshot = (s.snapshot ??= input.snapshot ?? (await snapshotFeed(input.feed, run.jobKey)));
    s.counts.total = snapshot.total;
    if (carry === undefined) await staggeredStart(run);
    for (;;) {
      run.metrics.settled(s.counts);
      if (s.cancelled) break;
      // Checked first, so turns that send nothing (waiting, verifying) count too.
      if (run.windows >= run.windowsPerRun || workflowInfo().continueAsNewSuggested) {
        await flush(run);
        await condition(allHandlersFinished);
        if (s.cancelled) break;
        // Bounded in bytes (carry-bytes.ts: reading stops well before); should it not fit, this run goes
        // on draining its backlog rather than be terminated by an oversized ContinueAsNew.
        if (fitsOnePayload(s)) {
          log.info('continuing as new', { jobId: run.jobId, runs: s.runs, windows: run.windows });
          return await continueAsNew<typeof bulkListingWorkflow>(input, s);
        }
        log.warn('the carry is too large to continue as new: draining first', {
          jobId: run.jobId,
          bytes: jsonBytes(s),
        });
      }
      if (s.paused) {
        await release(run);
        await condition(() => !s.paused || s.cancelled);
        continue;
      }
      if ((await turn(run, snapshot)) === 'done') break;
    }
    await release(run);
    if (s.cancelled) await wrapUpCancelled(run);
    return await finish(run, s.cancelled ? 'cancelled' : 'finished');
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    // Infrastructure trouble that got this far (a call `infra` does not wrap): never the job's failure.
    const cancelledWhileWaiting =
      !s.cancelled && run.ended === undefined && isInfraTrouble(error) && (await goOnAfter(run, error));
    if ((isCancellation(error) || cancelledWhileWaiting) && CancellationScope.current().consideredCancelled) {
      await wrapUpTemporalCancel(run);
      throw error;
    }
    return await failJob(run, error);
  }
}

/**
 * A many-shop job's shop waits for its place in the first window (`startOffsetMs`, set by the parent): shops
 * started together would otherwise send their windows in the same second, window after window (each slot
 * reopens one window after its answer), and that shared burst is what slows a sale on the same workers.
 * Never longer than one window; a pause or cancel ends the wait. Runs recorded before the parent set it
 * have no offset: no command.
 */
async function staggeredStart(run: BulkRun): Promise<void> {
  const offset = run.input.startOffsetMs;
  if (typeof offset !== 'number' || !(offset > 0)) return;
  const wait = workflowInfo().runStartTime.getTime() + Math.min(offset, run.allowance.windowMs) - Date.now();
  if (wait > 0) await condition(() => run.s.cancelled || run.s.paused, wait);
}

/**
 * One turn of the loop, the job neither paused nor due to continue as new: read, verify, or wait when
 * there is nothing to send; else ask for the next window's slots and send it. `done` once every item is
 * settled or the job is cancelled.
 */
async function turn(run: BulkRun, snapshot: FeedSnapshot): Promise<'done' | 'next'> {
  const { s } = run;
  const now = Date.now();
  releaseDue(s, now);
  if (drained(s)) return 'done';
  const due = s.unknown.filter((u) => u.dueAt <= now);
  // Items in doubt or backing off hold the reading back: what a job carries stays about a window's
  // worth, and light enough in bytes to continue as new (carry-bytes.ts).
  const backlog = s.unknown.length + s.later.length;
  const needItems = !s.feedDone && s.queue.length + backlog < Math.max(s.rate, 1) && mayRead(s);
  if (s.queue.length === 0) {
    if (needItems || due.length) {
      run.windows++;
      await Promise.all([needItems ? readNext(run) : undefined, due.length ? verify(run, due) : undefined]);
      return 'next';
    }
    // Nothing to send yet: sleep until an unknown is due or an item's backoff ends.
    const next = Math.min(...s.unknown.map((u) => u.dueAt), ...s.later.map((i) => i.notBefore!));
    await release(run);
    run.metrics.waiting(Math.max(run.minWait, next - now));
    await condition(() => s.cancelled || s.paused, Math.max(run.minWait, next - now));
    return 'next';
  }
  // Ask for the next window's slots while the next chunk is read and due unknowns are checked.
  const expected = s.queue.length + (needItems ? run.chunkSize : 0);
  const [grant] = await Promise.all([
    slots(run, {
      jobId: run.jobId,
      // Never 0 while there is work: a share below one slot is granted as a smaller slot.
      want: Math.max(1, Math.ceil(Math.min(expected, s.rate) / run.slotSize)),
      allowance: run.allowance,
      report: s.report,
      retryAfterMs: s.retryAfterMs,
    }),
    needItems ? readNext(run) : undefined,
    due.length ? verify(run, due) : undefined,
  ]);
  if (!grant) return 'next'; // the lane did not answer and the job is cancelled or due to continue as new
  run.windows++;
  s.report = [];
  s.retryAfterMs = undefined;
  s.rate = grant.rate;
  if (grant.slots.length) s.laneUsed = true;
  if (grant.slots.length === 0 || s.queue.length === 0 || s.cancelled || s.paused) {
    // Hand back what cannot be used; wait for capacity (or a pause / cancel).
    s.report = grant.slots.map((g) => ({ slot: g.slot, lastAt: null }));
    if (grant.slots.length === 0) {
      run.metrics.waiting(Math.max(grant.waitMs, run.minWait));
      await condition(() => s.cancelled || s.paused, Math.max(grant.waitMs, run.minWait));
    }
    return 'next';
  }
  return sendWindow(run, grant, snapshot);
}

/** A window: one pacing timer until shortly before its first slot opens, then its items on the wire. */
async function sendWindow(
  run: BulkRun,
  grant: AcquireResult,
  snapshot: FeedSnapshot,
): Promise<'done' | 'next'> {
  const { s } = run;
  const batch = fillWindow(s, grant);
  // The pacing timer: one per window, until shortly before the window's first slot opens.
  const wait = Math.min(...batch.map((b) => b.notBefore)) - run.lead - Date.now();
  // Sub-second timers fire up to ~0.5 s late on the dev server (measured; ≥ 1 s ones are on time), so
  // a shorter wait is left to the activity, which waits for each slot's notBefore anyway.
  if (wait >= run.minTimer) {
    run.metrics.waiting(wait);
    await condition(() => s.cancelled || s.paused, wait);
  }
  if (s.cancelled || s.paused) {
    // Cancelled or paused during the pacing wait: nothing of this window leaves; its slots go back.
    handBack(s, batch);
    return s.cancelled ? 'done' : 'next';
  }
  run.sending = batch;
  const at = part(run, 'send');
  run.batchPart = at.seq;
  const wire = new CancellationScope();
  run.stopSending = () => wire.cancel();
  let result: BatchResult | 'done' | 'next';
  try {
    result = await wire.run(() =>
      sendBatch(
        run.input.shop,
        run.input.operation,
        snapshot,
        { deadline: grant.deadline, slots: batch, createdSince: run.createdSince },
        at,
      ),
    );
  } catch (error) {
    result = await windowFailed(run, error, batch, grant.deadline);
  } finally {
    run.stopSending = undefined;
  }
  if (result === 'done' || result === 'next') return result;
  run.sending = undefined;
  s.report.push(...result.slots);
  settle(run, result, batch);
  return 'next';
}

/**
 * A window's activity that failed. Cancelled while the window was not running (queued, between attempts,
 * its worker gone): its items stay in doubt (`sending`) for the wrap-up. A non-retryable failure is the
 * job's (thrown). Refused by a worker whose store is another: nothing left, the items go back. Out of
 * attempts: the window's result as a retried attempt would report it, every item in doubt.
 */
async function windowFailed(
  run: BulkRun,
  error: unknown,
  batch: SlotBatch[],
  deadline: number,
): Promise<BatchResult | 'done' | 'next'> {
  if (run.s.cancelled) return 'done';
  if (!isInfraTrouble(error)) throw error;
  if (notShared(error)) {
    // Refused before anything left (the worker's store is another): nothing is in doubt. The items go
    // back, the slots are handed back unused, and the job shows the reason while it waits.
    run.sending = undefined;
    handBack(run.s, batch);
    await run.trouble.wait(`sending a window failed: ${failureMessage(error)}`, INFRA_FIRST_WAIT_MS);
    return 'next';
  }
  // Out of attempts (its workers gone, the job store unavailable…): never sent again blind — every
  // item is in doubt, as a retried attempt reports them. Trouble that lasts shows in the next calls.
  log.warn('a window gave up: its items are in doubt', { jobId: run.jobId, error: failureMessage(error) });
  return inDoubt(run, batch, deadline);
}
