// Starting a workflow that exists once per thing (an order's delist, an order's flow): it runs once, a repeat
// while it runs or after it completed does nothing, and only one that failed may run again.
import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { Workflow } from '@temporalio/common';

/**
 * Starts `workflow` under `options.workflowId` and returns once the server has recorded it (a webhook may be
 * answered then). `started: false`: it runs or has run (the caller's repeat does nothing).
 */
export async function startOnce<W extends Workflow>(
  client: Client,
  /** The workflow function, or its type name (activities import no workflow code). */
  workflow: W | string,
  options: WorkflowStartOptions<W>,
): Promise<{ started: boolean; workflowId: string }> {
  const { workflowId } = options;
  try {
    await client.workflow.start(workflow, {
      ...options,
      // Closed: a completed run is never repeated, a failed one may run again. Running: refused too (FAIL),
      // so the caller knows an earlier one has it.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      workflowIdConflictPolicy: 'FAIL',
    });
    return { started: true, workflowId };
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return { started: false, workflowId };
    throw error;
  }
}
