// Activities of a bulk window: send each slot's items at its time, and verify unknown creates by SKU.
//
// Crash safety rests on one rule: an attempt that is not the first sends NOTHING. Whatever its earlier
// attempt did not report (heartbeats are throttled, so the server's copy can be seconds old) is in
// doubt: a create is `unknown` (the workflow verifies it by SKU with timers), any other operation is
// idempotent and goes back to the queue for fresh slots. The slot of a dead attempt is never used twice.
import { setTimeout as delay } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { RateLimitedError } from '@selling-kit/api-client';
import type {
  BatchResult,
  BulkOperation,
  FeedSnapshot,
  ItemResult,
  SendOutcome,
  ShopRef,
  SlotBatch,
} from '../types.ts';
import type { ActivityContext } from './context.ts';
import { readItems } from './feed.ts';
import { storeOf } from './job-data.ts';
import { snapshotStore } from './feed-activities.ts';
import { writeOutcomes } from './report.ts';
import type { PartRef } from '../stores/job-store.ts';
import { createdByJob, findBySku, sendOne, skuTaken, type FoundListing } from './send.ts';
import { boundedProgress } from './batch-heartbeat.ts';
import { IN_DOUBT } from '../workflows/item-codes.ts';
import { carriedError } from '../workflows/carry-bytes.ts';
import { countVerification } from '../observability/metrics.ts';

/** A slot still waiting for answers after this long lets the next slot start. */
const STALL_MS = 1_000;
/** Heartbeats go out on this timer, whatever the answers do (the heartbeat timeout is 10 s). */
const BEAT_MS = 1_000;

/** Heartbeated progress of a batch: what a later attempt must not do again. */
interface BatchProgress {
  outcomes: Record<number, SendOutcome>;
  lastAt: Record<number, number>;
}

/** A verification, resumable from its heartbeat. */
interface VerifyProgress {
  index: number;
  found: Record<number, FoundListing>;
  /** Lines whose GET failed (not a 429): not known either way. */
  unchecked: number[];
}

/** The report line of an outcome that is final (ok, failed). */
function finalLine(o: SendOutcome, sku: string | null): ItemResult | undefined {
  if (o.status === 'ok') return { line: o.line, sku, status: 'ok', productId: o.productId, slug: o.slug };
  if (o.status === 'failed')
    return { line: o.line, sku, status: 'failed', code: o.code, message: o.message, errorId: o.errorId };
  return undefined;
}

/** What the workflow keeps of an outcome: final ones are in the report, not in history; reasons are short. */
function compact(o: SendOutcome): SendOutcome {
  if (o.status === 'failed')
    return { line: o.line, status: 'failed', code: o.code, message: '', httpStatus: o.httpStatus };
  if ((o.status === 'retry' || o.status === 'unknown') && o.reason)
    return { ...o, reason: carriedError({ code: '', message: o.reason }).message };
  return o;
}

export function createBatchActivities(c: ActivityContext) {
  return { sendBatch: sendBatchActivity(c), verifyBySku: verifyBySkuActivity(c) };
}

type SellingClient = Awaited<ReturnType<ActivityContext['clients']['clientFor']>>;

/** One window as the workflow hands it over. */
export interface WindowBatch {
  deadline: number;
  slots: SlotBatch[];
  /** When the job started (sendOne: a resend's duplicate SKU is ours only if created since). */
  createdSince?: number;
}

