// One run of a bulk job (bulk-listing.ts) as its steps share it: the job's settings read once from the
// input, the carried state (bulk-job.ts), and what this run alone knows (the window on the wire, report
// writes in flight). The steps here are the job's I/O as the workflow decides it — report parts, the
// shop's ring, the feed's chunks, verification rounds — and its messages.
import { CancellationScope, condition, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { JobMessage } from '../contract.ts';
import type {
  Allowance,
  BatchResult,
  BulkJobInput,
  BulkProgress,
  ItemResult,
  JobState,
  RateGroup,
  SlotBatch,
} from '../types.ts';
import type { JobRef, PartRef } from '../stores/job-store.ts';
import {
  acquire,
  allowanceOf,
  FIRST_USE_SPREAD_PATCH,
  groupOf,
  newRing,
  type AcquireRequest,
  type AcquireResult,
} from './pacing.ts';
import { IN_DOUBT } from './item-codes.ts';
import { jobMetrics, type PauseCause } from './job-metrics.ts';
import { infraRetries } from './infra-trouble.ts';
import { guardSignal, optionalObject } from './refuse.ts';
import { jobMessageChecks } from './job-messages.ts';
import {
  CARRY_VERSION,
  newCarry,
  progressOf,
  settled,
  verified,
  type BulkCarry,
  type BulkRules,
  type Effects,
  type Unknown,
} from './bulk-job.ts';
import {
  acquireSlots,
  appendReport,
  readFeedChunk,
  VERIFY_PER_ROUND,
  verifyBySku,
} from './bulk-activities.ts';
import {
  cancelSignal,
  cancelUpdate,
  jobDataQuery,
  pauseSignal,
  pauseUpdate,
  progressQuery,
  resumeSignal,
  resumeUpdate,
  shopsQuery,
} from './messages.ts';

/** The bulk job's workflow function, as the steps that continue it as new name it. */
export type BulkWorkflow = (input: BulkJobInput, carry?: BulkCarry) => Promise<BulkProgress>;

export interface BulkRun {
  input: BulkJobInput;
  s: BulkCarry;
  jobId: string;
  workflowId: string;
  /** The job as the store knows it (stable across continue-as-new and reset); a shop's names its parent. */
  jobKey: Omit<JobRef, 'storeId'>;
  group: RateGroup;
  allowance: Allowance;
  ringOptions: { maxSlots?: number; marginMs?: number };
  chunkSize: number;
  verifyDelays: number[];
  windowsPerRun: number;
  /** The pacing timer ends this long before the window's first slot opens. */
  lead: number;
  /** A shorter pacing wait is left to the activity. */
  minTimer: number;
  /** No turn of the loop waits less than this when nothing can be sent (never a hot loop). */
  minWait: number;
  slotSize: number;
  rules: BulkRules;
  /** A listing found under an item's SKU is the job's own only if created since the job started. */
  createdSince: number;
  metrics: ReturnType<typeof jobMetrics>;
  /** Infrastructure trouble: waited out with the job shown paused, the reason, and a capped backoff. */
  trouble: ReturnType<typeof infraRetries>;
  windows: number;
  acquires: number;
  /** The window on the wire, if any: in doubt if the job is cancelled through Temporal meanwhile. */
  sending?: SlotBatch[];
  /** The report part of the window on the wire (a retried attempt's part is the one kept). */
  batchPart?: number;
  /** Stops the window on the wire (set while one is). */
  stopSending?: () => void;
  /** Set once the job has ended, so a query after completion (replayed to the end) answers it. */
  ended?: JobState;
  /** Report writes running beside the loop, and the first that failed for good. */
  writes: Promise<void>[];
  writeError?: unknown;
}

/** The run's settings and state: the carried state, or the job's first. No command is issued here. */
export function openRun(input: BulkJobInput, carry: BulkCarry | undefined): BulkRun {
  const group = groupOf(input.operation);
  const allowance = allowanceOf(input);
  const W = allowance.windowMs;
  const ringOptions = { maxSlots: input.slotsPerWindow, marginMs: input.clockMarginMs };
  const minWait = Math.min(1_000, Math.max(1, W / 4));
  const verifyDelays = input.verifyDelaysMs ?? [1_000, 2_000, 4_000];
  // OAuth shops always go through the lane: it is where the app-wide share is applied.
  const shared = (input.shareShopAllowance ?? true) || (input.shop.auth === 'oauth' && !!input.appBudget);
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
  const maxTries = input.maxItemTries ?? 8;
  return {
    input,
    s,
    jobId,
    workflowId,
    jobKey,
    group,
    allowance,
    ringOptions,
    chunkSize: input.chunkSize ?? 200,
    verifyDelays,
    windowsPerRun: input.windowsPerRun ?? 150,
    lead: input.leadMs ?? Math.min(300, W / 4),
    minTimer: input.minTimerMs ?? 1_000,
    minWait,
    slotSize: newRing(allowance, ringOptions).slotSize,
    rules: { maxTries, minWaitMs: minWait, verifyDelaysMs: verifyDelays },
    createdSince: s.startedAt,
    metrics,
    trouble: infraRetries(() => metrics.paused('infra')),
    windows: 0,
    acquires: 0,
    writes: [],
  };
}

export const jobRef = (run: BulkRun): JobRef => ({ ...run.jobKey, storeId: run.s.snapshot!.storeId });

/** The snapshot is the job's own, not its parent's (which the other shops still read). */
export const ownSnapshot = ({ s, workflowId }: BulkRun) =>
  !!s.snapshot && s.snapshot.job.workflowId === workflowId;

/** A loop step's call no longer needed: the job was cancelled or has failed, or should continue as new first. */
export const stepGivenUp = (run: BulkRun) => () =>
  run.s.cancelled || run.ended !== undefined || workflowInfo().continueAsNewSuggested;

export const progress = (run: BulkRun, state: JobState): BulkProgress =>
  progressOf(run.s, {
    jobId: run.jobId,
    state,
    reason: run.s.pauseReason ?? run.trouble.trouble(),
    windowMs: run.allowance.windowMs,
  });

const current = (run: BulkRun) =>
  progress(
    run,
    run.ended ??
      (run.s.cancelled ? 'cancelling' : run.s.paused || run.trouble.trouble() ? 'paused' : 'running'),
  );

export function pause(run: BulkRun, reason = 'paused by request', cause: PauseCause = 'request'): void {
  if (!run.s.paused) run.metrics.paused(cause);
  run.s.paused = true;
  run.s.pauseReason = reason;
}

function resume({ s, trouble }: BulkRun): void {
  s.paused = false;
  s.pauseReason = undefined;
  s.answers = [];
  s.unreachable = 0;
  trouble.wake();
}

function cancel(run: BulkRun): void {
  run.s.cancelled = true;
  run.stopSending?.();
  run.trouble.wake(); // calls waiting out trouble are given up (loop steps) or tried again (the wrap-up's)
}

/** The job's queries, signals and updates; messages name the job's shop (a many-shop job's shop: its own). */
export function handleMessages(run: BulkRun): void {
  const { input, s, jobId } = run;
  setHandler(progressQuery, () => current(run));
  setHandler(jobDataQuery, () => ({
    progress: current(run),
    job: s.snapshot ? jobRef(run) : undefined,
    accepted: s.accepted,
    upToSeq: s.seq,
    ownSnapshot: ownSnapshot(run),
  }));
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
      obeyed('pauseSignal', (arg) => pause(run, arg?.reason)),
      optionalObject,
    ),
  );
  // Any argument (0.4 senders sent none; jobMessageProblem refuses a non-object as naming no shop).
  setHandler(
    resumeSignal,
    guardSignal(
      'resumeSignal',
      obeyed('resumeSignal', () => resume(run)),
    ),
  );
  setHandler(
    cancelSignal,
    guardSignal(
      'cancelSignal',
      obeyed('cancelSignal', () => cancel(run)),
    ),
  );
  setHandler(pauseUpdate, (arg) => (pause(run, arg?.reason), current(run)), messages.update);
  setHandler(resumeUpdate, () => (resume(run), current(run)), messages.update);
  // Answered once nothing more leaves: the window on the wire has stopped.
  setHandler(
    cancelUpdate,
    async () => {
      cancel(run);
      await condition(() => run.sending === undefined);
      return current(run);
    },
    messages.update,
  );
}

