// Retry delays: exponential backoff with full jitter (delay = random() × min(cap, base × 2^attempt)),
// the scheme that spreads a crowd of retrying clients best. Pure; `random` is injectable for tests.
// The core cannot take a retry library: n8n community nodes may have no runtime dependencies.

export interface RetryOptions {
  /** Retries after 5xx, 504s of idempotent calls and network failures (0 = none). Default 3. */
  maxRetries: number;
  /** Retries after 429 answers (they were not processed, so any call may repeat). Default 5. */
  maxRateLimitRetries: number;
  /** First backoff ceiling, ms. Default 500. */
  baseDelayMs: number;
  /** Largest backoff ceiling, ms. Default 20 000. */
  maxDelayMs: number;
  /** A 429 asking to wait longer than this fails at once with RateLimitedError. Default 60 000. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: 3,
  maxRateLimitRetries: 5,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
};

/** Full-jitter delay before retry number `retry` (0 = the first retry). Always in [0, ceiling). */
export function backoffDelay(
  retry: number,
  options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * backoffCeiling(retry, options));
}

/** min(cap, base × 2^retry): the upper bound of the jittered delay. */
export function backoffCeiling(
  retry: number,
  options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>,
): number {
  const exp = options.baseDelayMs * 2 ** Math.min(Math.max(0, retry), 30);
  return Math.min(options.maxDelayMs, exp);
}
