// Offers to likers: one workflow per listing (id `offers:<shopId>:<productId>`) receives its likes as
// signals (signalWithStart: the first like starts it). Each like waits `delayMs` on a durable timer,
// then one manual offer goes to the liker at `percentOff` (the activity prices it from the listing as it
// is then). A liker who had an offer within the lifetime (24 h) gets no other, however often they like;
// once the listing is no longer on sale every waiting and later like is skipped and the workflow ends.
// Signals, not updates: a burst of likes is not bounded by the 10 updates in flight per workflow. The
// per-liker memory keeps the last lifetime only, and a run continues as new after `likesPerRun` likes
// (or when the server suggests it), carrying what is waiting and what was offered.
//
// From 0.4 (`patched(SETTLED)`, N6): an offer is ONE attempt, never retried by Temporal. An answer that
// leaves it open whether the offer landed (any 5xx, a 504, a timeout, the activity lost with its worker)
// counts the liker as offered, in doubt: an offer cannot be looked up, and a second one to the same liker
// is worse than none. Nothing sent (a 429, a blip before the offer left) is tried again here, on a backoff.
// Offers settle one by one (allSettled): a refused one (a revoked key's 401) is counted in the state
// query and the workflow goes on with its memory. And offers are paced through the shop's lane (below).
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { LikerOfferOutcome, LikerOffersInput, LikerOffersState } from '../webhooks/sales-types.ts';
import { likerOffersWorkflowId } from '../contract.ts';
import { DEFAULT_ALLOWANCES, type AcquireResult, type SlotReport } from './pacing.ts';
import { guardSignal, refuseInput } from './refuse.ts';
import { likeSignal, likerOffersStateQuery } from './messages.ts';
import { LANE_ASK_ACTIVITY } from './retry-policies.ts';

/** Runs before 0.4: Temporal retried the offer (replayed as they were recorded). */
const { sendLikerOffer } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
});
/**
 * 0.4: one attempt, longer than the client's own per-request timeout (its answer, not ours, decides).
 * A lost attempt (its worker gone) is an offer in doubt, never a second POST.
 */
const { sendLikerOffer: sendLikerOfferOnce } = proxyActivities<Activities>({
  startToCloseTimeout: '90 seconds',
  retry: { maximumAttempts: 1 },
});
const { acquireSlots } = proxyActivities<Activities>(LANE_ASK_ACTIVITY);

export { likerOffersWorkflowId };

/** The 0.4 behaviour (header): settled one by one, in doubt never re-sent, paced by the shop's lane. */
export const OFFERS_SETTLED_PATCH = 'liker-offers-settled-paced';

const DEFAULT_LIKES_PER_RUN = 500;
const MAX_OFFERS_PER_TURN = 50;
/** Requests one offer makes: the listing's GET (its price now), then the POST. */
const REQUESTS_PER_OFFER = 2;
/** Tries of an offer that sent nothing (429, blips) before the liker is given up. */
const MAX_OFFER_TRIES = 6;
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;
/** The shortest wait before asking the lane again (never a hot loop of activities). */
const MIN_WAIT_MS = 1_000;
/** The lane did not answer (its activity out of attempts): ask again after this long. */
const LANE_RETRY_MS = 30_000;
/** Failure codes counted one by one in the state; more distinct ones are counted as `other`. */
const MAX_FAILURE_CODES = 20;

export async function likerOffersWorkflow(
  input: LikerOffersInput & { lifetimeMs: number },
): Promise<LikerOffersState> {
  refuseInput(input);
  const run = openRun(input);
  setHandler(
    likeSignal,
    guardSignal('likeSignal', ({ likerId }) => onLike(run, likerId)),
  );
  setHandler(likerOffersStateQuery, () => stateOf(run));
  const lane = new OfferSlots(run);

  for (;;) {
    forget(run);
    if (run.closed) {
      run.counts.notOnSale += run.pending.size;
      run.pending.clear();
      run.tries.clear();
      await lane.release();
      await condition(allHandlersFinished);
      return stateOf(run);
    }
    if (runFull(run)) {
      await lane.release();
      await condition(allHandlersFinished);
      await continueAsNew<typeof likerOffersWorkflow>({ ...input, state: stateOf(run) });
    }
    if (run.pending.size === 0) {
      // Nothing waits: remember the offered likers until their lifetime ends, then finish (a later like
      // starts a new run through signalWithStart).
      if (run.offered.size === 0) {
        await lane.release();
        await condition(allHandlersFinished);
        if (run.pending.size === 0) return stateOf(run);
        continue;
      }
      const firstExpiry = Math.min(...run.offered.values()) + input.lifetimeMs;
      await lane.idle(() => run.pending.size > 0 || runFull(run), Math.max(1, firstExpiry - Date.now()));
      continue;
    }
    // Every like waits the same delay, so the earliest due is the oldest: wait until then (a timer),
    // or until the run is full and continues as new (its likes carried along).
    const due = Math.min(...run.pending.values());
    if (due > Date.now()) {
      await lane.idle(() => runFull(run), due - Date.now());
      if (runFull(run)) continue;
    }
    if (patched(OFFERS_SETTLED_PATCH)) await sendSettled(run, lane);
    else await sendAsRecorded(run);
  }
}

