// A bulk job for one shop: read the feed in chunks, send each window's items in one activity, paced by
// the shop's ring (pacing.ts) — the workflow sleeps on ONE timer per window until the window's first
// slot opens. 429s slow the whole shop down; unknown outcomes of creates (504, timeouts) are verified by
// GET (SKU) across timers before any re-create. Decisions and timers live here; all I/O is in activities.
import {
  ActivityFailure,
  ApplicationFailure,
  ContinueAsNew,
  condition,
  isCancellation,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
  allHandlersFinished,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.ts';
import type {
  BatchResult,
  BulkJobInput,
  BulkProgress,
  FeedItem,
  ItemResult,
  JobState,
  SendOutcome,
  SlotBatch,
} from '../types.ts';
import {
  acquire,
  DEFAULT_ALLOWANCES,
  groupOf,
  newRing,
  type AcquireRequest,
  type AcquireResult,
  type Ring,
  type SlotReport,
} from './pacing.ts';

export const progressQuery = defineQuery<BulkProgress>('progress');
export const pauseSignal = defineSignal<[{ reason?: string }]>('pause');
export const resumeSignal = defineSignal('resume');
export const cancelSignal = defineSignal('cancel');
/** The same as updates: they answer with the job's progress once applied. */
export const pauseUpdate = defineUpdate<BulkProgress, [{ reason?: string }]>('pauseJob');
export const resumeUpdate = defineUpdate<BulkProgress>('resumeJob');
export const cancelUpdate = defineUpdate<BulkProgress>('cancelJob');
/** A shop's job tells its many-shop parent it has finished (by workflow id: reaches the newest run). */
export const shopDoneSignal = defineSignal<[{ shopId: string; progress: BulkProgress }]>('shopDone');

const { readFeedChunk, sendBatch, verifyBySku, appendReport } = proxyActivities<
  ReturnType<typeof createActivities>
>({
  startToCloseTimeout: '5 minutes',
  // A worker that dies mid-batch is noticed within seconds; the next attempt resumes from the heartbeat.
  heartbeatTimeout: '5 seconds',
  retry: {
    initialInterval: '1s',
    maximumInterval: '30s',
    maximumAttempts: 10,
    nonRetryableErrorTypes: ['FeedUnreadable', 'UnknownCredential'],
  },
});
const { acquireSlots } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200ms', maximumInterval: '5s', maximumAttempts: 20 },
});

/** Carried across continue-as-new. */
export interface BulkCarry {
  offset: number;
  feedDone: boolean;
  queue: FeedItem[];
  unknown: { item: FeedItem; rounds: number }[];
  counts: { total: number; done: number; failed: number; rateLimited: number; verified: number };
  /** The job's own ring when it does not share the shop's lane. */
  ring?: Ring;
  /** Slots granted last and how they were used: reported with the next request for slots. */
  report: SlotReport[];
  retryAfterMs?: number;
  rate: number;
  runs: number;
  paused: boolean;
  pauseReason?: string;
}

