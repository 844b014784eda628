// A bulk job for one shop: snapshot the feed, read it in chunks, send each window's items in one
// activity, paced by the shop's ring (pacing.ts) — the workflow sleeps on ONE timer per window until the
// window's first slot opens. 429s slow the whole shop down; creates in doubt (504, resets, crashes) are
// verified by GET (SKU) on timers before any re-create; every item has a bounded number of tries.
// Decisions and timers live here; all I/O is in activities. History holds lines, SKUs and counts —
// item bodies and report lines stay in the job store every worker opens (stores/job-store.ts): the
// snapshot and the report's parts, numbered here (`seq`) and keyed by the job's workflow id and first
// run id. Before the job says `finished`, the store must hold one line per settled item.
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  condition,
  isCancellation,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
  allHandlersFinished,
  patched,
} from '@temporalio/workflow';
import { INVALID_ID, JOB_ID_RULE_PATCH, jobIdsProblem, type JobMessage } from '../contract.ts';
import type { createActivities } from '../activities/index.ts';
import type {
  BatchResult,
  BulkJobInput,
  BulkProgress,
  FeedItem,
  ItemResult,
  JobState,
  SlotBatch,
} from '../types.ts';
import {
  acquire,
  DEFAULT_ALLOWANCES,
  groupOf,
  newRing,
  type AcquireRequest,
  type AcquireResult,
} from './pacing.ts';
import { ABORTED, IN_DOUBT } from './item-codes.ts';
import { jobMetrics, type PauseCause } from './job-metrics.ts';
import { fitsOnePayload, jsonBytes, mayRead } from './carry-bytes.ts';
import {
  infraRetries,
  isInfraTrouble,
  failureMessage,
  notShared,
  INFRA_FIRST_WAIT_MS,
  INFRA_MAX_WAIT_MS,
} from './infra-trouble.ts';
import { JOB_STORE_NOT_SHARED, type JobRef, type PartRef } from '../stores/job-store.ts';
import { guardSignal, INPUT_REFUSED, optionalObject, refuseInput } from './refuse.ts';
import { jobMessageChecks } from './job-messages.ts';
import {
  CARRY_VERSION,
  drained,
  fillWindow,
  handBack,
  newCarry,
  pendingOf,
  progressOf,
  releaseDue,
  settled,
  verified,
  type BulkCarry,
  type BulkRules,
  type Effects,
  type Unknown,
} from './bulk-job.ts';
import {
  cancelSignal,
  cancelUpdate,
  jobDataQuery,
  pauseSignal,
  pauseUpdate,
  progressQuery,
  resumeSignal,
  resumeUpdate,
  shopDoneSignal,
  shopsQuery,
} from './messages.ts';

/** The report merged at the end holds fewer lines than the items the job settled (retried). */
export const REPORT_INCOMPLETE = 'ReportIncomplete';

type Activities = ReturnType<typeof createActivities>;
/**
 * Activities retry briefly on their own (a blip of a few seconds never shows); longer trouble reaches the
 * workflow, which pauses the job with the reason and tries again on a capped backoff, as long as it takes
 * (`infra`, infra-trouble.ts). Non-retryable types are the only failures that fail a job.
 */
const retry = { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 4 } as const;
/** Long, heartbeating reads of the whole feed: the snapshot, the lines left unread by a cancel. */
const { snapshotFeed, reportUnread } = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { ...retry, nonRetryableErrorTypes: ['FeedUnreadable', JOB_STORE_NOT_SHARED] },
});
/** Short file work: never heartbeats, so no heartbeat timeout. */
const { readFeedChunk, appendReport, finalizeReport } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { ...retry, nonRetryableErrorTypes: ['FeedUnreadable', JOB_STORE_NOT_SHARED] },
});
/**
 * A window on the wire: heartbeats every second; a dead worker is noticed within 10 s. A cancel stops it
 * at once and waits for its answer: what was answered counts, what never left is not sent. Attempts after
 * the first send nothing (they only report): a few, then the window's items are in doubt.
 */
const { sendBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: {
    ...retry,
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['FeedUnreadable', 'UnknownCredential', JOB_STORE_NOT_SHARED],
  },
});
const { verifyBySku } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { ...retry, nonRetryableErrorTypes: ['UnknownCredential', JOB_STORE_NOT_SHARED] },
});
const { acquireSlots } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200ms', maximumInterval: '5s', maximumAttempts: 8 },
});