/** One run's memory: what the state carries across runs, and what this run counts besides. */
interface OffersRun {
  input: LikerOffersInput & { lifetimeMs: number };
  pending: Map<number, number>;
  offered: Map<number, number>;
  counts: LikerOffersState['counts'];
  failures: Record<string, number>;
  lastFailure: LikerOffersState['lastFailure'];
  tries: Map<number, number>;
  laneUsed: boolean;
  closed: boolean;
  runs: number;
  /** Offers being sent now (a like arriving meanwhile must not queue a second one). */
  inFlight: Set<number>;
  likesThisRun: number;
  /** A 429's Retry-After, for the lane's next ask. */
  retryAfterMs?: number;
}

function openRun(input: OffersRun['input']): OffersRun {
  const s = input.state;
  return {
    input,
    pending: new Map(s?.pending ?? []),
    offered: new Map(s?.offered ?? []),
    counts: s?.counts ?? { likes: 0, sent: 0, repeated: 0, notOnSale: 0, failed: 0 },
    failures: { ...s?.failures },
    lastFailure: s?.lastFailure,
    tries: new Map(s?.tries ?? []),
    laneUsed: s?.laneUsed ?? false,
    closed: s?.closed ?? false,
    runs: (s?.runs ?? 0) + 1,
    inFlight: new Set(),
    likesThisRun: 0,
  };
}

function stateOf(run: OffersRun): LikerOffersState {
  const { pending, offered, closed, counts, runs, failures, lastFailure, tries, laneUsed } = run;
  return {
    pending: [...pending],
    offered: [...offered],
    closed,
    counts: { ...counts },
    runs,
    ...(Object.keys(failures).length ? { failures: { ...failures } } : {}),
    ...(lastFailure ? { lastFailure } : {}),
    ...(tries.size ? { tries: [...tries] } : {}),
    ...(laneUsed ? { laneUsed } : {}),
  };
}

/** A like: queued to wait `delayMs`, unless the liker waits already, is being offered, or was offered. */
function onLike(run: OffersRun, likerId: number): void {
  const { counts, input } = run;
  counts.likes++;
  run.likesThisRun++;
  if (run.closed) {
    counts.notOnSale++;
    return;
  }
  const at = run.offered.get(likerId);
  if (
    run.pending.has(likerId) ||
    run.inFlight.has(likerId) ||
    (at !== undefined && Date.now() - at < input.lifetimeMs)
  ) {
    counts.repeated++;
    return;
  }
  run.pending.set(likerId, Date.now() + input.delayMs);
}

const runFull = (run: OffersRun) =>
  run.likesThisRun >= (run.input.likesPerRun ?? DEFAULT_LIKES_PER_RUN) ||
  workflowInfo().continueAsNewSuggested;

/** The per-liker memory keeps the last lifetime only. */
function forget(run: OffersRun): void {
  for (const [liker, at] of run.offered)
    if (Date.now() - at >= run.input.lifetimeMs) run.offered.delete(liker);
}

interface Held {
  slots: number[];
  /** Requests the slot may still carry. */
  left: number;
  notBefore: number;
  deadline: number;
  /** When the last answer sent with it came back (workflow clock), null: unused. */
  lastAt: number | null;
}

/**
 * Pacing (0.4). Offers go through the shop's lane for the general group, the ring every bulk job of the
 * shop asks (pacing.ts), rather than at a fixed rate of their own: the lane is the one place that knows the
 * shop's allowance and what its jobs use, so offers share the jobs' part (5,700 of 6,000 a minute) and
 * never the 5 % kept back for sales — a fixed rate per listing would not be bounded per shop (a hundred
 * listings liked at once) and would still land in that reserve. One slot is held and spent over the turns
 * until its deadline (a slot carries ~285 requests at the default allowance: a viral listing's 500 likes
 * take four slots, not a minute's whole allowance), then handed back with when it was last used. No
 * app-budget share is asked: offers go in whatever share the shop's jobs hold (an OAuth shop's lane whose
 * share has lapsed, its app-budget jobs ended, grants nothing until one renews it — offers wait, kept, as
 * a bulk job without `appBudget` on that lane would).
 */
