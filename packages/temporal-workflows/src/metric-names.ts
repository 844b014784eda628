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

export const REFRESHES_METRIC = {
  name: 'selling_kit_token_refreshes',
  description: 'OAuth token rotations by a worker, by result (rotated, settled, reauthorize)',
} as const;

/** Item outcomes as the items counter tags them. */
export type ItemOutcome = 'ok' | 'failed' | 'invalid' | 'cancelled';
