// Retention of job data: the schedule's activity (workflows/job-retention.ts) removes from the worker's
// job store every job created more than `retentionDays` ago — its record, snapshot and outcomes —
// whether it finished, failed, was cancelled or terminated (a terminated job never cleans up after
// itself). The store's own clock stamped each job; this worker's clock sets the cut: a few seconds of
// skew do not matter against days.
import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityContext } from './context.ts';

const DAY_MS = 86_400_000;

export interface JobRetentionInput {
  /** Jobs created more than this many days ago are removed (SELLING_KIT_JOB_RETENTION_DAYS). */
  retentionDays: number;
}

export interface JobRetentionResult {
  /** Jobs removed. */
  jobs: number;
  /** The cut: jobs created before it were removed (ISO 8601). */
  before: string;
}

export function createRetentionActivities(ctx: ActivityContext) {
  return {
    async expireJobData({ retentionDays }: JobRetentionInput): Promise<JobRetentionResult> {
      if (typeof retentionDays !== 'number' || !Number.isFinite(retentionDays) || retentionDays <= 0)
        throw ApplicationFailure.nonRetryable(
          `retentionDays must be a positive number of days, not ${String(retentionDays)}`,
          'InvalidRetention',
        );
      const store = ctx.deps.jobStore;
      const before = new Date(Date.now() - retentionDays * DAY_MS);
      const { jobs } = await store.expire(before);
      log.info(`job store ${store.location}: removed ${jobs} jobs created before ${before.toISOString()}`);
      return { jobs, before: before.toISOString() };
    },
  };
}
