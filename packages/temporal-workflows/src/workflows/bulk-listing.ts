// Bulk listing for one shop: read the feed in chunks, send each window's worth of items in one
// activity, then sleep until the window ends — one timer per window, not per request. 429s slow the
// shop down; unknown outcomes (504, timeouts) are verified by GET (SKU) across timers before any
// re-create. Decisions and timers live here; every byte of I/O is in the activities.
import {
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.ts';
import type { BulkJobInput, BulkProgress, FeedItem, ItemResult, SendOutcome } from '../types.ts';
import { afterCleanWindow, afterRateLimited, initialPacing, type PacingState } from './pacing.ts';

export const progressQuery = defineQuery<BulkProgress>('progress');
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
export const cancelSignal = defineSignal('cancel');

const { readFeedChunk, sendBatch, verifyBySku, appendReport, acquireWindow, laneRateLimited } =
  proxyActivities<ReturnType<typeof createActivities>>({
    startToCloseTimeout: '5 minutes',
    // A worker that dies mid-batch is noticed within seconds; the next attempt resumes from the heartbeat.
    heartbeatTimeout: '5 seconds',
    retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10 },
  });

/** Carried across continue-as-new. */
export interface BulkCarry {
  offset: number;
  feedDone: boolean;
  queue: FeedItem[];
  unknown: { item: FeedItem; rounds: number }[];
  counts: { total: number; done: number; failed: number; rateLimited: number; verified: number };
  pacing: PacingState;
  runs: number;
  paused: boolean;
}

const DEFAULT_ALLOWANCE = { limit: 200, windowMs: 10_000 };
/** Creates, upserts and full updates all count against the create / full-update group. */
const GROUP = 'create_update';
const DEFAULT_VERIFY_DELAYS = [1_000, 2_000, 4_000];

export async function bulkListingWorkflow(input: BulkJobInput, carry?: BulkCarry): Promise<BulkProgress> {
  const chunkSize = input.chunkSize ?? 200;
  const verifyDelays = input.verifyDelaysMs ?? DEFAULT_VERIFY_DELAYS;
  const windowsPerRun = input.windowsPerRun ?? 500;
  const s: BulkCarry = carry ?? {
    offset: 0,
    feedDone: false,
    queue: [],
    unknown: [],
    counts: { total: 0, done: 0, failed: 0, rateLimited: 0, verified: 0 },
    pacing: initialPacing(input.allowance ?? DEFAULT_ALLOWANCE),
    runs: 0,
    paused: false,
  };
  s.runs++;
  const jobId = input.jobId ?? workflowInfo().workflowId;
  const allowance = input.allowance ?? DEFAULT_ALLOWANCE;
  const lane = input.shareShopAllowance ?? true;
  let cancelled = false;
  let windows = 0;

  const pending = () => s.counts.total - s.counts.done - s.counts.failed;
  const progress = (state: BulkProgress['state']): BulkProgress => ({
    jobId,
    state,
    total: s.counts.total,
    done: s.counts.done,
    failed: s.counts.failed,
    pending: pending(),
    currentRate: s.pacing.rate,
    windowMs: s.pacing.windowMs,
    rateLimited: s.counts.rateLimited,
    verified: s.counts.verified,
    etaMs: Math.ceil(pending() / Math.max(1, s.pacing.rate)) * s.pacing.windowMs,
    runs: s.runs,
  });
  setHandler(progressQuery, () => progress(cancelled ? 'cancelling' : s.paused ? 'paused' : 'running'));
  setHandler(pauseSignal, () => void (s.paused = true));
  setHandler(resumeSignal, () => void (s.paused = false));
  setHandler(cancelSignal, () => void (cancelled = true));

  const report = async (results: ItemResult[]) => {
    if (results.length) await appendReport(input.reportDir, jobId, results);
  };

  while (!cancelled) {
    if (s.paused) await condition(() => !s.paused || cancelled);
    if (cancelled) break;
    if (s.queue.length === 0 && s.unknown.length === 0) {
      if (s.feedDone) break;
      const chunk = await readFeedChunk(input.feed, s.offset, chunkSize, input.operation);
      s.offset = chunk.nextOffset;
      s.feedDone = chunk.done;
      s.counts.total = chunk.total;
      s.queue.push(...chunk.items);
      s.counts.failed += chunk.invalid.length;
      await report(chunk.invalid);
      continue;
    }
    if (s.queue.length > 0) {
      let windowStart = Date.now(); // deterministic inside workflows (the task's time)
      let want = Math.min(s.pacing.rate, s.queue.length);
      if (lane) {
        // The shop's lane shares its allowance among every job of the shop.
        for (;;) {
          const grant = await acquireWindow(input.shop.shopId, GROUP, allowance, want);
          if (grant.granted > 0) {
            want = grant.granted;
            windowStart = grant.at; // the lane's window: the next one opens exactly when this one ends
            break;
          }
          await sleep(grant.waitMs);
        }
      }
      const batch = s.queue.splice(0, want);
      const outcomes = await sendBatch(input.shop, input.operation, batch);
      const limited = settle(outcomes, batch, s);
      await report(outcomes.flatMap((o) => finalResult(o)));
      windows++;
      if (limited.length) {
        s.counts.rateLimited += limited.length;
        s.queue.unshift(...limited.map((o) => batch.find((b) => b.line === o.line)!));
        s.pacing = afterRateLimited(s.pacing);
        const wait = Math.max(...limited.map((o) => o.retryAfterMs));
        if (lane) await laneRateLimited(input.shop.shopId, GROUP, allowance, wait);
        await sleep(wait);
      } else {
        s.pacing = afterCleanWindow(s.pacing);
        const rest = windowStart + s.pacing.windowMs - Date.now();
        if (rest > 0 && (s.queue.length > 0 || !s.feedDone)) await sleep(rest);
      }
    }
    if (s.unknown.length > 0 && s.queue.length === 0) await verifyRound(s, input, verifyDelays, report);
    if (windows >= windowsPerRun || workflowInfo().continueAsNewSuggested) {
      if (s.unknown.length === 0) await continueAsNew<typeof bulkListingWorkflow>(input, s);
    }
  }
  if (cancelled) {
    const left = [...s.queue, ...s.unknown.map((u) => u.item)];
    s.counts.failed += left.length;
    await report(
      left.map((i) => ({
        line: i.line,
        sku: i.sku,
        status: 'cancelled',
        message: 'job cancelled before this item was sent',
      })),
    );
    return progress('cancelled');
  }
  return progress('finished');
}