/**
 * SKUs checked per verification round. Verification GETs are not paced by the lane: they live in the
 * general group's reserve (DEFAULT_ALLOWANCES keeps 5 % of it back), so a round stays small; the rest
 * waits for the next turn, and a 429 ends a round early without failing anything.
 */
const VERIFY_PER_ROUND = 50;

// eslint-disable-next-line max-lines-per-function, complexity -- over the house's limit: to be split (issue 25)
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
  const group = groupOf(input.operation);
  const allowance = input.allowance ?? DEFAULT_ALLOWANCES[group];
  const W = allowance.windowMs;
  const ringOptions = { maxSlots: input.slotsPerWindow, marginMs: input.clockMarginMs };
  const chunkSize = input.chunkSize ?? 200;
  const verifyDelays = input.verifyDelaysMs ?? [1_000, 2_000, 4_000];
  const windowsPerRun = input.windowsPerRun ?? 150;
  const maxTries = input.maxItemTries ?? 8;
  const lead = input.leadMs ?? Math.min(300, W / 4);
  const minTimer = input.minTimerMs ?? 1_000;
  /** No turn of the loop waits less than this when nothing can be sent (never a hot loop). */
  const minWait = Math.min(1_000, Math.max(1, W / 4));
  // OAuth shops always go through the lane: it is where the app-wide share is applied.
  const shared = (input.shareShopAllowance ?? true) || (input.shop.auth === 'oauth' && !!input.appBudget);
  const slotSize = newRing(allowance, ringOptions).slotSize;
  if (carry && carry.v !== CARRY_VERSION)
    // A workflow task failure, not the job's: the run waits for a worker of the release that started it.
    throw new Error(
      `this job's state is of another release (carry schema ${carry.v ?? 3}, this worker reads ${CARRY_VERSION}): drain bulk jobs before upgrading, or run a worker of the job's release until it ends`,
    );
  const s: BulkCarry =
    carry ??
    newCarry({
      allowance,
      ring: shared ? undefined : newRing(allowance, ringOptions),
      // The first run's start: `startTime` is each run's own.
      startedAt: workflowInfo().startTime.getTime(),
    });
  s.runs++;
  const metrics = jobMetrics(input.operation, s.counts);
  const jobId = input.jobId ?? workflowInfo().workflowId;
  const { workflowId, firstExecutionRunId: firstRunId } = workflowInfo();
  /** The job as the store knows it (stable across continue-as-new and reset); a shop's names its parent. */
  const jobKey: Omit<JobRef, 'storeId'> = {
    workflowId,
    firstRunId,
    jobId,
    // Its shop, on its record: a reader of its report names it (activities/job-report.ts). Not a command.
    shopId: input.shop.shopId,
    ...(input.parentJobId ? { parentJobId: input.parentJobId } : {}),
    // Claimed by the snapshot (activities/snapshot.ts): a copy of a signed start runs no second time.
    ...(input.startId ? { startId: input.startId } : {}),
  };
  const jobRef = (): JobRef => ({ ...jobKey, storeId: s.snapshot!.storeId });
  /** The snapshot is the job's own, not its parent's (which the other shops still read). */
  const ownSnapshot = () => !!s.snapshot && s.snapshot.job.workflowId === workflowId;
  let windows = 0;
  let acquires = 0;
  /** The window on the wire, if any: in doubt if the job is cancelled through Temporal meanwhile. */
  let sending: SlotBatch[] | undefined;
  /** The report part of the window on the wire (a retried attempt's part is the one kept). */
  let batchPart: number | undefined;

  /** Infrastructure trouble: waited out with the job shown paused, the reason, and a capped backoff. */
  const { infra, wait: waitOut, trouble, wake } = infraRetries(() => metrics.paused('infra'));
  /** A loop step's call no longer needed: the job was cancelled or has failed, or should continue as new first. */
  const stepGivenUp = () => s.cancelled || ended !== undefined || workflowInfo().continueAsNewSuggested;
  /** A listing found under an item's SKU is the job's own only if created since the job started. */
  const createdSince = s.startedAt;
  const rules: BulkRules = { maxTries, minWaitMs: minWait, verifyDelaysMs: verifyDelays };

  const pending = () => pendingOf(s);
  const progress = (state: JobState): BulkProgress =>
    progressOf(s, { jobId, state, reason: s.pauseReason ?? trouble(), windowMs: W });
  // Set once the job has ended, so a query after completion (replayed to the end) answers it.
  let ended: JobState | undefined;
  const current = () =>
    progress(ended ?? (s.cancelled ? 'cancelling' : s.paused || trouble() ? 'paused' : 'running'));
  const pause = (reason = 'paused by request', cause: PauseCause = 'request') => {
    if (!s.paused) metrics.paused(cause);
    s.paused = true;
    s.pauseReason = reason;
  };
  const resume = () => {
    s.paused = false;
    s.pauseReason = undefined;
    s.answers = [];
    s.unreachable = 0;
    wake();
  };
  /** Stops the window on the wire (set while one is). */
  let stopSending: (() => void) | undefined;
  const cancel = () => {
    s.cancelled = true;
    stopSending?.();
    wake(); // calls waiting out trouble are given up (loop steps) or tried again (the wrap-up's)
  };
  setHandler(progressQuery, current);
  setHandler(jobDataQuery, () => ({
    progress: current(),
    job: s.snapshot ? jobRef() : undefined,
    accepted: s.accepted,
    upToSeq: s.seq,
    ownSnapshot: ownSnapshot(),
  }));
  // Messages name the job's shop (a many-shop job's shop: its own, as its parent names it).
  const messages = jobMessageChecks(jobId, [input.shop.shopId]);
  const obeyed =
    (name: string, apply: (arg?: JobMessage) => void) =>
    (arg?: JobMessage): void => {
      if (!messages.signalRefused(name, arg)) apply(arg);
    };
  setHandler(shopsQuery, () => [input.shop.shopId]);
  setHandler(
    pauseSignal,
    guardSignal(
      'pauseSignal',
      obeyed('pauseSignal', (arg) => pause(arg?.reason)),
      optionalObject,
    ),
  );
  // Any argument (0.4 senders sent none; jobMessageProblem refuses a non-object as naming no shop).
  setHandler(resumeSignal, guardSignal('resumeSignal', obeyed('resumeSignal', resume)));
  setHandler(cancelSignal, guardSignal('cancelSignal', obeyed('cancelSignal', cancel)));
  setHandler(pauseUpdate, (arg) => (pause(arg?.reason), current()), messages.update);
  setHandler(resumeUpdate, () => (resume(), current()), messages.update);
  // Answered once nothing more leaves: the window on the wire has stopped.
  setHandler(
    cancelUpdate,
    async () => {
      cancel();
      await condition(() => sending === undefined);
      return current();
    },
    messages.update,
  );

  /** The next report part: numbered in the order the workflow decides them (the later one wins a line). */
  const part = (kind: string): PartRef => ({ job: jobRef(), seq: ++s.seq, kind });
  /** A retried activity's part is the one that counts. */
  const accept = (at: PartRef, attempt: number | undefined) => {
    if (attempt !== undefined && attempt > 1) s.accepted[at.seq] = attempt;
  };
  // Report writes run beside the loop, waiting out infrastructure trouble; a write that fails for good
  // (non-retryable) fails the job at the next checkpoint (never an unhandled rejection that would retry
  // the workflow task forever).
  const writes: Promise<void>[] = [];
  let writeError: unknown;
  const report = (results: ItemResult[]) => {
    if (results.length === 0) return;
    // Shielded: a job cancelled through Temporal still writes every line it decided.
    const at = part('wf');
    writes.push(
      CancellationScope.nonCancellable(() =>
        infra('writing the report', () => appendReport(at, results)),
      ).then(
        (r) => accept(at, r.attempt),
        (e) => void (writeError ??= e),
      ),
    );
  };
  /** What a transition of bulk-job.ts asks for: its pauses, then its report lines, in its order. */
  const applyEffects = (e: Effects) => {
    for (const p of e.pauses) pause(p.reason, p.cause);
    for (const lines of e.reports) report(lines);
  };
  const flush = async () => {
    await Promise.all(writes.splice(0));
    if (writeError) throw writeError;
  };

  /**
   * The shop's ring: the lane (shared by the shop's jobs) or the job's own. Undefined when the lane did
   * not answer and the job no longer waits for it (cancelled, or due to continue as new).
   */
  const slots = async (req: Omit<AcquireRequest, 'updateId'>): Promise<AcquireResult | undefined> => {
    if (s.ring) return acquire(s.ring, req, Date.now(), input.clockMarginMs);
    const info = workflowInfo();
    // Deterministic, and the same for every try: a repeated update is answered once by the lane.
    const request = {
      ...req,
      usedBefore: s.laneUsed,
      updateId: `${info.workflowId}/${info.runId}/${++acquires}`,
    };
    return infra(
      "asking the shop's lane for slots",
      () =>
        acquireSlots({
          shop: input.shop,
          group,
          lane: { allowance, ring: ringOptions },
          request,
          appBudget: input.shop.auth === 'oauth' ? input.appBudget : undefined,
        }),
      stepGivenUp,
    );
  };
  /** Hands back the slots this job holds, so other jobs of the shop may use them. */
  const release = async () => {
    if (s.report.length === 0 && s.retryAfterMs === undefined) return;
    // Not answered: reported with the next request (a cancelled job's slots end with their lease).
    if (!(await slots({ jobId, want: 0, report: s.report, retryAfterMs: s.retryAfterMs }))) return;
    s.report = [];
    s.retryAfterMs = undefined;
  };

  const readNext = async () => {
    const at = part('feed');
    const chunk = await infra(
      'reading the feed',
      () => readFeedChunk(s.snapshot!, s.offset, chunkSize, input.operation, at),
      stepGivenUp,
    );
    if (!chunk) return; // read again by a later turn (or the next run)
    accept(at, chunk.attempt);
    s.offset = chunk.nextOffset;
    s.feedDone = chunk.done;
    s.counts.total = chunk.total;
    s.queue.push(...chunk.items);
    s.counts.failed += chunk.invalid;
    metrics.invalid(chunk.invalid);
  };

  /** Verify-then-retry, one round for the unknowns that are due: found → done; absent → created again. */
  const verify = async (due: Unknown[]) => {
    for (let i = 0; i < due.length; i += VERIFY_PER_ROUND)
      await verifyRound(due.slice(i, i + VERIFY_PER_ROUND));
  };
  const verifyRound = async (due: Unknown[]) => {
    const at = part('verify');
    const res = await infra(
      'verifying creates',
      () =>
        verifyBySku(
          input.shop,
          due.map((u) => ({ line: u.item.line, sku: u.item.sku! })),
          at,
          createdSince,
        ),
      stepGivenUp,
    );
    if (!res) return; // due again at the next turn (or in the next run)
    accept(at, res.attempt);
    applyEffects(verified(s, due, res, Date.now(), rules));
  };

  /** Counts a window's outcomes (bulk-job.ts `settled`); its report lines and pauses applied here. */
  const settle = (result: BatchResult, batch: SlotBatch[]) =>
    applyEffects(settled(s, result, batch, batchPart!, Date.now(), rules));

  /**
   * A window whose activity gave up, as a retried attempt would report it (batch.ts): every item in doubt
   * (a create verified by SKU, anything else sent again), its slots used until the deadline.
   */
  const inDoubt = (batch: SlotBatch[], deadline: number): BatchResult => ({
    ok: [],
    outcomes: batch
      .flatMap((b) => b.items)
      .map((i) =>
        input.operation === 'create'
          ? { line: i.line, status: 'unknown' as const }
          : {
              line: i.line,
              status: 'retry' as const,
              reason: 'in doubt: its window gave up',
              sent: true,
              code: IN_DOUBT,
            },
      ),
    slots: batch.map((b) => ({ slot: b.slot, lastAt: Math.max(Date.now(), deadline) })),
    attempt: 1,
  });

  /** Cancelled: nothing more is sent; every line not yet answered gets its line in the report. */
  const wrapUpCancelled = async () => {
    // Creates that were on the wire or in doubt: verified through the read-after-create delay (the usual
    // rounds); found → ok, absent in every round → never applied, so cancelled; lookups that kept failing
    // → unknown.
    const inDoubt = [...s.unknown.map((u) => u.item), ...(sending ?? []).flatMap((b) => b.items)];
    sending = undefined;
    s.unknown = [];
    let open = input.operation === 'create' ? inDoubt.filter((i) => i.sku) : [];
    /** Whether each item's last lookup was answered (absent) rather than failed. */
    const answered = new Map<number, boolean>();
    for (const delay of verifyDelays) {
      if (open.length === 0) break;
      await sleep(delay);
      const still: FeedItem[] = [];
      for (let i = 0; i < open.length; i += VERIFY_PER_ROUND) {
        const round = open.slice(i, i + VERIFY_PER_ROUND);
        const at = part('verify');
        const res = await verifyBySku(
          input.shop,
          round.map((c) => ({ line: c.line, sku: c.sku! })),
          at,
          createdSince,
        ).catch(() => ({
          found: [] as number[],
          taken: [] as number[],
          checked: [] as number[],
          attempt: 1,
        }));
        // A retried round's part is the one that counts (as in verifyRound).
        accept(at, res.attempt);
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
    const absent = open.filter((i) => answered.get(i.line));
    const unchecked = [
      ...inDoubt.filter((i) => input.operation !== 'create' || !i.sku),
      ...open.filter((i) => !answered.get(i.line)),
    ];
    /** Ends items as cancelled or unknown: both are counted as cancelled (never sent, or not known to be). */
    const end = (items: FeedItem[], status: 'cancelled' | 'unknown', message: string) => {
      s.counts.cancelled += items.length;
      report(items.map((i) => ({ line: i.line, sku: i.sku, status, message })));
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
    // Lines never read: reported by one activity on the worker (bodies never enter history).
    if (!s.feedDone && s.snapshot) {
      const at = part('unread');
      const snap = s.snapshot;
      const rest = await infra('reporting the unread lines', () =>
        reportUnread(snap, s.offset, input.operation, at),
      );
      accept(at, rest.attempt);
      s.counts.cancelled += rest.cancelled;
      s.counts.failed += rest.invalid;
      metrics.invalid(rest.invalid);
      s.offset = s.counts.total;
      s.feedDone = true;
    }
  };

  /**
   * The report is complete: the store's merged report holds one line per settled item (`total − pending`,
   * the counts this workflow settled), or a retryable ReportIncomplete naming both numbers. The job's own
   * snapshot goes with the first merge: the report no longer needs it.
   */
  const assertReportComplete = async (state: 'finished' | 'cancelled') => {
    const settled = s.counts.total - pending();
    const { lines } = await finalizeReport(
      jobRef(),
      { accepted: s.accepted, upToSeq: s.seq, state },
      ownSnapshot(),
    );
    if (lines !== settled)
      throw ApplicationFailure.retryable(
        `the job's report holds ${lines} lines but ${settled} items were settled: merging again (is every worker on the same job store?)`,
        REPORT_INCOMPLETE,
      );
  };
  /** Merges until the report is complete, the job shown paused with the reason meanwhile (infra-trouble.ts). */
  const finalizeComplete = (state: 'finished' | 'cancelled') =>
    infra('merging the report', () => assertReportComplete(state));

  /**
   * Trouble that reached the job's catch: the job shows paused with the reason and waits (a resume or
   * cancel request ends the wait), then goes on in a new run with the same carry. Answers true when the
   * job was cancelled through Temporal meanwhile (the caller cleans up).
   */
  const goOnAfter = async (error: unknown): Promise<boolean> => {
    try {
      if (sending) settle(inDoubt(sending, Date.now()), sending);
      sending = undefined;
      await waitOut(
        `the job stopped on: ${failureMessage(error)} (going on by itself within ${INFRA_MAX_WAIT_MS / 60_000} min, or at once on resume)`,
        INFRA_MAX_WAIT_MS,
        () => s.cancelled,
      );
      await flush();
      await condition(allHandlersFinished);
    } catch (e) {
      if (isCancellation(e)) return true;
      throw e;
    }
    log.warn('going on after trouble, in a new run', { jobId, error: failureMessage(error) });
    return await continueAsNew<typeof bulkListingWorkflow>(input, s);
  };

  const finish = async (state: JobState) => {
    metrics.settled(s.counts);
    await flush();
    if (s.snapshot) await finalizeComplete(state === 'cancelled' ? 'cancelled' : 'finished');
    ended = state;
    const final = progress(state);
    await tellParent(input, final);
    return final;
  };

  try {
    const snapshot = (s.snapshot ??= input.snapshot ?? (await snapshotFeed(input.feed, jobKey)));
    s.counts.total = snapshot.total;
    for (;;) {
      metrics.settled(s.counts);
      if (s.cancelled) break;
      // Checked first, so turns that send nothing (waiting, verifying) count too.
      if (windows >= windowsPerRun || workflowInfo().continueAsNewSuggested) {
        await flush();
        await condition(allHandlersFinished);
        if (s.cancelled) break;
        // Bounded in bytes (carry-bytes.ts: reading stops well before); should it not fit, this run goes
        // on draining its backlog rather than be terminated by an oversized ContinueAsNew.
        if (fitsOnePayload(s)) {
          log.info('continuing as new', { jobId, runs: s.runs, windows });
          return await continueAsNew<typeof bulkListingWorkflow>(input, s);
        }
        log.warn('the carry is too large to continue as new: draining first', { jobId, bytes: jsonBytes(s) });
      }
      if (s.paused) {
        await release();
        await condition(() => !s.paused || s.cancelled);
        continue;
      }
      const now = Date.now();
      releaseDue(s, now);
      if (drained(s)) break;
      const due = s.unknown.filter((u) => u.dueAt <= now);
      // Items in doubt or backing off hold the reading back: what a job carries stays about a window's
      // worth, and light enough in bytes to continue as new (carry-bytes.ts).
      const backlog = s.unknown.length + s.later.length;
      const needItems = !s.feedDone && s.queue.length + backlog < Math.max(s.rate, 1) && mayRead(s);
      if (s.queue.length === 0) {
        if (needItems || due.length) {
          windows++;
          await Promise.all([needItems ? readNext() : undefined, due.length ? verify(due) : undefined]);
          continue;
        }
        // Nothing to send yet: sleep until an unknown is due or an item's backoff ends.
        const next = Math.min(...s.unknown.map((u) => u.dueAt), ...s.later.map((i) => i.notBefore!));
        await release();
        metrics.waiting(Math.max(minWait, next - now));
        await condition(() => s.cancelled || s.paused, Math.max(minWait, next - now));
        continue;
      }
      // Ask for the next window's slots while the next chunk is read and due unknowns are checked.
      const expected = s.queue.length + (needItems ? chunkSize : 0);
      const [grant] = await Promise.all([
        slots({
          jobId,
          // Never 0 while there is work: a share below one slot is granted as a smaller slot.
          want: Math.max(1, Math.ceil(Math.min(expected, s.rate) / slotSize)),
          allowance,
          report: s.report,
          retryAfterMs: s.retryAfterMs,
        }),
        needItems ? readNext() : undefined,
        due.length ? verify(due) : undefined,
      ]);
      if (!grant) continue; // the lane did not answer and the job is cancelled or due to continue as new
      windows++;
      s.report = [];
      s.retryAfterMs = undefined;
      s.rate = grant.rate;
      if (grant.slots.length) s.laneUsed = true;
      if (grant.slots.length === 0 || s.queue.length === 0 || s.cancelled || s.paused) {
        // Hand back what cannot be used; wait for capacity (or a pause / cancel).
        s.report = grant.slots.map((g) => ({ slot: g.slot, lastAt: null }));
        if (grant.slots.length === 0) {
          metrics.waiting(Math.max(grant.waitMs, minWait));
          await condition(() => s.cancelled || s.paused, Math.max(grant.waitMs, minWait));
        }
        continue;
      }
      const batch = fillWindow(s, grant);
      // The pacing timer: one per window, until shortly before the window's first slot opens.
      const wait = Math.min(...batch.map((b) => b.notBefore)) - lead - Date.now();
      // Sub-second timers fire up to ~0.5 s late on the dev server (measured; ≥ 1 s ones are on time), so
      // a shorter wait is left to the activity, which waits for each slot's notBefore anyway.
      if (wait >= minTimer) {
        metrics.waiting(wait);
        await condition(() => s.cancelled || s.paused, wait);
      }
      if (s.cancelled || s.paused) {
        // Cancelled or paused during the pacing wait: nothing of this window leaves; its slots go back.
        handBack(s, batch);
        if (s.cancelled) break;
        continue;
      }
      sending = batch;
      const at = part('send');
      batchPart = at.seq;
      const wire = new CancellationScope();
      stopSending = () => wire.cancel();
      let result: BatchResult;
      try {
        result = await wire.run(() =>
          sendBatch(
            input.shop,
            input.operation,
            snapshot,
            { deadline: grant.deadline, slots: batch, createdSince },
            at,
          ),
        );
      } catch (error) {
        // Cancelled while the window was not running (queued, between attempts, its worker gone): its
        // items stay in doubt (`sending`) for the wrap-up. A non-retryable failure is the job's.
        if (s.cancelled) break;
        if (!isInfraTrouble(error)) throw error;
        if (notShared(error)) {
          // Refused before anything left (the worker's store is another): nothing is in doubt. The items go
          // back, the slots are handed back unused, and the job shows the reason while it waits.
          sending = undefined;
          handBack(s, batch);
          await waitOut(`sending a window failed: ${failureMessage(error)}`, INFRA_FIRST_WAIT_MS);
          continue;
        }
        // Out of attempts (its workers gone, the job store unavailable…): never sent again blind — every
        // item is in doubt, as a retried attempt reports them. Trouble that lasts shows in the next calls.
        log.warn('a window gave up: its items are in doubt', { jobId, error: failureMessage(error) });
        result = inDoubt(batch, grant.deadline);
      } finally {
        stopSending = undefined;
      }
      sending = undefined;
      s.report.push(...result.slots);
      settle(result, batch);
    }
    await release();
    if (s.cancelled) await wrapUpCancelled();
    return await finish(s.cancelled ? 'cancelled' : 'finished');
  } catch (error) {
    if (error instanceof ContinueAsNew) throw error;
    // Infrastructure trouble that got this far (a call `infra` does not wrap): never the job's failure.
    const cancelledWhileWaiting =
      !s.cancelled && ended === undefined && isInfraTrouble(error) && (await goOnAfter(error));
    if ((isCancellation(error) || cancelledWhileWaiting) && CancellationScope.current().consideredCancelled) {
      // Cancelled through Temporal (the UI's button, `temporal workflow cancel`): the same clean-up
      // as a cancel request, shielded from the cancellation itself; the parent is told.
      await CancellationScope.nonCancellable(async () => {
        s.cancelled = true;
        await release().catch(() => undefined);
        await wrapUpCancelled().catch(() => undefined);
        await finish('cancelled').catch(() => undefined);
      });
      throw error;
    }
    // A job that cannot go on (an unreadable feed, an unknown credential: non-retryable) fails visibly,
    // with the reason; its parent (many-shop job) hears of it.
    const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
    s.pauseReason = cause instanceof Error ? cause.message : String(cause);
    ended = 'failed';
    await release().catch(() => undefined);
    // Every item the job held gets its line: in doubt → unknown, not yet sent → failed. (Lines never
    // read stay without one: the report of a failed job ends where its reading did.)
    const message = `the job failed before this item was settled: ${s.pauseReason}`.slice(0, 300);
    const doubt = [...s.unknown.map((u) => u.item), ...(sending ?? []).flatMap((b) => b.items)];
    const held = [...s.queue, ...s.later];
    s.counts.failed += doubt.length + held.length;
    metrics.settled(s.counts);
    report([
      ...doubt.map((i) => ({
        line: i.line,
        sku: i.sku,
        status: 'unknown' as const,
        code: 'job_failed',
        message,
      })),
      ...held.map((i) => ({
        line: i.line,
        sku: i.sku,
        status: 'failed' as const,
        code: 'job_failed',
        message,
      })),
    ]);
    await Promise.all(writes.splice(0));
    // Its report ends where the job did; its own snapshot is dropped (N10: never left behind).
    if (s.snapshot)
      await finalizeReport(
        jobRef(),
        { accepted: s.accepted, upToSeq: s.seq, state: 'failed' },
        ownSnapshot(),
      ).catch(() => undefined);
    await tellParent(input, progress('failed'));
    throw ApplicationFailure.nonRetryable(
      s.pauseReason,
      cause instanceof ApplicationFailure && cause.type ? cause.type : 'JobFailed',
    );
  }
}

/** A many-shop child tells its parent; a parent that has closed meanwhile changes nothing for the child. */
async function tellParent(input: BulkJobInput, progress: BulkProgress) {
  const parent = workflowInfo().parent;
  if (!parent) return;
  await getExternalWorkflowHandle(parent.workflowId)
    .signal(shopDoneSignal, { shopId: input.shop.shopId, progress })
    .catch((e) => log.warn('the many-shop parent could not be told', { error: String(e) }));
}
