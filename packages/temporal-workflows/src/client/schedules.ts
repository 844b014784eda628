// Temporal Schedules for recurring jobs: a feed sync (a bulk upsert of a feed file, every interval)
// and the daily orders reconciliation. Each scheduled run is its own workflow execution, named by
// the schedule plus its start time; its report is named after that execution. Every run carries the
// job search attributes (SellingKitJobId: the schedule's workflow id prefix, shared by its runs).
// Also the job-data retention schedule every worker ensures at start (ensureJobRetentionSchedule).
import {
  ScheduleAlreadyRunning,
  type Client,
  type ScheduleDescription,
  type ScheduleOptions,
  type ScheduleOptionsStartWorkflowAction,
} from '@temporalio/client';
import type { Duration, Workflow } from '@temporalio/common';
import { bulkListingWorkflow, jobRetentionWorkflow, reconcileOrdersWorkflow } from '../workflows/index.ts';
import {
  DEFAULT_TASK_QUEUE,
  feedSyncWorkflowId,
  jobRetentionScheduleId,
  jobRetentionWorkflowId,
  reconcileWorkflowId,
  SCHEDULE_KINDS,
} from '../contract.ts';
import { jobSearchAttributes } from '../search-attributes.ts';
import type { BulkJobInput } from '../types.ts';
import type { ReconcileOrdersInput } from '../webhooks/order-types.ts';

/** The operation a reconciliation run is tagged with (SellingKitOperation). */
export const RECONCILE_OPERATION = 'reconcile-orders';

/**
 * Set explicitly rather than left to the server: a run still going when the next is due is skipped
 * (never two syncs of one feed at once); after an outage, missed runs of the last hour only are taken
 * (the server's default catch-up window is a year); a failed run does not pause the schedule (the next
 * run may well succeed, and failures are in each run's report).
 */
export const SCHEDULE_POLICIES = {
  overlap: 'SKIP',
  catchupWindow: '1h',
  pauseOnFailure: false,
} as const satisfies ScheduleOptions['policies'];

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

/**
 * A schedule of this project's policies that starts `action`'s workflow every `timing`. No memo: a memo
 * is sealed by the codec like every payload, and deployments with other keys list this namespace's
 * schedules too (what a schedule runs is told by its workflow type: SCHEDULE_KINDS).
 */
export function createWorkflowSchedule<W extends Workflow>(
  client: Client,
  scheduleId: string,
  timing: ScheduleTiming,
  action: Omit<ScheduleOptionsStartWorkflowAction<W>, 'type'>,
) {
  return client.schedule.create<W>({
    scheduleId,
    spec: spec(timing),
    action: { type: 'startWorkflow', ...action },
    policies: SCHEDULE_POLICIES,
  });
}

export async function createFeedSyncSchedule(
  client: Client,
  scheduleId: string,
  job: Omit<BulkJobInput, 'jobId'>,
  timing: ScheduleTiming,
  taskQueue = DEFAULT_TASK_QUEUE,
) {
  const workflowId = feedSyncWorkflowId(scheduleId);
  const typedSearchAttributes = jobSearchAttributes(job.shop.shopId, workflowId, job.operation);
  return createWorkflowSchedule(client, scheduleId, timing, {
    workflowType: bulkListingWorkflow,
    args: [job],
    taskQueue,
    workflowId,
    typedSearchAttributes,
  });
}

/** A reconciliation: a workflow of one input that a schedule runs, its runs named after the schedule. */
export interface Reconciliation<I> {
  workflowType: (input: I) => Promise<unknown>;
  /** The runs' workflow id prefix, from the schedule's id. */
  workflowId: (scheduleId: string) => string;
  /** The runs' job search attributes, when they are one shop's job. */
  searchAttributes?: (
    input: I,
    workflowId: string,
  ) => ScheduleOptionsStartWorkflowAction<Workflow>['typedSearchAttributes'];
  /** When it runs unless told otherwise. */
  timing: ScheduleTiming;
}

/**
 * The schedule creator of a reconciliation: `(client, scheduleId, input, timing?, taskQueue?)` creates a
 * schedule (createWorkflowSchedule) whose every run starts its workflow with `input`.
 */
