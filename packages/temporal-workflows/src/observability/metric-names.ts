// The names of selling-kit's own worker metrics, one home for workflows, activities, the docs and the
// tests. Workflow-safe (no imports). Temporal's runtime exports them on the worker's Prometheus endpoint
// beside its own `temporal_*` metrics, under these names (counters without a `_total` suffix; histograms
// as `_bucket` / `_sum` / `_count`). Workflow metrics also carry namespace, taskQueue and workflowType.

export const ITEMS_METRIC = {
  name: 'selling_kit_items',
  description: 'Bulk-job items settled, by operation and outcome (ok, failed, invalid, cancelled)',
} as const;

export const REQUESTS_METRIC = {
  name: 'selling_kit_requests',
  description: 'Selling API requests answered, by rate group and status class (2xx, 4xx, 429, 5xx, network)',
} as const;

export const RATE_LIMITED_METRIC = {
  name: 'selling_kit_rate_limited',
  description: 'Selling API answers of 429, by rate group',
} as const;

export const PACING_WAIT_METRIC = {
  name: 'selling_kit_pacing_wait',
  unit: 'ms',
  description: 'Workflow-timer waits of the bulk pacing (window slots, lane grants, backoff), in ms',
} as const;

export const VERIFICATION_ROUNDS_METRIC = {
  name: 'selling_kit_verification_rounds',
  description: 'Verification rounds of creates in doubt (GET by SKU), by result (found, none)',
} as const;

export const JOB_PAUSES_METRIC = {
  name: 'selling_kit_job_pauses',
  description:
    'Bulk jobs that paused, by cause (request, reauthorize, api: server errors or unreachable, infra: its own infrastructure)',
} as const;

export const REFRESHES_METRIC = {
  name: 'selling_kit_token_refreshes',
  description: 'OAuth token rotations by a worker, by result (rotated, settled, reauthorize)',
} as const;

/** Item outcomes as the items counter tags them. */
export const ITEM_OUTCOMES = ['ok', 'failed', 'invalid', 'cancelled'] as const;
export type ItemOutcome = (typeof ITEM_OUTCOMES)[number];

/** Status classes the requests counter tags (429 apart from other 4xx: the gateway's rate limit). */
export const STATUS_CLASSES = ['2xx', '4xx', '429', '5xx', 'network'] as const;

/** Results the token-refresh counter tags (`reauthorize`: the seller must connect again). */
export const REFRESH_RESULTS = ['rotated', 'settled', 'reauthorize'] as const;
export type RefreshResult = (typeof REFRESH_RESULTS)[number];

/** Causes the job-pauses counter tags. */
export const PAUSE_CAUSES = ['request', 'reauthorize', 'api', 'infra'] as const;
export type PauseCause = (typeof PAUSE_CAUSES)[number];

/** Results the verification counter tags (`found`: a create in doubt had been made after all). */
export const VERIFICATION_RESULTS = ['found', 'none'] as const;

/**
 * Every counter of the kit: each exists at 0 from a worker's start (metrics.ts `zeroKitCounters`), so an
 * alert rule (deploy/prometheus/alerts.yml) never sees "no data". The pacing-wait histogram is not a
 * counter: it has no series until a job waits.
 */
export const KIT_COUNTERS = [
  ITEMS_METRIC,
  REQUESTS_METRIC,
  RATE_LIMITED_METRIC,
  VERIFICATION_ROUNDS_METRIC,
  REFRESHES_METRIC,
  JOB_PAUSES_METRIC,
] as const;
