// The client side of the shop directory (workflows/shop-directory.ts): ask the workers of a task queue
// which shops they hold credentials for. The same start options as n8n's Bulk Job node sends through
// the HTTP API: one run per task queue shared by callers at the same time, and a short execution
// timeout, so a task queue without a worker answers "no worker" instead of leaving a run behind.
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { DEFAULT_TASK_QUEUE, shopDirectoryWorkflowId } from '../contract.ts';
import { shopDirectoryWorkflow, type ShopDirectory } from '../workflows/index.ts';

/** How long a directory run may wait for a worker of the task queue. */
export const SHOP_DIRECTORY_TIMEOUT = '10s';

/** The worker's shop names; fails naming the task queue when no worker answered in time. */
export async function listWorkerShops(
  client: Client,
  taskQueue = DEFAULT_TASK_QUEUE,
): Promise<ShopDirectory> {
  const handle = await client.workflow.start(shopDirectoryWorkflow, {
    taskQueue,
    workflowId: shopDirectoryWorkflowId(taskQueue),
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    workflowExecutionTimeout: SHOP_DIRECTORY_TIMEOUT,
  });
  try {
    return await handle.result();
  } catch (error) {
    if (error instanceof WorkflowFailedError)
      throw new Error(
        `no selling-kit worker answered on task queue ${taskQueue} within ${SHOP_DIRECTORY_TIMEOUT} (${error.cause?.message ?? error.message})`,
      );
    throw error;
  }
}
