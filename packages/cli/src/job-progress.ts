// A job's figures without hanging on a worker that is not there. A closed job's come from Temporal alone
// (its result is its final progress; a failed one has its failure); a running job's come from the progress
// query, which only a worker can answer: the server holds a query 30 s waiting for one, so the CLI asks
// with a short deadline and, if nobody answers, says so in one line.
import {
  isGrpcCancelledError,
  isGrpcDeadlineError,
  WorkflowNotFoundError,
  type Client,
  type WorkflowExecutionDescription,
} from '@temporalio/client';
import { bulkWorkflowId, getProgress, type BulkProgress } from '@selling-kit/temporal-workflows';
import { CliError, EXIT } from './errors.ts';

/** How long a worker has to answer the progress query when one polls the job's task queue. */
export const QUERY_DEADLINE_MS = 10_000;
/** …and when none does (one may be starting this very moment, as in `selling-kit dev`). */
const NO_POLLER_DEADLINE_MS = 2_000;
/**
 * The server lists a worker for minutes after it stopped; a live one renews its long poll at least every
 * ~60 s. One not seen for longer is gone.
 */
const POLLER_GONE_MS = 90_000;
// temporal.api.enums.v1: TASK_QUEUE_KIND_NORMAL, TASK_QUEUE_TYPE_WORKFLOW.
const KIND_NORMAL = 1;
const TYPE_WORKFLOW = 1;

/**
 * What the CLI knows of a job: the workflow's own progress when it could be read, else (a failed or
 * terminated job, with no worker to ask) its state and reason only.
 */
export type JobView = Pick<BulkProgress, 'jobId' | 'state' | 'reason'> &
  Partial<BulkProgress> & {
    /** The Temporal execution's status when it is not `completed` (e.g. `terminated`). */
    execution?: string;
  };

export const hasFigures = (v: JobView): v is BulkProgress & JobView => v.total !== undefined;

/** The job's latest run, or a clear "no such job" (exit 4). */
export async function describeJob(client: Client, jobId: string): Promise<WorkflowExecutionDescription> {
  try {
    return await client.workflow.getHandle(bulkWorkflowId(jobId)).describe();
  } catch (e) {
    if (e instanceof WorkflowNotFoundError || /not found/i.test((e as Error).message))
      throw new CliError(
        'job_not_found',
        `no job "${jobId}"`,
        EXIT.notFound,
        'list jobs with `selling-kit jobs list`',
      );
    throw e;
  }
}

/** Workers that polled the task queue lately (the server's list, less those long gone). */
export async function liveWorkers(client: Client, taskQueue: string): Promise<number> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: KIND_NORMAL },
    taskQueueType: TYPE_WORKFLOW,
  });
  const seen = (p: NonNullable<typeof pollers>[number]) =>
    Number(p.lastAccessTime?.seconds ?? 0) * 1000 + Math.floor((p.lastAccessTime?.nanos ?? 0) / 1e6);
  return (pollers ?? []).filter((p) => Date.now() - seen(p) < POLLER_GONE_MS).length;
}

/** Why a running job's progress cannot be read: no worker, or none that answered in time. */
export class NoWorkerError extends CliError {
  constructor(jobId: string, taskQueue: string, polling: boolean, lastKnown?: string) {
    super(
      'no_worker',
      `job ${jobId} is running, but ${
        polling
          ? `no worker on task queue ${taskQueue} answered within ${QUERY_DEADLINE_MS / 1000} s`
          : `no worker is polling task queue ${taskQueue}`
      }: start one with \`selling-kit worker\`${lastKnown ? ` (last known: ${lastKnown})` : ''}`,
      EXIT.noWorker,
    );
  }
}

/**
 * A running job's progress from its worker, within a few seconds; `undefined` when no worker answered
 * (`polling`: whether one seemed to poll the queue).
 */
export async function liveProgress(
  client: Client,
  jobId: string,
  taskQueue: string,
): Promise<{ progress?: BulkProgress; polling: boolean }> {
  const polling = (await liveWorkers(client, taskQueue)) > 0;
  const deadline = Date.now() + (polling ? QUERY_DEADLINE_MS : NO_POLLER_DEADLINE_MS);
  try {
    return { progress: await client.withDeadline(deadline, () => getProgress(client, jobId)), polling };
  } catch (e) {
    if (isGrpcDeadlineError(e) || isGrpcCancelledError(e)) return { polling };
    // A job whose input the worker refused fails before it answers queries: its failure says why.
    const refused = await refusal(client, jobId);
    if (refused) throw new CliError('input_refused', `job ${jobId} was refused: ${refused}`, EXIT.jobStopped);
    throw new CliError(
      'progress_unavailable',
      `the progress of job ${jobId} cannot be read: ${firstLine(e)}`,
      EXIT.noWorker,
    );
  }
}

/**
 * A closed job's final state without a worker: a completed workflow's result is its final progress; a
 * failed, terminated, timed-out or cancelled one has its failure (and `lastKnown` figures, if any).
 */
export async function closedProgress(
  client: Client,
  jobId: string,
  desc: Pick<WorkflowExecutionDescription, 'status'>,
  lastKnown?: BulkProgress,
): Promise<JobView> {
  try {
    return (await client.workflow.getHandle(bulkWorkflowId(jobId)).result()) as BulkProgress;
  } catch (e) {
    const execution = desc.status.name.toLowerCase();
    const failure = (e as Error).cause instanceof Error ? firstLine((e as Error).cause) : firstLine(e);
    return {
      ...lastKnown,
      jobId,
      state: execution === 'cancelled' ? 'cancelled' : 'failed',
      reason: execution === 'failed' ? failure : `${execution.replace('_', ' ')}: ${failure}`,
      execution,
    };
  }
}

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

/** The message of a job that failed with InputRefused (the worker's checks, D1), else undefined. */
async function refusal(client: Client, jobId: string): Promise<string | undefined> {
  const handle = client.workflow.getHandle(bulkWorkflowId(jobId));
  // Only a closed run: result() of a running one would wait for its end.
  const status = await handle.describe().then(
    (d) => d.status.name,
    () => undefined,
  );
  if (status !== 'FAILED') return undefined;
  const failure = await handle.result().then(
    () => undefined,
    (e: unknown) => (e as { cause?: { type?: string; message?: string } }).cause,
  );
  return failure?.type === 'InputRefused' ? failure.message : undefined;
}
