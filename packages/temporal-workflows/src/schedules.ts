// Temporal Schedules for recurring jobs: a feed sync (a bulk upsert of a feed file, every interval)
// and the daily orders reconciliation. Each scheduled run is its own workflow execution, named by
// the schedule plus its start time; its report is named after that execution.
import type { Client, ScheduleDescription, ScheduleSummary } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { bulkListingWorkflow, reconcileOrdersWorkflow } from './workflows/index.ts';
import { DEFAULT_TASK_QUEUE } from './worker.ts';
import type { BulkJobInput, ReconcileInput } from './types.ts';

export interface ScheduleTiming {
  /** e.g. '1h', '30m' (Temporal duration strings). */
  every?: string;
  /** Cron, e.g. '0 3 * * *' for 03:00 daily (UTC). */
  cron?: string;
}

function spec(timing: ScheduleTiming) {
  if (!timing.every && !timing.cron)
    throw new Error('a schedule needs `every` (e.g. "1h") or `cron` (e.g. "0 3 * * *")');
  return timing.cron
    ? { cronExpressions: [timing.cron] }
    : { intervals: [{ every: timing.every! as Duration }] };
}

export async function createFeedSyncSchedule(
  client: Client,
  scheduleId: string,
  job: Omit<BulkJobInput, 'jobId'>,
  timing: ScheduleTiming,
  taskQueue = DEFAULT_TASK_QUEUE,
) {
  return client.schedule.create({
    scheduleId,
    spec: spec(timing),
    action: {
      type: 'startWorkflow',
      workflowType: bulkListingWorkflow,
      args: [job],
      taskQueue,
      workflowId: `feed-sync:${scheduleId}`,
    },
    memo: { kind: 'feed-sync' },
  });
}

export async function createOrdersReconciliationSchedule(
  client: Client,
  scheduleId: string,
  input: ReconcileInput,
  timing: ScheduleTiming = { cron: '0 3 * * *' },
  taskQueue = DEFAULT_TASK_QUEUE,
) {
  return client.schedule.create({
    scheduleId,
    spec: spec(timing),
    action: {
      type: 'startWorkflow',
      workflowType: reconcileOrdersWorkflow,
      args: [input],
      taskQueue,
      workflowId: `reconcile:${scheduleId}`,
    },
    memo: { kind: 'orders-reconciliation' },
  });
}

export async function listSchedules(client: Client): Promise<ScheduleSummary[]> {
  const out: ScheduleSummary[] = [];
  for await (const s of client.schedule.list()) out.push(s);
  return out;
}

export const describeSchedule = (client: Client, scheduleId: string): Promise<ScheduleDescription> =>
  client.schedule.getHandle(scheduleId).describe();
export const deleteSchedule = (client: Client, scheduleId: string): Promise<void> =>
  client.schedule.getHandle(scheduleId).delete();
