// Simulator settings: every number a test may want to change, with the spec's defaults.
import {
  RATE_LIMITS,
  APP_WIDE_LIMIT,
  DEFAULT_MIN_PERCENT_OFF,
  type Allowance,
  type RateGroup,
} from '@selling-kit/api-client/core';

export interface SimulatorConfig {
  /** Simulated seconds per real second: 10 shrinks a 10 s rate window to 1 real second. */
  timeScale: number;
  /** Access-token lifetime (simulated seconds). Spec: 1 hour. */
  accessTokenTtlSec: number;
  /** Refresh-token lifetime (simulated seconds). Public reference: 1 year, not extended by rotation. */
  refreshTokenTtlSec: number;
  /** Minimum percentage below the price for offers and auto-negotiate prices. */
  minPercentOff: number;
  rateLimits: Record<RateGroup, Allowance>;
  appWideLimit: Allowance;
  /** false lifts every limit (benchmarks). */
  rateLimitsEnabled: boolean;
  /** Largest accepted request body in bytes; larger → 413 without touching state. */
  bodyLimitBytes: number;
  /** Fetch each picture URL at request time (loopback in tests). false accepts any URL unchecked. */
  fetchPictures: boolean;
  pictureFetchTimeoutMs: number;
  /** Seed of the fault generator, so a run's faults can be reproduced. */
  seed: number;
  /**
   * Read-after-create delay (simulated ms): a just-created listing answers product_not_found on GET by
   * key until this much time has passed (spec: "a just-created listing may need a short delay").
   */
  readAfterCreateDelayMs: number;
  /** SPEC GAP: authorization-code lifetime (simulated seconds). Ours: 10 minutes (RFC 6749 advises ≤ 10 min). */
  authCodeTtlSec: number;
  /** SPEC GAP: longest accepted request URL (path + query) in characters; longer → 414. */
  maxUrlLength: number;
  /** Webhook delivery: attempts in all (1 = no retry). SPEC GAP: 5. */
  webhookMaxAttempts: number;
  /** Delay before the first retry (simulated ms); doubles for each later retry. SPEC GAP: 1 s, 2 s, 4 s, 8 s. */
  webhookRetryBaseDelayMs: number;
  /** How long one delivery attempt may take (real ms) before it counts as failed. */
  webhookTimeoutMs: number;
  /** When set, the admin listener requires `Authorization: Bearer <adminToken>`. Unset: open (loopback only). */
  adminToken?: string;
}

export type SimulatorConfigOverrides = Omit<Partial<SimulatorConfig>, 'rateLimits'> & {
  rateLimits?: Partial<Record<RateGroup, Allowance>>;
};

export function defaultConfig(overrides: SimulatorConfigOverrides = {}): SimulatorConfig {
  return {
    timeScale: 1,
    accessTokenTtlSec: 3600,
    refreshTokenTtlSec: 365 * 24 * 3600,
    minPercentOff: DEFAULT_MIN_PERCENT_OFF,
    appWideLimit: { ...APP_WIDE_LIMIT },
    rateLimitsEnabled: true,
    bodyLimitBytes: 1024 * 1024,
    fetchPictures: true,
    pictureFetchTimeoutMs: 5000,
    seed: 1,
    readAfterCreateDelayMs: 0,
    authCodeTtlSec: 600,
    maxUrlLength: 4096,
    webhookMaxAttempts: 5,
    webhookRetryBaseDelayMs: 1000,
    webhookTimeoutMs: 5000,
    ...overrides,
    // Partial group overrides keep the other groups' spec values.
    rateLimits: { ...structuredClone(RATE_LIMITS), ...overrides.rateLimits },
  };
}
