// One entity workflow per connected seller (id `auth:<sellerId>`): it refreshes the seller's OAuth
// tokens shortly before they expire and on demand (after a 401), with exactly one refresh in flight,
// and on `invalid_grant` enters a visible "reauthorization_required" state instead of looping. Tokens
// never enter history: the activity keeps them in the worker's token store and returns only a version
// and an expiry.
import {
  ActivityFailure,
  allHandlersFinished,
  continueAsNew,
  workflowInfo,
  ApplicationFailure,
  condition,
  defineQuery,
  defineUpdate,
  proxyActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.ts';

export interface SellerAuthInput {
  sellerId: string;
  /** Name of the seller's tokens in the worker's token store (and of the OAuth app's credentials). */
  tokenRef: string;
  /** Refresh this long before expiry (default 5 minutes). */
  refreshAheadMs?: number;
}

export interface SellerAuthState {
  state: 'active' | 'reauthorization_required';
  /** Bumped by every refresh; callers pass the version they saw to skip a needless refresh. */
  version: number;
  expiresAt: number;
  refreshes: number;
  reason?: string;
}

export const authStateQuery = defineQuery<SellerAuthState>('authState');
/** On-demand refresh after a 401: `seenVersion` is the token version the caller was using. */
export const refreshUpdate = defineUpdate<SellerAuthState, [{ seenVersion: number }]>('refresh');
/** The seller authorised the app again and the new tokens are in the store: back to active. */
export const reconnectUpdate = defineUpdate<SellerAuthState>('reconnect');

const { refreshSellerTokens, describeSellerTokens } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1s',
    maximumInterval: '1 minute',
    maximumAttempts: 20,
    nonRetryableErrorTypes: ['ReauthorizationRequired'],
  },
});

export const sellerAuthWorkflowId = (sellerId: string) => `auth:${sellerId}`;

export async function sellerAuthWorkflow(
  input: SellerAuthInput,
  carry?: { refreshes: number },
): Promise<SellerAuthState> {
  const ahead = input.refreshAheadMs ?? 5 * 60_000;
  // Handlers first: queries and updates may arrive before the first activity completes.
  const s: SellerAuthState = { state: 'active', version: 0, expiresAt: 0, refreshes: carry?.refreshes ?? 0 };
  let handled = 0;
  let ready = false;
  let inFlight: Promise<void> | undefined;
  let failedAt: number | undefined;

  // Single flight: every caller during a refresh waits for that same refresh.
  const refresh = (): Promise<void> => {
    inFlight ??= (async () => {
      try {
        const next = await refreshSellerTokens(input.tokenRef, s.version + 1);
        s.version++;
        s.refreshes++;
        s.expiresAt = next.expiresAt;
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
  setHandler(refreshUpdate, async ({ seenVersion }) => {
    handled++;
    await condition(() => ready);
    if (s.state === 'active' && seenVersion >= s.version) await refresh();
    else if (inFlight) await inFlight;
    return { ...s };
  });

  /** (Re)reads the seller's tokens from the worker's store: version and expiry, never the tokens. */
  const describe = async () => {
    try {
      const described = await describeSellerTokens(input.tokenRef);
      s.expiresAt = described.expiresAt;
      s.version = described.version;
      s.state = 'active';
      s.reason = undefined;
    } catch (error) {
      s.state = 'reauthorization_required';
      s.reason = ((error instanceof ActivityFailure ? error.cause : error) as Error).message;
    }
  };
  // The seller went through the consent page again and the app stored the new tokens.
  setHandler(reconnectUpdate, async () => {
    handled++;
    await condition(() => ready && !inFlight);
    await describe();
    return { ...s };
  });

  await describe();
  ready = true;

  for (;;) {
    while (s.state === 'active') {
      if (handled >= 500 || workflowInfo().continueAsNewSuggested) {
        await condition(() => !inFlight);
        await condition(allHandlersFinished);
        return await continueAsNew<typeof sellerAuthWorkflow>(input, { refreshes: s.refreshes });
      }
      const due = s.expiresAt - ahead - Date.now();
      if (due > 0) {
        const version = s.version;
        // Wake at the due time, or earlier when an on-demand refresh already renewed the tokens.
        await condition(() => s.version !== version || s.state !== 'active' || handled >= 500, due);
        if (s.version !== version || handled >= 500) continue;
      }
      if (s.state === 'active') await refresh();
      if (failedAt !== undefined) {
        failedAt = undefined;
        await sleep('5 minutes');
      }
    }
    // Reauthorization required: stay visible (query; every update answers the state) and refresh
    // nothing until the seller reconnects (reconnect update) — or give up after 30 days.
    if (!(await condition(() => s.state === 'active', '30 days'))) return { ...s };
  }
}