export async function bulkListingWorkflow(input: BulkJobInput, carry?: BulkCarry): Promise<BulkProgress> {
  const group = groupOf(input.operation);
  const allowance = input.allowance ?? DEFAULT_ALLOWANCES[group];
  const ringOptions = { maxSlots: input.slotsPerWindow };
  const chunkSize = input.chunkSize ?? 200;
  const verifyDelays = input.verifyDelaysMs ?? [1_000, 2_000, 4_000];
  const windowsPerRun = input.windowsPerRun ?? 150;
  const lead = input.leadMs ?? Math.min(300, allowance.windowMs / 4);
  const minTimer = input.minTimerMs ?? 1_000;
  // OAuth shops always go through the lane: it is where the app-wide share is applied.
  const shared = (input.shareShopAllowance ?? true) || (input.shop.auth === 'oauth' && !!input.appBudget);
  const slotSize = newRing(allowance, ringOptions).slotSize;
  const s: BulkCarry = carry ?? {
    offset: 0,
    feedDone: false,
    queue: [],
    unknown: [],
    counts: { total: 0, done: 0, failed: 0, rateLimited: 0, verified: 0 },
    ring: shared ? undefined : newRing(allowance, ringOptions),
    report: [],
    rate: allowance.limit,
    runs: 0,
    paused: false,
  };
  s.runs++;
  const jobId = input.jobId ?? workflowInfo().workflowId;
  let cancelled = false;
  let windows = 0;

  const pending = () => s.counts.total - s.counts.done - s.counts.failed;
  const progress = (state: JobState): BulkProgress => ({
    jobId,
    state,
    reason: s.pauseReason,
    total: s.counts.total,
    done: s.counts.done,
    failed: s.counts.failed,
    pending: pending(),
    currentRate: s.rate,
    windowMs: allowance.windowMs,
    rateLimited: s.counts.rateLimited,
    verified: s.counts.verified,
    etaMs: Math.ceil(pending() / Math.max(1, s.rate)) * allowance.windowMs,
    runs: s.runs,
  });
  // Set once the job has ended, so a query after completion (replayed to the end) answers it.
  let ended: JobState | undefined;
  const current = () => progress(ended ?? (cancelled ? 'cancelling' : s.paused ? 'paused' : 'running'));
  const pause = (reason = 'paused by request') => {
    s.paused = true;
    s.pauseReason = reason;
  };
  const resume = () => {
    s.paused = false;
    s.pauseReason = undefined;
  };
  setHandler(progressQuery, current);
  setHandler(pauseSignal, (arg) => pause(arg?.reason));
  setHandler(resumeSignal, resume);
  setHandler(cancelSignal, () => void (cancelled = true));
  setHandler(pauseUpdate, (arg) => (pause(arg?.reason), current()));
  setHandler(resumeUpdate, () => (resume(), current()));
  setHandler(cancelUpdate, () => ((cancelled = true), current()));

  /** The shop's ring: the lane (shared by the shop's jobs) or the job's own. */
  const slots = async (req: AcquireRequest): Promise<AcquireResult> =>
    s.ring
      ? acquire(s.ring, req, Date.now())
      : acquireSlots({
          shop: input.shop,
          group,
          lane: { allowance, ring: ringOptions },
          request: req,
          appBudget: input.shop.auth === 'oauth' ? input.appBudget : undefined,
        });
  /** Hands back the slots this job holds, so other jobs of the shop may use them. */
  const release = async () => {
    if (s.report.length === 0 && s.retryAfterMs === undefined) return;
    await slots({ jobId, want: 0, report: s.report, retryAfterMs: s.retryAfterMs });
    s.report = [];
    s.retryAfterMs = undefined;
  };

  const readNext = async () => {
    const chunk = await readFeedChunk(input.feed, s.offset, chunkSize, input.operation);
    s.offset = chunk.nextOffset;
    s.feedDone = chunk.done;
    s.counts.total = chunk.total;
    s.queue.push(...chunk.items);
    s.counts.failed += chunk.invalid.length;
    report(chunk.invalid);
  };

  let reporting: Promise<void> = Promise.resolve();
  const report = (results: ItemResult[]) => {
    if (results.length === 0) return;
    const previous = reporting;
    reporting = previous.then(() => appendReport(input.reportDir, jobId, results));
  };

  try {
    while (!cancelled) {
      if (s.paused) {
        await release();
        await condition(() => !s.paused || cancelled);
        continue;
      }
      const needItems = !s.feedDone && s.queue.length < s.rate;
      if (s.queue.length === 0 && s.unknown.length === 0 && s.feedDone) break;
      if (s.queue.length === 0 && s.unknown.length > 0) {
        await verifyRound(s, input, verifyDelays, report);
        continue;
      }
      if (s.queue.length === 0) {
        await readNext();
        continue;
      }
      // Ask for the next window's slots while the next chunk is read and the last results are written.
      const expected = s.queue.length + (needItems ? chunkSize : 0);
      const [grant] = await Promise.all([
        expected > 0
          ? slots({
              jobId,
              want: Math.ceil(Math.min(expected, s.rate) / slotSize),
              allowance,
              report: s.report,
              retryAfterMs: s.retryAfterMs,
            })
          : undefined,
        needItems ? readNext() : undefined,
        reporting,
      ]);
      if (!grant) continue;
      s.report = [];
      s.retryAfterMs = undefined;
      s.rate = grant.rate;
      if (grant.slots.length === 0 || s.queue.length === 0) {
        // Hand back what cannot be used; wait for capacity (or a pause / cancel).
        s.report = grant.slots.map((g) => ({ slot: g.slot, lastAt: null }));
        if (grant.slots.length === 0) await condition(() => cancelled || s.paused, grant.waitMs);
        continue;
      }
      const batch: SlotBatch[] = [];
      for (const g of grant.slots) {
        const items = s.queue.splice(0, grant.slotSize);
        if (items.length) batch.push({ slot: g.slot, notBefore: g.notBefore, items });
        else s.report.push({ slot: g.slot, lastAt: null });
      }
      // The pacing timer: one per window, until shortly before the window's first slot opens.
      const wait = Math.min(...batch.map((b) => b.notBefore)) - lead - Date.now();
      // Sub-second timers fire up to ~0.5 s late on the dev server (measured; ≥ 1 s ones are on time), so
      // a shorter wait is left to the activity, which waits for each slot's notBefore anyway.
      if (wait >= minTimer) await sleep(wait);
      const result = await sendBatch(input.shop, input.operation, { deadline: grant.deadline, slots: batch });
      s.report.push(...result.slots);
      windows++;
      settle(result, batch, s, report);
      if (s.paused && !s.pauseReason) s.pauseReason = 'paused by request';
      if (windows >= windowsPerRun || workflowInfo().continueAsNewSuggested) {
        if (s.unknown.length === 0 && !cancelled) {
          await reporting;
          await condition(allHandlersFinished);
          return await continueAsNew<typeof bulkListingWorkflow>(input, s);
        }
      }
    }
    await release();
    if (cancelled) {
      const left = [...s.queue, ...s.unknown.map((u) => u.item)];
      s.queue = [];
      s.unknown = [];
      s.counts.failed += left.length;
      report(
        left.map((i) => ({
          line: i.line,
          sku: i.sku,
          status: 'cancelled',
          message: 'job cancelled before this item was sent',
        })),
      );
      // Items never read from the feed are reported too: every line of the feed has a result.
      while (!s.feedDone) {
        const chunk = await readFeedChunk(input.feed, s.offset, Math.max(chunkSize, 1000), input.operation);
        s.offset = chunk.nextOffset;
        s.feedDone = chunk.done;
        s.counts.total = chunk.total;
        const rest = [...chunk.items, ...chunk.invalid];
        s.counts.failed += rest.length;
        report(
          rest.map((i) => ({
            line: i.line,
            sku: i.sku,
            status: 'cancelled',
            message: 'job cancelled before this item was sent',
          })),
        );
      }
    }
    await reporting;
    ended = cancelled ? 'cancelled' : 'finished';
    const final = progress(ended);
    await tellParent(input, final);
    return final;
  } catch (error) {
    if (error instanceof ContinueAsNew || isCancellation(error)) throw error;
    // A job that cannot go on (unreadable feed, unknown credential, an activity out of retries) fails
    // visibly, with the reason; its parent (many-shop job) hears of it.
    const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
    s.pauseReason = cause instanceof Error ? cause.message : String(cause);
    ended = 'failed';
    await release().catch(() => undefined);
    await tellParent(input, progress('failed')).catch(() => undefined);
    throw ApplicationFailure.nonRetryable(
      s.pauseReason,
      cause instanceof ApplicationFailure && cause.type ? cause.type : 'JobFailed',
    );
  }
}

