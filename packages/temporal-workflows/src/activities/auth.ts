// Activities of the seller's auth entity workflow (workflows/seller-auth.ts), the one owner of rotation:
// read a seller's token version and expiry, refresh with rotation. Tokens stay in the worker's token
// store (shared by every worker process, compare-and-set on the version); only versions and expiries
// travel through history.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { createClient, ReauthorizationRequiredError, type TokenSet } from '@selling-kit/api-client';
import type { SellerTokens, TokenStore } from './clients.ts';
import type { ActivityContext } from './context.ts';
import { countRefresh } from '../observability/metrics.ts';
import { REFRESH_ACTIVITY } from '../contract.ts';

/**
 * One token call, no client retries (the activity's retries re-read the store first), ending well within
 * the attempt's start-to-close timeout: an attempt never outlives itself and overlaps the next one.
 */
const REFRESH_CALL = {
  timeoutMs: REFRESH_ACTIVITY.startToCloseMs / 4,
  totalTimeoutMs: REFRESH_ACTIVITY.startToCloseMs / 3,
  maxRetries: 0,
};
/** Heartbeats while the token endpoint answers (a dead worker's attempt is retried sooner). */
const BEAT_MS = REFRESH_ACTIVITY.heartbeatMs / 4;
/** Tries to store a rotated pair: the old refresh token is spent, the new one only in memory. */
const STORE_TRIES = 3;

export interface RefreshResult {
  expiresAt: number;
  /** The store's version now (absent in histories written before the store kept versions). */
  version?: number;
  /** false: the store already held newer tokens (another process rotated, or a new login); none spent. */
  rotated?: boolean;
}

/** The running activity's context; none when the function is called outside a worker. */
function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

const reauthorize = (message: string) => {
  countRefresh('reauthorize');
  return ApplicationFailure.nonRetryable(message, 'ReauthorizationRequired');
};

async function stored(store: TokenStore | undefined, ref: string): Promise<SellerTokens> {
  const t = await store?.get(ref);
  if (!t) throw reauthorize(`no tokens named "${ref}" in the worker's token store`);
  return t;
}

/** The store already holds the wanted version (or newer): nothing rotated, nothing spent. */
const settled = (t: SellerTokens): RefreshResult => {
  countRefresh('settled');
  return { expiresAt: t.expiresAt, version: t.version ?? 0, rotated: false };
};

export function createAuthActivities({ deps }: Pick<ActivityContext, 'deps'>) {
  return {
    /** The seller's token expiry and version (no token leaves the worker). */
    async describeSellerTokens(tokenRef: string): Promise<{ expiresAt: number; version: number }> {
      const t = await stored(deps.tokens, tokenRef);
      return { expiresAt: t.expiresAt, version: t.version ?? 0 };
    },

    /**
     * Brings the seller's tokens to `version` (the workflow's next one) by one rotation, unless the
     * store is there already. The rotated pair is stored (compare-and-set on the version read) before
     * anything uses it. invalid_grant is final only when the store still holds the refresh token sent:
     * if it moved on meanwhile (another process, an earlier attempt, a new login), its tokens win.
     */
    async refreshSellerTokens(tokenRef: string, version: number): Promise<RefreshResult> {
      const store = deps.tokens;
      const start = await stored(store, tokenRef);
      const startVersion = start.version ?? 0;
      if (startVersion >= version) return settled(start);
      const ctx = activityContext();
      const beat = ctx && setInterval(() => ctx.heartbeat(), BEAT_MS);
      const client = createClient({
        baseUrl: start.baseUrl,
        oauth: { clientId: start.clientId, clientSecret: start.clientSecret },
        pacing: false,
        retry: { maxRetries: 0, maxRateLimitRetries: 0 },
      });
      try {
        let next: TokenSet;
        try {
          next = await client.auth.refresh(
            { refreshToken: start.refreshToken },
            { ...REFRESH_CALL, signal: ctx?.cancellationSignal },
          );
        } catch (error) {
          if (!(error instanceof ReauthorizationRequiredError)) throw error;
          const now = await store!.get(tokenRef);
          if (now && ((now.version ?? 0) !== startVersion || now.refreshToken !== start.refreshToken))
            return settled(now);
          throw reauthorize('the seller must authorise the application again (invalid_grant)');
        }
        const expiresAt = next.expiresAt ?? Date.now() + 3600_000;
        const tokens = {
          ...start,
          accessToken: next.accessToken,
          refreshToken: next.refreshToken,
          expiresAt,
        };
        for (let attempt = 1; ; attempt++) {
          try {
            // (A store written for the older interface answers nothing: written, without the check.)
            if (
              (await store!.set(tokenRef, { ...tokens, version: startVersion + 1 }, startVersion)) !== false
            ) {
              countRefresh('rotated');
              return { expiresAt, version: startVersion + 1, rotated: true };
            }
            // Written meanwhile (a new login): those tokens win; this pair is simply not used.
            return settled(await stored(store, tokenRef));
          } catch (error) {
            if (attempt >= STORE_TRIES || (error instanceof ApplicationFailure && error.nonRetryable))
              throw error;
            await new Promise((r) => setTimeout(r, 200 * attempt));
          }
        }
      } finally {
        if (beat) clearInterval(beat);
        await client.close();
      }
    },
  };
}