/** The next report part: numbered in the order the workflow decides them (the later one wins a line). */
export const part = (run: BulkRun, kind: string): PartRef => ({ job: jobRef(run), seq: ++run.s.seq, kind });

/** A retried activity's part is the one that counts. */
export function accept(run: BulkRun, at: PartRef, attempt: number | undefined): void {
  if (attempt !== undefined && attempt > 1) run.s.accepted[at.seq] = attempt;
}

/**
 * Report lines, written beside the loop, waiting out infrastructure trouble; a write that fails for good
 * (non-retryable) fails the job at the next checkpoint (never an unhandled rejection that would retry
 * the workflow task forever).
 */
export function report(run: BulkRun, results: ItemResult[]): void {
  if (results.length === 0) return;
  // Shielded: a job cancelled through Temporal still writes every line it decided.
  const at = part(run, 'wf');
  run.writes.push(
    CancellationScope.nonCancellable(() =>
      run.trouble.infra('writing the report', () => appendReport(at, results)),
    ).then(
      (r) => accept(run, at, r.attempt),
      (e) => void (run.writeError ??= e),
    ),
  );
}

/** What a transition of bulk-job.ts asks for: its pauses, then its report lines, in its order. */
export function applyEffects(run: BulkRun, e: Effects): void {
  for (const p of e.pauses) pause(run, p.reason, p.cause);
  for (const lines of e.reports) report(run, lines);
}

