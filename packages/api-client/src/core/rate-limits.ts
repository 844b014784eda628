// The spec's rate-limit table, in one place: the simulator enforces it, the client paces by it, and the
// durable jobs' pacing (temporal-workflows' pacing.ts, app-budget.ts) derives its allowances from it.
// No imports: workflow code reads it through the `@selling-kit/api-client/rate-limits` subpath, which
// must stay free of zod and I/O (the worker bundles it into the workflow sandbox). A change here changes
// the decisions of running bulk jobs: it is a workflow release (temporal-workflows README, "Changing
// workflow code").
export type RateGroup = 'create_update' | 'insights' | 'general';

export interface Allowance {
  /** Requests allowed per window. */
  limit: number;
  /** Window length in milliseconds. */
  windowMs: number;
}

/** Per shop (API key) or per connected seller (OAuth), per group. */
export const RATE_LIMITS: Record<RateGroup, Allowance> = {
  create_update: { limit: 200, windowMs: 10_000 },
  insights: { limit: 600, windowMs: 300_000 },
  general: { limit: 6_000, windowMs: 60_000 },
};

/** Cross-listers only: every request of the OAuth application, across all sellers. */
export const APP_WIDE_LIMIT: Allowance = { limit: 30_000, windowMs: 60_000 };

/** The spec's advice for bulk creates and full updates, per shop or seller. */
export const BULK_CREATE_PACE_PER_SECOND = 20;
