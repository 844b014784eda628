// One entity workflow per connected seller (id `auth:<sellerId>`), the one owner of token rotation: it
// refreshes the seller's OAuth tokens shortly before they expire (never more often than
// MIN_PROACTIVE_MS, whatever the tokens' lifetime) and on demand (after a 401), with exactly one refresh
// in flight, and on `invalid_grant` enters a visible "reauthorization_required" state instead of
// looping. Tokens never enter history: the activity keeps them in the worker's token store and returns
// only a version and an expiry.
import {
  ActivityFailure,
  allHandlersFinished,
  continueAsNew,
  deprecatePatch,
  workflowInfo,
  ApplicationFailure,
  condition,
  proxyActivities,
  setHandler,
  sleep,
  type RetryPolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { REFRESH_ACTIVITY, sellerAuthWorkflowId } from '../contract.ts';
import { REFUSING_UPDATE, refuseInput } from './refuse.ts';
import {
  authStateQuery,
  reconnectUpdate,
  refreshUpdate,
  type SellerAuthInput,
  type SellerAuthState,
} from './messages.ts';

/** Proactive refreshes are at least this far apart: tokens that live seconds cause no refresh storm. */
export const MIN_PROACTIVE_MS = 30_000;
/**
 * Patch ids of 0.2, deprecated in 0.4 (every supported run has them; README, "Changing workflow code"):
 * the calls stay where their markers were recorded until a release removes them.
 */
const HALF_LIFE_PATCH = 'refresh-ahead-half-life';
const REAUTH_CONTINUE_PATCH = 'reauth-continue-as-new';

const retry: RetryPolicy = {
  initialInterval: '1s',
  maximumInterval: '1 minute',
  maximumAttempts: 20,
  nonRetryableErrorTypes: ['ReauthorizationRequired'],
};
const { refreshSellerTokens } = proxyActivities<Activities>({
  startToCloseTimeout: REFRESH_ACTIVITY.startToCloseMs,
  heartbeatTimeout: REFRESH_ACTIVITY.heartbeatMs,
  retry,
});
const { describeSellerTokens } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry });

export { sellerAuthWorkflowId };

export async function sellerAuthWorkflow(
  input: SellerAuthInput,
  carry?: { refreshes: number; reauthorization?: string },
): Promise<SellerAuthState> {
  refuseInput(input, carry);
  const ahead = input.refreshAheadMs ?? 5 * 60_000;
  // Handlers first: queries and updates may arrive before the first activity completes.
  const s: SellerAuthState = { state: 'active', version: 0, expiresAt: 0, refreshes: carry?.refreshes ?? 0 };
  let handled = 0;
  let ready = false;
  let inFlight: Promise<void> | undefined;
  let failedAt: number | undefined;
  /** How long the current tokens lived when their expiry became known; when the last proactive refresh ran. */
  let lifetime = Infinity;
  let proactiveAt: number | undefined;
  const learnt = (expiresAt: number) => {
    s.expiresAt = expiresAt;
    lifetime = expiresAt - Date.now();
  };

  // Single flight: every caller during a refresh waits for that same refresh.
  const refresh = (): Promise<void> => {
    inFlight ??= (async () => {
      try {
        const next = await refreshSellerTokens(input.tokenRef, s.version + 1);
        // The store's version (another process or a new login may have moved it); older results had none.
        s.version = next.version ?? s.version + 1;
        if (next.rotated !== false) s.refreshes++;
        learnt(next.expiresAt);
      } catch (error) {
        const cause = error instanceof ActivityFailure ? error.cause : error;
        s.reason = (cause as Error).message;
        if (cause instanceof ApplicationFailure && cause.type === 'ReauthorizationRequired')
          s.state = 'reauthorization_required';
        else failedAt = Date.now(); // transient trouble outlasted the activity's retries: try again later
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  setHandler(authStateQuery, () => ({ ...s }));
  setHandler(
    refreshUpdate,
    async ({ seenVersion }) => {
      handled++;
      await condition(() => ready);
      if (s.state === 'active' && seenVersion >= s.version) await refresh();
      else if (inFlight) await inFlight;
      return { ...s };
    },
    REFUSING_UPDATE,
  );

  /** (Re)reads the seller's tokens from the worker's store: version and expiry, never the tokens. */
  const describe = async () => {
    try {
      const described = await describeSellerTokens(input.tokenRef);
      learnt(described.expiresAt);
      s.version = described.version;
      s.state = 'active';
      s.reason = undefined;
    } catch (error) {
      s.state = 'reauthorization_required';
      s.reason = ((error instanceof ActivityFailure ? error.cause : error) as Error).message;
    }
  };
  // The seller went through the consent page again and the app stored the new tokens.
  setHandler(
    reconnectUpdate,
    async () => {
      handled++;
      await condition(() => ready && !inFlight);
      await describe();
      return { ...s };
    },
    REFUSING_UPDATE,
  );

  if (carry?.reauthorization !== undefined) {
    // Continued as new while waiting for the seller: still waiting (the store's tokens are refused).
    s.state = 'reauthorization_required';
    s.reason = carry.reauthorization;
  } else await describe();
  ready = true;

  /** Time until the next proactive refresh. */
  const dueIn = (): number => {
    deprecatePatch(HALF_LIFE_PATCH);
    // Tokens that live less than `ahead`: refresh at half their life, and never back to back.
    const due = Math.ceil(s.expiresAt - Math.min(ahead, Math.max(0, lifetime) / 2) - Date.now());
    return proactiveAt === undefined ? due : Math.max(due, proactiveAt + MIN_PROACTIVE_MS - Date.now());
  };

  for (;;) {
    while (s.state === 'active') {
      if (handled >= 500 || workflowInfo().continueAsNewSuggested) {
        await condition(() => !inFlight);
        await condition(allHandlersFinished);
        return await continueAsNew<typeof sellerAuthWorkflow>(input, { refreshes: s.refreshes });
      }
      const due = dueIn();
      if (due > 0) {
        const version = s.version;
        // Wake at the due time, or earlier when an on-demand refresh already renewed the tokens.
        await condition(() => s.version !== version || s.state !== 'active' || handled >= 500, due);
        if (s.version !== version || handled >= 500) continue;
      }
      if (s.state === 'active') {
        await refresh();
        proactiveAt = Date.now();
      }
      if (failedAt !== undefined) {
        failedAt = undefined;
        await sleep('5 minutes');
      }
    }
    // Reauthorization required: stay visible (query; every update answers the state) and refresh
    // nothing until the seller reconnects (reconnect update) — or give up after 30 days. Updates that
    // keep coming meanwhile count towards continue-as-new too.
    deprecatePatch(REAUTH_CONTINUE_PATCH);
    const active = () => s.state === 'active'; // read after the wait (not narrowed by the loop above)
    if (!(await condition(() => active() || handled >= 500, '30 days'))) return { ...s };
    if (!active()) {
      await condition(allHandlersFinished);
      return await continueAsNew<typeof sellerAuthWorkflow>(input, {
        refreshes: s.refreshes,
        reauthorization: s.reason ?? 'reauthorization required',
      });
    }
  }
}