/** Waits for the report writes in flight; one that failed for good fails the job here. */
export async function flush(run: BulkRun): Promise<void> {
  await Promise.all(run.writes.splice(0));
  if (run.writeError) throw run.writeError;
}

/**
 * The shop's ring: the lane (shared by the shop's jobs) or the job's own. Undefined when the lane did
 * not answer and the job no longer waits for it (cancelled, or due to continue as new).
 */
export async function slots(
  run: BulkRun,
  req: Omit<AcquireRequest, 'updateId'>,
): Promise<AcquireResult | undefined> {
  const { s, input } = run;
  // A job's own ring spreads its first window as a lane does (runs before 0.5 replay without).
  if (s.ring) return acquire(s.ring, req, Date.now(), input.clockMarginMs, patched(FIRST_USE_SPREAD_PATCH));
  const info = workflowInfo();
  // Deterministic, and the same for every try: a repeated update is answered once by the lane.
  const request = {
    ...req,
    usedBefore: s.laneUsed,
    updateId: `${info.workflowId}/${info.runId}/${++run.acquires}`,
  };
  return run.trouble.infra(
    "asking the shop's lane for slots",
    () =>
      acquireSlots({
        shop: input.shop,
        group: run.group,
        lane: { allowance: run.allowance, ring: run.ringOptions },
        request,
        appBudget: input.shop.auth === 'oauth' ? input.appBudget : undefined,
      }),
    stepGivenUp(run),
  );
}

/** Hands back the slots this job holds, so other jobs of the shop may use them. */
export async function release(run: BulkRun): Promise<void> {
  const { s } = run;
  if (s.report.length === 0 && s.retryAfterMs === undefined) return;
  // Not answered: reported with the next request (a cancelled job's slots end with their lease).
  if (!(await slots(run, { jobId: run.jobId, want: 0, report: s.report, retryAfterMs: s.retryAfterMs })))
    return;
  s.report = [];
  s.retryAfterMs = undefined;
}

/** The feed's next chunk into the queue (bodies stay in the store; history holds lines and SKUs). */
export async function readNext(run: BulkRun): Promise<void> {
  const { s, input } = run;
  const at = part(run, 'feed');
  const chunk = await run.trouble.infra(
    'reading the feed',
    () => readFeedChunk(s.snapshot!, s.offset, run.chunkSize, input.operation, at),
    stepGivenUp(run),
  );
  if (!chunk) return; // read again by a later turn (or the next run)
  accept(run, at, chunk.attempt);
  s.offset = chunk.nextOffset;
  s.feedDone = chunk.done;
  s.counts.total = chunk.total;
  s.queue.push(...chunk.items);
  s.counts.failed += chunk.invalid;
  run.metrics.invalid(chunk.invalid);
}

/** Verify-then-retry, one round for the unknowns that are due: found → done; absent → created again. */
export async function verify(run: BulkRun, due: Unknown[]): Promise<void> {
  for (let i = 0; i < due.length; i += VERIFY_PER_ROUND)
    await verifyRound(run, due.slice(i, i + VERIFY_PER_ROUND));
}

async function verifyRound(run: BulkRun, due: Unknown[]): Promise<void> {
  const at = part(run, 'verify');
  const res = await run.trouble.infra(
    'verifying creates',
    () =>
      verifyBySku(
        run.input.shop,
        due.map((u) => ({ line: u.item.line, sku: u.item.sku! })),
        at,
        run.createdSince,
      ),
    stepGivenUp(run),
  );
  if (!res) return; // due again at the next turn (or in the next run)
  accept(run, at, res.attempt);
  applyEffects(run, verified(run.s, due, res, Date.now(), run.rules));
}

/** Counts a window's outcomes (bulk-job.ts `settled`); its report lines and pauses applied here. */
export function settle(run: BulkRun, result: BatchResult, batch: SlotBatch[]): void {
  applyEffects(run, settled(run.s, result, batch, run.batchPart!, Date.now(), run.rules));
}

/**
 * A window whose activity gave up, as a retried attempt would report it (batch.ts): every item in doubt
 * (a create verified by SKU, anything else sent again), its slots used until the deadline.
 */
export const inDoubt = (run: BulkRun, batch: SlotBatch[], deadline: number): BatchResult => ({
  ok: [],
  outcomes: batch
    .flatMap((b) => b.items)
    .map((i) =>
      run.input.operation === 'create'
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