function sendBatchActivity({ clients, deps }: ActivityContext) {
  /**
   * Sends a window's slots: each slot's requests leave no earlier than the slot's `notBefore` (the
   * workflow's timer brings the batch close; the last milliseconds are waited here). Nothing is
   * retried here. Final outcomes go to the report part `at`; the workflow gets compact outcomes.
   */
  return async function sendBatch(
    shop: ShopRef,
    operation: BulkOperation,
    snapshot: FeedSnapshot,
    batch: WindowBatch,
    at: PartRef,
  ): Promise<BatchResult> {
    const ctx = Context.current();
    const attempt = ctx.info.attempt;
    // First, before anything is sent: the job's data is in this worker's store.
    const store = await snapshotStore(deps.jobStore, snapshot, at.job).catch((error: unknown) => {
      // The workflow takes a refused first attempt's items as never sent (JobStoreNotShared is not
      // retried); a later attempt's earlier attempt may have sent them, so it fails as a plain retryable
      // error and the window ends in doubt like any window out of attempts.
      if (attempt > 1 && error instanceof ApplicationFailure)
        throw ApplicationFailure.retryable(error.message, `${error.type}AfterAttempt`);
      throw error;
    });
    const progress: BatchProgress = (ctx.info.heartbeatDetails as BatchProgress | undefined) ?? {
      outcomes: {},
      lastAt: {},
    };
    const all = batch.slots.flatMap((s) => s.items);
    if (attempt === 1) {
      const client = await clients.clientFor(shop);
      const lines = all.map((i) => i.line);
      const bodies = new Map((await readItems(store, snapshot, lines, operation)).map((p) => [p.line, p]));
      const beat = setInterval(() => ctx.heartbeat(boundedProgress(progress)), BEAT_MS);
      try {
        await sendSlots({ client, operation, bodies, batch, progress, signal: ctx.cancellationSignal });
      } finally {
        clearInterval(beat);
      }
      // The job was cancelled: what was answered stands, what never left is "not sent", what was cut
      // off is in doubt (sendOne). Any other abort (timed out by the server, the worker shutting down)
      // ends an attempt the workflow will not accept: it writes nothing.
      if (ctx.cancellationSignal.aborted && !ctx.cancellationDetails?.cancelRequested)
        ctx.cancellationSignal.throwIfAborted();
    } else markInDoubt(all, operation, progress);
    const outcomes = all.map((i) => progress.outcomes[i.line]!);
    const skus = new Map(all.map((i) => [i.line, i.sku]));
    const lines = outcomes.flatMap((o) => finalLine(o, skus.get(o.line) ?? null) ?? []);
    await writeOutcomes(store, at, lines, attempt);
    return batchResult(outcomes, batch, progress, attempt);
  };
}

/**
 * The first attempt's sending. Slots go one after another, in the order they open: a slot alone on the
 * wire is short, and a slot's length is all a window loses. A slot stuck on a slow answer lets the next
 * one start.
 */
async function sendSlots(run: {
  client: SellingClient;
  operation: BulkOperation;
  bodies: Map<number, Awaited<ReturnType<typeof readItems>>[number]>;
  batch: WindowBatch;
  progress: BatchProgress;
  signal: AbortSignal;
}): Promise<void> {
  const { client, operation, bodies, batch, progress, signal } = run;
  const runSlot = async (s: SlotBatch) => {
    const wait = s.notBefore - Date.now();
    if (wait > 0) await delay(wait, undefined, { signal }).catch(() => {});
    // Too late (the lane may have handed this slot to another job) or cancelled: not sent.
    if (Date.now() > batch.deadline || signal.aborted) {
      for (const i of s.items)
        progress.outcomes[i.line] = { line: i.line, status: 'retry', reason: 'not sent' };
      return;
    }
    await Promise.all(
      s.items.map(async (item) => {
        const prepared = bodies.get(item.line)!;
        const body = { ...prepared, resend: item.resend };
        progress.outcomes[item.line] = await sendOne(client, operation, body, signal, batch.createdSince);
        progress.lastAt[s.slot] = Math.max(progress.lastAt[s.slot] ?? 0, Date.now());
      }),
    );
  };
  const ordered = [...batch.slots].sort((a, b) => a.notBefore - b.notBefore);
  const inFlight: Promise<void>[] = [];
  for (const slot of ordered) {
    const previous = inFlight.at(-1);
    if (previous) await Promise.race([previous, delay(STALL_MS)]);
    inFlight.push(runSlot(slot));
  }
  await Promise.all(inFlight);
}

/** A later attempt: whatever the earlier attempt did not report may have been sent. */
function markInDoubt(all: SlotBatch['items'], operation: BulkOperation, progress: BatchProgress): void {
  for (const i of all)
    progress.outcomes[i.line] ??=
      operation === 'create'
        ? { line: i.line, status: 'unknown' }
        : {
            line: i.line,
            status: 'retry',
            reason: 'in doubt after a retried attempt',
            sent: true,
            code: IN_DOUBT,
          };
}