class OfferSlots {
  private held: Held | undefined;
  private acquires = 0;
  /** Slots asked for at once: more than one only when one slot cannot carry an offer (a tiny allowance). */
  private want = 1;

  private readonly run: OffersRun;

  constructor(run: OffersRun) {
    this.run = run;
  }

  /** The lane's answer, or undefined when it did not answer (logged; the caller waits and asks again). */
  private async ask(want: number, report: SlotReport[]): Promise<AcquireResult | undefined> {
    const { run } = this;
    const info = workflowInfo();
    try {
      const answer = await acquireSlots({
        shop: run.input.shop,
        group: 'general',
        lane: { allowance: DEFAULT_ALLOWANCES.general },
        request: {
          jobId: info.workflowId,
          want,
          report,
          retryAfterMs: run.retryAfterMs,
          usedBefore: run.laneUsed,
          // Deterministic: a retried activity repeats the same update, which the lane answers once.
          updateId: `${info.workflowId}/${info.runId}/lane-${++this.acquires}`,
        },
      });
      run.retryAfterMs = undefined;
      return answer;
    } catch (error) {
      log.warn('the shop lane did not answer: offers wait', { error: String(error) });
      return undefined;
    }
  }

  /** Hands the held slot back (with when it was last used), so the shop's jobs may use it. */
  async release(): Promise<void> {
    if (!this.held) return;
    const { slots, lastAt } = this.held;
    this.held = undefined;
    await this.ask(
      0,
      slots.map((slot) => ({ slot, lastAt })),
    );
  }

  /** A slot with room for one more offer, or undefined after waiting what the lane said. */
  async capacity(): Promise<Held | undefined> {
    const { held, run } = this;
    if (held && held.left >= REQUESTS_PER_OFFER && Date.now() < held.deadline) return held;
    const report = held ? held.slots.map((slot) => ({ slot, lastAt: held.lastAt })) : [];
    this.held = undefined;
    const grant = await this.ask(this.want, report);
    if (!grant || grant.slots.length === 0) {
      await condition(() => runFull(run), grant ? Math.max(grant.waitMs, MIN_WAIT_MS) : LANE_RETRY_MS);
      return undefined;
    }
    run.laneUsed = true;
    const granted: Held = {
      slots: [...new Set(grant.slots.map((g) => g.slot))],
      left: grant.slots.reduce((sum, g) => sum + (g.size ?? grant.slotSize), 0),
      notBefore: Math.max(...grant.slots.map((g) => g.notBefore)),
      deadline: grant.deadline,
      lastAt: null,
    };
    this.held = granted;
    if (granted.left < REQUESTS_PER_OFFER) {
      // Too small for one offer: handed back unused with the next ask, which asks for enough slots.
      this.want = Math.min(REQUESTS_PER_OFFER, this.want + 1);
      await condition(() => runFull(run), MIN_WAIT_MS);
      return undefined;
    }
    return granted;
  }

  /** `condition(until, ms)`, handing the held slot back once its deadline passes meanwhile. */
  async idle(until: () => boolean, ms: number): Promise<boolean> {
    const { held } = this;
    if (held && Date.now() + ms > held.deadline) {
      const end = Date.now() + ms;
      if (await condition(until, Math.max(1, held.deadline - Date.now()))) return true;
      await this.release();
      return condition(until, Math.max(1, end - Date.now()));
    }
    return condition(until, ms);
  }
}

function fail(run: OffersRun, likerId: number, code: string, detail?: string): void {
  const { failures } = run;
  run.counts.failed++;
  const key = code in failures || Object.keys(failures).length < MAX_FAILURE_CODES ? code : 'other';
  failures[key] = (failures[key] ?? 0) + 1;
  run.lastFailure = { likerId, code, at: Date.now(), ...(detail ? { detail } : {}) };
}

/** Due likers, oldest first, at most `n`, taken out of the queue and marked as being offered. */
function takeDue(run: OffersRun, n: number): number[] {
  const now = Date.now();
  const ready = [...run.pending]
    .filter(([, at]) => at <= now)
    .slice(0, n)
    .map(([liker]) => liker);
  for (const liker of ready) {
    run.pending.delete(liker);
    run.inFlight.add(liker);
  }
  return ready;
}

