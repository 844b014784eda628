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
import type { createActivities } from '../activities/index.ts';
import type { LikerOfferOutcome, LikerOffersInput, LikerOffersState } from '../webhooks/sales-types.ts';
import { likerOffersWorkflowId } from '../contract.ts';
import { DEFAULT_ALLOWANCES, type AcquireResult, type SlotReport } from './pacing.ts';
import { guardSignal, refuseInput } from './refuse.ts';
import { likeSignal, likerOffersStateQuery } from './messages.ts';

type Activities = ReturnType<typeof createActivities>;

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
const { acquireSlots } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200ms', maximumInterval: '5s', maximumAttempts: 8 },
});

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

// eslint-disable-next-line max-lines-per-function -- over the house's limit: to be split (issue 25)
export async function likerOffersWorkflow(
  input: LikerOffersInput & { lifetimeMs: number },
): Promise<LikerOffersState> {
  refuseInput(input);
  const s = input.state;
  const pending = new Map<number, number>(s?.pending ?? []);
  const offered = new Map<number, number>(s?.offered ?? []);
  const counts = s?.counts ?? { likes: 0, sent: 0, repeated: 0, notOnSale: 0, failed: 0 };
  const failures: Record<string, number> = { ...s?.failures };
  let lastFailure = s?.lastFailure;
  const tries = new Map<number, number>(s?.tries ?? []);
  let laneUsed = s?.laneUsed ?? false;
  let closed = s?.closed ?? false;
  const runs = (s?.runs ?? 0) + 1;
  /** Offers being sent now (a like arriving meanwhile must not queue a second one). */
  const inFlight = new Set<number>();
  let likesThisRun = 0;
  const state = (): LikerOffersState => ({
    pending: [...pending],
    offered: [...offered],
    closed,
    counts: { ...counts },
    runs,
    ...(Object.keys(failures).length ? { failures: { ...failures } } : {}),
    ...(lastFailure ? { lastFailure } : {}),
    ...(tries.size ? { tries: [...tries] } : {}),
    ...(laneUsed ? { laneUsed } : {}),
  });

  setHandler(
    likeSignal,
    guardSignal('likeSignal', ({ likerId }) => {
      counts.likes++;
      likesThisRun++;
      if (closed) {
        counts.notOnSale++;
        return;
      }
      const at = offered.get(likerId);
      if (
        pending.has(likerId) ||
        inFlight.has(likerId) ||
        (at !== undefined && Date.now() - at < input.lifetimeMs)
      ) {
        counts.repeated++;
        return;
      }
      pending.set(likerId, Date.now() + input.delayMs);
    }),
  );
  setHandler(likerOffersStateQuery, state);

  const runFull = () =>
    likesThisRun >= (input.likesPerRun ?? DEFAULT_LIKES_PER_RUN) || workflowInfo().continueAsNewSuggested;
  const forget = () => {
    for (const [liker, at] of offered) if (Date.now() - at >= input.lifetimeMs) offered.delete(liker);
  };

  // --- Pacing (0.4) ---------------------------------------------------------------------------------
  // Offers go through the shop's lane for the general group, the ring every bulk job of the shop asks
  // (pacing.ts), rather than at a fixed rate of their own: the lane is the one place that knows the shop's
  // allowance and what its jobs use, so offers share the jobs' part (5,700 of 6,000 a minute) and never
  // the 5 % kept back for sales — a fixed rate per listing would not be bounded per shop (a hundred
  // listings liked at once) and would still land in that reserve. One slot is held and spent over the
  // turns until its deadline (a slot carries ~285 requests at the default allowance: a viral listing's
  // 500 likes take four slots, not a minute's whole allowance), then handed back with when it was last
  // used. No app-budget share is asked: offers go in whatever share the shop's jobs hold (an OAuth shop's
  // lane whose share has lapsed, its app-budget jobs ended, grants nothing until one renews it — offers wait,
  // kept, as a bulk job without `appBudget` on that lane would).
  interface Held {
    slots: number[];
    /** Requests the slot may still carry. */
    left: number;
    notBefore: number;
    deadline: number;
    /** When the last answer sent with it came back (workflow clock), null: unused. */
    lastAt: number | null;
  }
  let held: Held | undefined;
  let retryAfterMs: number | undefined;
  let acquires = 0;
  /** The lane's answer, or undefined when it did not answer (logged; the caller waits and asks again). */
  const ask = async (want: number, report: SlotReport[]): Promise<AcquireResult | undefined> => {
    const info = workflowInfo();
    try {
      const answer = await acquireSlots({
        shop: input.shop,
        group: 'general',
        lane: { allowance: DEFAULT_ALLOWANCES.general },
        request: {
          jobId: info.workflowId,
          want,
          report,
          retryAfterMs,
          usedBefore: laneUsed,
          // Deterministic: a retried activity repeats the same update, which the lane answers once.
          updateId: `${info.workflowId}/${info.runId}/lane-${++acquires}`,
        },
      });
      retryAfterMs = undefined;
      return answer;
    } catch (error) {
      log.warn('the shop lane did not answer: offers wait', { error: String(error) });
      return undefined;
    }
  };
  /** Hands the held slot back (with when it was last used), so the shop's jobs may use it. */
  const release = async () => {
    if (!held) return;
    const { slots, lastAt } = held;
    held = undefined;
    await ask(
      0,
      slots.map((slot) => ({ slot, lastAt })),
    );
  };
  /** Slots asked for at once: more than one only when one slot cannot carry an offer (a tiny allowance). */
  let want = 1;
  /** A slot with room for one more offer, or undefined after waiting what the lane said. */
  const capacity = async (): Promise<Held | undefined> => {
    if (held && held.left >= REQUESTS_PER_OFFER && Date.now() < held.deadline) return held;
    const report = held ? held.slots.map((slot) => ({ slot, lastAt: held!.lastAt })) : [];
    held = undefined;
    const grant = await ask(want, report);
    if (!grant || grant.slots.length === 0) {
      await condition(runFull, grant ? Math.max(grant.waitMs, MIN_WAIT_MS) : LANE_RETRY_MS);
      return undefined;
    }
    laneUsed = true;
    held = {
      slots: [...new Set(grant.slots.map((g) => g.slot))],
      left: grant.slots.reduce((sum, g) => sum + (g.size ?? grant.slotSize), 0),
      notBefore: Math.max(...grant.slots.map((g) => g.notBefore)),
      deadline: grant.deadline,
      lastAt: null,
    };
    if (held.left < REQUESTS_PER_OFFER) {
      // Too small for one offer: handed back unused with the next ask, which asks for enough slots.
      want = Math.min(REQUESTS_PER_OFFER, want + 1);
      await condition(runFull, MIN_WAIT_MS);
      return undefined;
    }
    return held;
  };
  /** `condition(until, ms)`, handing the held slot back once its deadline passes meanwhile. */
  const idle = async (until: () => boolean, ms: number): Promise<boolean> => {
    if (held && Date.now() + ms > held.deadline) {
      const end = Date.now() + ms;
      if (await condition(until, Math.max(1, held.deadline - Date.now()))) return true;
      await release();
      return condition(until, Math.max(1, end - Date.now()));
    }
    return condition(until, ms);
  };

  const fail = (likerId: number, code: string, detail?: string) => {
    counts.failed++;
    const key = code in failures || Object.keys(failures).length < MAX_FAILURE_CODES ? code : 'other';
    failures[key] = (failures[key] ?? 0) + 1;
    lastFailure = { likerId, code, at: Date.now(), ...(detail ? { detail } : {}) };
  };

  /** One turn of 0.4: a slot's worth of due offers, each settled on its own. */
  const sendSettled = async () => {
    const slot = await capacity();
    if (!slot) return;
    if (slot.notBefore > Date.now()) await sleep(slot.notBefore - Date.now());
    const now = Date.now();
    const n = Math.min(MAX_OFFERS_PER_TURN, Math.max(1, Math.floor(slot.left / REQUESTS_PER_OFFER)));
    const ready = [...pending]
      .filter(([, at]) => at <= now)
      .slice(0, n)
      .map(([liker]) => liker);
    if (ready.length === 0) return;
    slot.left -= ready.length * REQUESTS_PER_OFFER;
    for (const liker of ready) {
      pending.delete(liker);
      inFlight.add(liker);
    }
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
      inFlight.delete(liker);
      // The activity answers every API outcome: a failure is its attempt lost (timed out, its worker
      // gone) after the offer may have left.
      const outcome: LikerOfferOutcome =
        settled.status === 'fulfilled'
          ? settled.value
          : { status: 'failed', code: 'outcome_unknown', detail: activityFailure(settled.reason) };
      if (outcome.status !== 'retry') tries.delete(liker);
      if (outcome.status === 'sent') {
        counts.sent++;
        offered.set(liker, at);
      } else if (outcome.status === 'not_on_sale') {
        counts.notOnSale++;
        closed = true;
      } else if (outcome.status === 'retry') {
        const n = (tries.get(liker) ?? 0) + 1;
        if (outcome.retryAfterMs !== undefined) {
          // The shop is over its allowance: the lane hears it, and this slot is not used again.
          retryAfterMs = Math.max(retryAfterMs ?? 0, outcome.retryAfterMs);
          slot.left = 0;
        }
        if (n >= MAX_OFFER_TRIES) {
          tries.delete(liker);
          fail(liker, outcome.code, `gave up after ${n} tries`);
          return;
        }
        tries.set(liker, n);
        counts.retried = (counts.retried ?? 0) + 1;
        const backoff = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (n - 1));
        pending.set(liker, at + Math.max(backoff, outcome.retryAfterMs ?? 0));
      } else {
        fail(liker, outcome.code, outcome.detail);
        if (outcome.code === 'outcome_unknown') {
          // Never sent twice: it may have landed.
          counts.inDoubt = (counts.inDoubt ?? 0) + 1;
          offered.set(liker, at);
        }
      }
    });
  };

  for (;;) {
    forget();
    if (closed) {
      counts.notOnSale += pending.size;
      pending.clear();
      tries.clear();
      await release();
      await condition(allHandlersFinished);
      return state();
    }
    if (runFull()) {
      await release();
      await condition(allHandlersFinished);
      await continueAsNew<typeof likerOffersWorkflow>({ ...input, state: state() });
    }
    if (pending.size === 0) {
      // Nothing waits: remember the offered likers until their lifetime ends, then finish (a later like
      // starts a new run through signalWithStart).
      if (offered.size === 0) {
        await release();
        await condition(allHandlersFinished);
        if (pending.size === 0) return state();
        continue;
      }
      const firstExpiry = Math.min(...offered.values()) + input.lifetimeMs;
      await idle(() => pending.size > 0 || runFull(), Math.max(1, firstExpiry - Date.now()));
      continue;
    }
    // Every like waits the same delay, so the earliest due is the oldest: wait until then (a timer),
    // or until the run is full and continues as new (its likes carried along).
    const due = Math.min(...pending.values());
    if (due > Date.now()) {
      await idle(runFull, due - Date.now());
      if (runFull()) continue;
    }
    if (patched(OFFERS_SETTLED_PATCH)) {
      await sendSettled();
      continue;
    }
    // Runs recorded before 0.4, replayed as they ran.
    const now = Date.now();
    // At most MAX_OFFERS_PER_TURN activities at once: a burst of likes is served turn after turn.
    const ready = [...pending]
      .filter(([, at]) => at <= now)
      .slice(0, MAX_OFFERS_PER_TURN)
      .map(([liker]) => liker);
    for (const liker of ready) {
      pending.delete(liker);
      inFlight.add(liker);
    }
    const outcomes = await Promise.all(
      ready.map((liker) =>
        sendLikerOffer(input.shop, input.productId, liker, input.percentOff, input.minPercentOff),
      ),
    );
    outcomes.forEach((outcome, i) => {
      const liker = ready[i]!;
      inFlight.delete(liker);
      if (outcome.status === 'sent') {
        counts.sent++;
        offered.set(liker, Date.now());
      } else if (outcome.status === 'not_on_sale') {
        counts.notOnSale++;
        closed = true;
      } else {
        counts.failed++;
        // An offer that may have landed is never sent twice.
        if (outcome.code === 'outcome_unknown') offered.set(liker, Date.now());
      }
    });
  }
}

/** What a lost attempt says, short (its timeout type, or the failure's message). */
function activityFailure(reason: unknown): string {
  const cause = (reason as { cause?: unknown })?.cause ?? reason;
  return (cause instanceof Error ? cause.message : String(cause)).slice(0, 200);
}