async function tellParent(input: BulkJobInput, progress: BulkProgress) {
  const parent = workflowInfo().parent;
  if (!parent) return;
  await getExternalWorkflowHandle(parent.workflowId).signal(shopDoneSignal, {
    shopId: input.shop.shopId,
    progress,
  });
}

/** Counts final outcomes; queues retries, 429s and unknowns; pauses on a refused credential. */
function settle(result: BatchResult, batch: SlotBatch[], s: BulkCarry, report: (r: ItemResult[]) => void) {
  const items = new Map(batch.flatMap((b) => b.items.map((i) => [i.line, i] as const)));
  const again: FeedItem[] = [];
  const done: ItemResult[] = [];
  for (const o of result.outcomes) {
    const item = items.get(o.line)!;
    switch (o.status) {
      case 'ok':
        s.counts.done++;
        done.push({ line: o.line, sku: item.sku, status: 'ok', productId: o.productId, slug: o.slug });
        break;
      case 'failed':
        s.counts.failed++;
        done.push(failedResult(item, o));
        break;
      case 'rate_limited':
        s.counts.rateLimited++;
        again.push(item);
        break;
      case 'retry':
        again.push(item);
        break;
      case 'reauthorization_required':
        again.push(item);
        s.paused = true;
        s.pauseReason = `reauthorization required: ${o.message}`;
        break;
      case 'unknown':
        s.unknown.push({ item, rounds: 0 });
        break;
    }
  }
  if (result.retryAfterMs !== undefined) s.retryAfterMs = result.retryAfterMs;
  s.queue.unshift(...again);
  report(done);
}

function failedResult(item: FeedItem, o: Extract<SendOutcome, { status: 'failed' }>): ItemResult {
  return {
    line: o.line,
    sku: item.sku,
    status: 'failed',
    code: o.code,
    message: o.message,
    errorId: o.errorId,
  };
}

/**
 * Verify-then-retry: wait (a timer) through the read-after-create delay, GET each unknown SKU; found →
 * done; absent in every round → created again. Zero duplicates: nothing is re-created while any check
 * could still be hiding a listing that was created.
 */
async function verifyRound(
  s: BulkCarry,
  input: BulkJobInput,
  delays: number[],
  report: (r: ItemResult[]) => void,
) {
  const round = Math.min(...s.unknown.map((u) => u.rounds));
  await sleep(delays[Math.min(round, delays.length - 1)]!);
  const found = await verifyBySku(
    input.shop,
    s.unknown.map((u) => u.item.sku!),
  );
  const still: typeof s.unknown = [];
  const results: ItemResult[] = [];
  for (const u of s.unknown) {
    const hit = found[u.item.sku!];
    if (hit) {
      s.counts.done++;
      s.counts.verified++;
      results.push({ line: u.item.line, sku: u.item.sku, status: 'ok', ...hit });
    } else if (u.rounds + 1 >= delays.length)
      s.queue.push({ ...u.item, resend: true }); // confirmed absent: create again
    else still.push({ item: u.item, rounds: u.rounds + 1 });
  }
  s.unknown = still;
  report(results);
}
