// A one-off workflow a client runs on whichever worker of a task queue picks it up, and waits for (a page
// of a job's report, a shop's check): the worker holds the store or the credentials the client has not.
// No worker within the timeout is said as such (the run times out unstarted); any other failure is the
// caller's to word, with the innermost cause's message (the worker's own words).
import { randomUUID } from 'node:crypto';
import {
  TimeoutFailure,
  WorkflowFailedError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { Duration, Workflow, WorkflowResultType } from '@temporalio/common';
import { DEFAULT_TASK_QUEUE } from '../contract.ts';

export interface OneOffRun<W extends Workflow> {
  /** What the worker does, as the no-worker message says it (`checked shop "a"`). */
  task: string;
  /** The run's workflow id, from a random suffix: every run is its own execution. */
  workflowId: (suffix: string) => string;
  args: Parameters<W>;
  /** Default: DEFAULT_TASK_QUEUE. */
  taskQueue?: string;
  /** How long the run may wait for a worker and take (its execution timeout). */
  timeout: Duration;
}

export async function runOnWorker<W extends Workflow>(
  client: Client,
  workflow: W,
  run: OneOffRun<W>,
  errors: { noWorker: (message: string) => Error; failed: (e: WorkflowFailedError) => Error },
): Promise<WorkflowResultType<W>> {
  const { task, workflowId, args, taskQueue = DEFAULT_TASK_QUEUE, timeout } = run;
  // The SDK types `args` by a condition on W that TypeScript cannot settle for a generic W (hence the
  // cast through unknown); `run.args` is typed as W's parameters, which is what that condition asks.
  const start = {
    taskQueue,
    workflowId: workflowId(randomUUID().slice(0, 8)),
    args,
    workflowExecutionTimeout: timeout,
  };
  try {
    return await client.workflow.execute(workflow, start as unknown as WorkflowStartOptions<W>);
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw e;
    if (e.cause instanceof TimeoutFailure) throw errors.noWorker(noWorkerMessage(taskQueue, task, timeout));
    throw errors.failed(e);
  }
}

/** What a client says when no worker of `taskQueue` did `task` (`read job j's report`) within `timeout`. */
export const noWorkerMessage = (taskQueue: string, task: string, timeout: Duration): string =>
  `no selling-kit worker on task queue ${taskQueue} ${task} within ${String(timeout)}: start one with \`selling-kit worker\``;

/** The message of the innermost cause of a failure chain that has one. */
export function innermostMessage(e: Error): string {
  let message = e.message;
  for (let c = e.cause as Error | undefined; c; c = c.cause as Error | undefined)
    if (c.message) message = c.message;
  return message;
}