/** One turn of 0.4: a slot's worth of due offers, each settled on its own. */
async function sendSettled(run: OffersRun, lane: OfferSlots): Promise<void> {
  const { input } = run;
  const slot = await lane.capacity();
  if (!slot) return;
  if (slot.notBefore > Date.now()) await sleep(slot.notBefore - Date.now());
  const n = Math.min(MAX_OFFERS_PER_TURN, Math.max(1, Math.floor(slot.left / REQUESTS_PER_OFFER)));
  const ready = takeDue(run, n);
  if (ready.length === 0) return;
  slot.left -= ready.length * REQUESTS_PER_OFFER;
  const outcomes = await Promise.allSettled(
    ready.map((liker) =>
      sendLikerOfferOnce(input.shop, input.productId, liker, input.percentOff, input.minPercentOff, {
        settle: true,
      }),
    ),
  );
  const at = Date.now();
  slot.lastAt = at;
  outcomes.forEach((settled, i) => {
    const liker = ready[i]!;
    run.inFlight.delete(liker);
    // The activity answers every API outcome: a failure is its attempt lost (timed out, its worker
    // gone) after the offer may have left.
    const outcome: LikerOfferOutcome =
      settled.status === 'fulfilled'
        ? settled.value
        : { status: 'failed', code: 'outcome_unknown', detail: activityFailure(settled.reason) };
    settle(run, slot, liker, outcome, at);
  });
}

/** What one offer's outcome does to the memory (0.4). */
function settle(run: OffersRun, slot: Held, liker: number, outcome: LikerOfferOutcome, at: number): void {
  const { counts, tries } = run;
  if (outcome.status !== 'retry') tries.delete(liker);
  if (outcome.status === 'sent') {
    counts.sent++;
    run.offered.set(liker, at);
  } else if (outcome.status === 'not_on_sale') {
    counts.notOnSale++;
    run.closed = true;
  } else if (outcome.status === 'retry') {
    const n = (tries.get(liker) ?? 0) + 1;
    if (outcome.retryAfterMs !== undefined) {
      // The shop is over its allowance: the lane hears it, and this slot is not used again.
      run.retryAfterMs = Math.max(run.retryAfterMs ?? 0, outcome.retryAfterMs);
      slot.left = 0;
    }
    if (n >= MAX_OFFER_TRIES) {
      tries.delete(liker);
      fail(run, liker, outcome.code, `gave up after ${n} tries`);
      return;
    }
    tries.set(liker, n);
    counts.retried = (counts.retried ?? 0) + 1;
    const backoff = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (n - 1));
    run.pending.set(liker, at + Math.max(backoff, outcome.retryAfterMs ?? 0));
  } else {
    fail(run, liker, outcome.code, outcome.detail);
    if (outcome.code === 'outcome_unknown') {
      // Never sent twice: it may have landed.
      counts.inDoubt = (counts.inDoubt ?? 0) + 1;
      run.offered.set(liker, at);
    }
  }
}

/** Runs recorded before 0.4, replayed as they ran. */
async function sendAsRecorded(run: OffersRun): Promise<void> {
  const { input, counts } = run;
  // At most MAX_OFFERS_PER_TURN activities at once: a burst of likes is served turn after turn.
  const ready = takeDue(run, MAX_OFFERS_PER_TURN);
  const outcomes = await Promise.all(
    ready.map((liker) =>
      sendLikerOffer(input.shop, input.productId, liker, input.percentOff, input.minPercentOff),
    ),
  );
  outcomes.forEach((outcome, i) => {
    const liker = ready[i]!;
    run.inFlight.delete(liker);
    if (outcome.status === 'sent') {
      counts.sent++;
      run.offered.set(liker, Date.now());
    } else if (outcome.status === 'not_on_sale') {
      counts.notOnSale++;
      run.closed = true;
    } else {
      counts.failed++;
      // An offer that may have landed is never sent twice.
      if (outcome.code === 'outcome_unknown') run.offered.set(liker, Date.now());
    }
  });
}

/** What a lost attempt says, short (its timeout type, or the failure's message). */
function activityFailure(reason: unknown): string {
  const cause = (reason as { cause?: unknown })?.cause ?? reason;
  return (cause instanceof Error ? cause.message : String(cause)).slice(0, 200);
}