/** What the workflow gets back: the lines that went through, compact outcomes of the rest, slot reports. */
function batchResult(
  outcomes: SendOutcome[],
  batch: WindowBatch,
  progress: BatchProgress,
  attempt: number,
): BatchResult {
  const limited = outcomes.filter((o) => o.status === 'rate_limited');
  // A retried attempt cannot know when its earlier attempt's last answers came — a stalled attempt 1
  // may still fire slots until the batch's deadline: its slots count as used then.
  const usedBy = Math.max(Date.now(), batch.deadline);
  return {
    ok: outcomes.filter((o) => o.status === 'ok').map((o) => o.line),
    outcomes: outcomes.filter((o) => o.status !== 'ok').map(compact),
    slots: batch.slots.map((s) => ({
      slot: s.slot,
      lastAt: attempt === 1 ? (progress.lastAt[s.slot] ?? null) : usedBy,
    })),
    retryAfterMs: limited.length ? Math.max(...limited.map((o) => o.retryAfterMs)) : undefined,
    attempt,
  };
}

function verifyBySkuActivity({ clients, deps }: ActivityContext) {
  /**
   * GET by SKU for each unknown create: found ones are written to the report as ok — when created since
   * the job started (`createdSince`); a listing older than the job had the SKU already, so the create
   * could not have been applied: `taken`, written as failed `sku_exists`. A 429 stops the round early;
   * what was not checked (or whose GET failed) is said so (`checked`), never taken as absent.
   */
  return async function verifyBySku(
    shop: ShopRef,
    items: { line: number; sku: string }[],
    at: PartRef,
    createdSince?: number,
  ): Promise<{ found: number[]; taken: number[]; checked: number[]; attempt: number }> {
    const store = await storeOf(deps.jobStore, at.job);
    const ctx = Context.current();
    const client = await clients.clientFor(shop);
    const progress: VerifyProgress = (ctx.info.heartbeatDetails as VerifyProgress | undefined) ?? {
      index: 0,
      found: {},
      unchecked: [],
    };
    const beat = setInterval(() => ctx.heartbeat(progress), BEAT_MS);
    try {
      await checkSkus(client, items, progress, ctx.cancellationSignal);
    } finally {
      clearInterval(beat);
    }
    const hits = Object.entries(progress.found).map(([line, hit]) => ({ line: Number(line), ...hit }));
    const found = hits.filter((h) => createdByJob(h, createdSince));
    const taken = hits.filter((h) => !createdByJob(h, createdSince));
    await writeOutcomes(store, at, verifiedLines(items, found, taken), ctx.info.attempt);
    countVerification(found.length);
    return {
      found: found.map((f) => f.line),
      taken: taken.map((t) => t.line),
      checked: items
        .slice(0, progress.index)
        .map((i) => i.line)
        .filter((line) => !progress.unchecked.includes(line)),
      attempt: ctx.info.attempt,
    };
  };
}

/** GET by SKU from where the heartbeat left off. */
async function checkSkus(
  client: SellingClient,
  items: { line: number; sku: string }[],
  progress: VerifyProgress,
  signal: AbortSignal,
): Promise<void> {
  for (; progress.index < items.length; progress.index++) {
    const { line, sku } = items[progress.index]!;
    try {
      const hit = await findBySku(client, sku, signal);
      if (hit) progress.found[line] = hit;
    } catch (error) {
      // A 429 ends the round (the rest waits for the next one); any other failure leaves this
      // SKU unchecked and goes on with the others.
      if (error instanceof RateLimitedError || signal.aborted) break;
      progress.unchecked.push(line);
    }
  }
}

type Hit = FoundListing & { line: number };

/** The report lines of a verification: found ones ok, taken ones failed `sku_exists`. */
function verifiedLines(items: { line: number; sku: string }[], found: Hit[], taken: Hit[]): ItemResult[] {
  const sku = new Map(items.map((i) => [i.line, i.sku]));
  return [
    ...found.map((f) => ({
      line: f.line,
      sku: sku.get(f.line)!,
      status: 'ok' as const,
      productId: f.productId,
      slug: f.slug,
    })),
    ...taken.map((t) => {
      const { line, status, code, message } = skuTaken(
        { line: t.line, sku: sku.get(t.line)! },
        t,
        `created ${new Date(t.createdAt!).toISOString()}, before this job started; this item's create was in doubt and could not have been applied`,
      );
      return { line, sku: sku.get(line)!, status, code, message };
    }),
  ];
}
