// Entity workflows as activities reach them: long-lived workflows with one id per thing (a shop's lane,
// an OAuth app's budget, a seller's auth), asked by update. Every ask is an update-with-start: the entity
// starts on first use with the input given here (a running one is used as it is), and a run handing over
// to the next by continue-as-new is retried by the client onto the new run.
import { WithStartWorkflowOperation, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';

/**
 * An entity: its workflow type (contract.ts `WORKFLOW_TYPES`, by name: activities import no workflow code),
 * and its id, task queue and the input it starts with when it does not run.
 */
export interface Entity<A extends unknown[]> {
  workflowType: string;
  start: Omit<WorkflowStartOptions, 'args'> & { args: A };
}

/**
 * Sends `update` to the entity, starting it first when it does not run, and answers the update's
 * result. `updateId` makes a repeated call (a retried activity) count once.
 */
export function startOrUpdate<R, A extends unknown[], S extends unknown[]>(
  temporal: Client,
  entity: Entity<S>,
  update: UpdateDefinition<R, A>,
  args: A,
  updateId?: string,
): Promise<R> {
  return temporal.workflow.executeUpdateWithStart(update, {
    args,
    updateId,
    startWorkflowOperation: new WithStartWorkflowOperation(entity.workflowType, {
      ...entity.start,
      workflowIdConflictPolicy: 'USE_EXISTING',
    }),
  });
}
