// Job data retention: one run per schedule tick (schedules.ts ensureJobRetentionSchedule, id
// `job-retention:<taskQueue>`, started by every worker at start) removes the job store's jobs older than
// the operator's retention (SELLING_KIT_JOB_RETENTION_DAYS, default 30) — snapshots and outcomes of
// failed, terminated and old jobs are never left for ever. The work is the activity's; a store that is
// down is retried on a capped backoff, and the next tick tries again anyway.
import { proxyActivities } from '@temporalio/workflow';
import type {
  createRetentionActivities,
  JobRetentionInput,
  JobRetentionResult,
} from '../activities/retention.ts';
import { refuseInput } from './refuse.ts';

export type { JobRetentionInput, JobRetentionResult } from '../activities/retention.ts';

const { expireJobData } = proxyActivities<ReturnType<typeof createRetentionActivities>>({
  // Removing a month of jobs (each up to 100k records) takes a while in batches.
  startToCloseTimeout: '1 hour',
  retry: {
    initialInterval: '10 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    maximumAttempts: 8,
  },
});

export async function jobRetentionWorkflow(input: JobRetentionInput): Promise<JobRetentionResult> {
  refuseInput(input);
  return expireJobData(input);
}
