// The Temporal SDK runtime's metrics that deploy/prometheus (alert rules, dashboard) reads: each is on a
// fresh worker's /metrics (test/worker-health.test.ts checks it), so a rule or panel never reads a name
// that does not exist. Counters carry no `_total` suffix; histograms are read through `_bucket`.
export const SDK_METRICS = [
  'temporal_num_pollers',
  'temporal_worker_task_slots_used',
  'temporal_worker_task_slots_available',
  'temporal_request',
  'temporal_long_request',
  'temporal_request_latency_bucket',
] as const;