/** Counts final outcomes, queues retries and unknowns; returns the rate-limited ones. */
function settle(outcomes: SendOutcome[], batch: FeedItem[], s: BulkCarry) {
  const limited: Extract<SendOutcome, { status: 'rate_limited' }>[] = [];
  for (const o of outcomes) {
    const item = batch.find((b) => b.line === o.line)!;
    if (o.status === 'ok') s.counts.done++;
    else if (o.status === 'failed') s.counts.failed++;
    else if (o.status === 'rate_limited') limited.push(o);
    else if (o.status === 'retry') s.queue.push(item);
    else s.unknown.push({ item, rounds: 0 });
  }
  return limited;
}

function finalResult(o: SendOutcome): ItemResult[] {
  if (o.status === 'ok')
    return [{ line: o.line, sku: o.sku, status: 'ok', productId: o.productId, slug: o.slug }];
  if (o.status === 'failed')
    return [
      { line: o.line, sku: o.sku, status: 'failed', code: o.code, message: o.message, errorId: o.errorId },
    ];
  return [];
}

/**
 * Verify-then-retry: wait (a timer) through the read-after-create delay, GET each unknown SKU; found →
 * done; absent in every round → sent again. Zero duplicates: nothing is re-created while any check
 * could still be hiding a listing that was created.
 */
async function verifyRound(
  s: BulkCarry,
  input: BulkJobInput,
  delays: number[],
  report: (r: ItemResult[]) => Promise<void>,
) {
  const round = Math.min(...s.unknown.map((u) => u.rounds));
  await sleep(delays[Math.min(round, delays.length - 1)]!);
  const found = await verifyBySku(
    input.shop,
    s.unknown.map((u) => u.item.sku),
  );
  const still: typeof s.unknown = [];
  const results: ItemResult[] = [];
  for (const u of s.unknown) {
    const hit = found[u.item.sku];
    if (hit) {
      s.counts.done++;
      s.counts.verified++;
      results.push({
        line: u.item.line,
        sku: u.item.sku,
        status: 'ok',
        productId: hit.productId,
        slug: hit.slug,
      });
    } else if (u.rounds + 1 >= delays.length)
      s.queue.push({ ...u.item, recreate: true }); // confirmed absent: create again
    else still.push({ item: u.item, rounds: u.rounds + 1 });
  }
  s.unknown = still;
  await report(results);
}
