// A one-off workflow a client runs on whichever worker of a task queue picks it up, and waits for (a page
// of a job's report, a shop's check): the worker holds the store or the credentials the client has not.
// No worker within the timeout is said as such (the run times out unstarted); any other failure is the
// caller's to word, with the innermost cause's message (the worker's own words).
import {
  TimeoutFailure,
  WorkflowFailedError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { Workflow, WorkflowResultType } from '@temporalio/common';

export async function runOnWorker<W extends Workflow>(
  client: Client,
  workflow: W,
  options: WorkflowStartOptions<W>,
  errors: { noWorker: () => Error; failed: (e: WorkflowFailedError) => Error },
): Promise<WorkflowResultType<W>> {
  try {
    return await client.workflow.execute(workflow, options);
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw e;
    if (e.cause instanceof TimeoutFailure) throw errors.noWorker();
    throw errors.failed(e);
  }
}

/** The message of the innermost cause of a failure chain that has one. */
export function innermostMessage(e: Error): string {
  let message = e.message;
  for (let c = e.cause as Error | undefined; c; c = c.cause as Error | undefined)
    if (c.message) message = c.message;
  return message;
}
