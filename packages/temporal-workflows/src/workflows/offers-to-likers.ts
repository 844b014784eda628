// Offers to likers: one workflow per listing (id `offers:<shopId>:<productId>`) receives its likes as
// signals (signalWithStart: the first like starts it). Each like waits `delayMs` on a durable timer,
// then one manual offer goes to the liker at `percentOff` (the activity prices it from the listing as it
// is then). A liker who had an offer within the lifetime (24 h) gets no other, however often they like;
// once the listing is no longer on sale every waiting and later like is skipped and the workflow ends.
// Signals, not updates: a burst of likes is not bounded by the 10 updates in flight per workflow. The
// per-liker memory keeps the last lifetime only, and a run continues as new after `likesPerRun` likes
// (or when the server suggests it), carrying what is waiting and what was offered.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.ts';
import type { LikeSignal, LikerOffersInput, LikerOffersState } from '../sales-types.ts';
import { LIKER_OFFERS_MESSAGES, likerOffersWorkflowId } from '../contract.ts';

const { sendLikerOffer } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500ms', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 10 },
});

export const likeSignal = defineSignal<[LikeSignal]>(LIKER_OFFERS_MESSAGES.likeSignal);
export const likerOffersStateQuery = defineQuery<LikerOffersState>(LIKER_OFFERS_MESSAGES.stateQuery);

export { likerOffersWorkflowId };

const DEFAULT_LIKES_PER_RUN = 500;
const MAX_OFFERS_PER_TURN = 50;

export async function likerOffersWorkflow(
  input: LikerOffersInput & { lifetimeMs: number },
): Promise<LikerOffersState> {
  const s = input.state;
  const pending = new Map<number, number>(s?.pending ?? []);
  const offered = new Map<number, number>(s?.offered ?? []);
  const counts = s?.counts ?? { likes: 0, sent: 0, repeated: 0, notOnSale: 0, failed: 0 };
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
  });

  setHandler(likeSignal, ({ likerId }) => {
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
  });
  setHandler(likerOffersStateQuery, state);

  const runFull = () =>
    likesThisRun >= (input.likesPerRun ?? DEFAULT_LIKES_PER_RUN) || workflowInfo().continueAsNewSuggested;
  const forget = () => {
    for (const [liker, at] of offered) if (Date.now() - at >= input.lifetimeMs) offered.delete(liker);
  };

  for (;;) {
    forget();
    if (closed) {
      counts.notOnSale += pending.size;
      pending.clear();
      await condition(allHandlersFinished);
      return state();
    }
    if (runFull()) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof likerOffersWorkflow>({ ...input, state: state() });
    }
    if (pending.size === 0) {
      // Nothing waits: remember the offered likers until their lifetime ends, then finish (a later like
      // starts a new run through signalWithStart).
      if (offered.size === 0) {
        await condition(allHandlersFinished);
        if (pending.size === 0) return state();
        continue;
      }
      const firstExpiry = Math.min(...offered.values()) + input.lifetimeMs;
      await condition(() => pending.size > 0 || runFull(), Math.max(1, firstExpiry - Date.now()));
      continue;
    }
    // Every like waits the same delay, so the earliest due is the oldest: wait until then (a timer),
    // or until the run is full and continues as new (its likes carried along).
    const due = Math.min(...pending.values());
    if (due > Date.now()) {
      await condition(runFull, due - Date.now());
      if (runFull()) continue;
    }
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
