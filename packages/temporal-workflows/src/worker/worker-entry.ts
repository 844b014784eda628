// `@selling-kit/temporal-workflows/worker`: what runs a worker — createWorker and the workflow bundle,
// the worker's settings from its environment, the metrics runtime. Apart from the main entry so that a
// client (starting or controlling a job, the CLI's other commands, tests) never loads
// @temporalio/worker and its native core.
export * from './worker.ts';
export * from './worker-env.ts';
export * from './order-events-env.ts';
export * from './worker-queues.ts';
export * from '../observability/metrics.ts';
// The job store a worker opens (SELLING_KIT_JOB_STORE) and its retention: the CLI's worker opens its own.
export { jobRetentionDays, JOB_RETENTION_ENV, openJobStore } from '../stores/open-job-store.ts';