export function reconciliationSchedule<I>(kind: Reconciliation<I>) {
  return async (
    client: Client,
    scheduleId: string,
    input: I,
    timing = kind.timing,
    taskQueue = DEFAULT_TASK_QUEUE,
  ) => {
    const workflowId = kind.workflowId(scheduleId);
    return createWorkflowSchedule(client, scheduleId, timing, {
      workflowType: kind.workflowType,
      args: [input],
      taskQueue,
      workflowId,
      ...(kind.searchAttributes ? { typedSearchAttributes: kind.searchAttributes(input, workflowId) } : {}),
    });
  };
}

/**
 * The daily orders reconciliation (03:00 UTC unless told otherwise), tagged as one shop's job; with
 * `orderFlows`, it also starts the order flows of missed webhooks and closes those shipped elsewhere.
 */
export const createOrdersReconciliationSchedule = reconciliationSchedule<ReconcileOrdersInput>({
  workflowType: reconcileOrdersWorkflow,
  workflowId: reconcileWorkflowId,
  searchAttributes: (input, workflowId) =>
    jobSearchAttributes(input.shop.shopId, workflowId, RECONCILE_OPERATION),
  timing: { cron: '0 3 * * *' },
});

/** How often the job-data retention runs unless told otherwise. */
export const JOB_RETENTION_EVERY = '24h';

/**
 * The job-data retention schedule of a task queue (`job-retention:<taskQueue>`): a jobRetentionWorkflow run
 * every `every` removing the job store's jobs older than `retentionDays`. Every worker calls it at start:
 * the first creates the schedule, the others (and later starts) update it to their setting — never a
 * second schedule. A schedule an operator paused stays paused.
 */
export async function ensureJobRetentionSchedule(
  client: Client,
  options: { taskQueue?: string; retentionDays: number; every?: string },
): Promise<{ scheduleId: string; created: boolean }> {
  const { taskQueue = DEFAULT_TASK_QUEUE, retentionDays, every = JOB_RETENTION_EVERY } = options;
  if (!Number.isFinite(retentionDays) || retentionDays <= 0)
    throw new Error(`the job retention must be a positive number of days, not ${retentionDays}`);
  const scheduleId = jobRetentionScheduleId(taskQueue);
  const action = {
    workflowType: jobRetentionWorkflow,
    args: [{ retentionDays }] as [{ retentionDays: number }],
    taskQueue,
    workflowId: jobRetentionWorkflowId(taskQueue),
  };
  try {
    await createWorkflowSchedule(client, scheduleId, { every }, action);
    return { scheduleId, created: true };
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  await client.schedule.getHandle(scheduleId).update<typeof jobRetentionWorkflow>((previous) => ({
    spec: spec({ every }),
    action: { type: 'startWorkflow', ...action },
    policies: SCHEDULE_POLICIES,
    state: { paused: previous.state.paused, note: previous.state.note },
  }));
  return { scheduleId, created: false };
}

/** One schedule as listed: what the server tells, nothing decoded (no codec key needed). */
export interface ScheduleListing {
  scheduleId: string;
  workflowType: string;
  /** SCHEDULE_KINDS of its workflow type; '' for one this kit did not make. */
  kind: string;
  paused: boolean;
  note?: string;
  nextActionTimes: Date[];
}

/**
 * Every schedule of the namespace, read from the server's own list without decoding a payload: the
 * SDK's `schedule.list()` decodes each memo, and one sealed by another deployment's key fails it all.
 */
export async function listSchedules(client: Client): Promise<ScheduleListing[]> {
  const out: ScheduleListing[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listSchedules({
      namespace: client.options.namespace,
      nextPageToken,
    });
    for (const raw of page.schedules ?? []) {
      const workflowType = raw.info?.workflowType?.name ?? '';
      out.push({
        scheduleId: raw.scheduleId ?? '',
        workflowType,
        kind: (SCHEDULE_KINDS as Record<string, string>)[workflowType] ?? '',
        paused: raw.info?.paused === true,
        ...(raw.info?.notes ? { note: raw.info.notes } : {}),
        nextActionTimes: (raw.info?.futureActionTimes ?? []).map(
          (t) => new Date(Number(String(t.seconds ?? 0)) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)),
        ),
      });
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return out;
}

export const describeSchedule = (client: Client, scheduleId: string): Promise<ScheduleDescription> =>
  client.schedule.getHandle(scheduleId).describe();
export const deleteSchedule = (client: Client, scheduleId: string): Promise<void> =>
  client.schedule.getHandle(scheduleId).delete();
