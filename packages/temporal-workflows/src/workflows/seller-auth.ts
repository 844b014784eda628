// One entity workflow per connected seller (id `auth:<sellerId>`): it refreshes the seller's OAuth
// tokens shortly before they expire and on demand (after a 401), with exactly one refresh in flight,
// and on `invalid_grant` enters a visible "reauthorization_required" state instead of looping. Tokens
// never enter history: the activity keeps them in the worker's token store and returns only a version
// and an expiry.
import {
  ActivityFailure,
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

export async function sellerAuthWorkflow(input: SellerAuthInput): Promise<SellerAuthState> {
  const ahead = input.refreshAheadMs ?? 5 * 60_000;
  // Handlers first: queries and updates may arrive before the first activity completes.
  const s: SellerAuthState = { state: 'active', version: 0, expiresAt: 0, refreshes: 0 };
  let ready = false;
  let inFlight: Promise<void> | undefined;
  let failedAt: number | undefined;

  // Single flight: every caller during a refresh waits for that same refresh.
  const refresh = (): Promise<void> => {
    inFlight ??= (async () => {
      try {
        const next = await refreshSellerTokens(input.tokenRef);
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
    await condition(() => ready);
    if (s.state === 'active' && seenVersion >= s.version) await refresh();
    else if (inFlight) await inFlight;
    return { ...s };
  });

  try {
    s.expiresAt = (await describeSellerTokens(input.tokenRef)).expiresAt;
  } catch (error) {
    s.state = 'reauthorization_required';
    s.reason = ((error instanceof ActivityFailure ? error.cause : error) as Error).message;
  }
  ready = true;

  while (s.state === 'active') {
    const due = s.expiresAt - ahead - Date.now();
    if (due > 0) {
      const version = s.version;
      // Wake at the due time, or earlier when an on-demand refresh already renewed the tokens.
      await condition(() => s.version !== version || s.state !== 'active', due);
      if (s.version !== version) continue;
    }
    if (s.state === 'active') await refresh();
    if (failedAt !== undefined) {
      failedAt = undefined;
      await sleep('5 minutes');
    }
  }
  // Reauthorization required: stay visible (query, updates answer the state) until the seller reconnects
  // and a new run is started.
  await condition(() => false, '30 days');
  return { ...s };
}
