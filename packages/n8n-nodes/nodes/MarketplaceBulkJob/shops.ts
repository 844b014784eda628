// The Shops list of the editor: the worker is asked which shops it holds credentials for, through
// Temporal (the worker may run on another host): a short shop-directory workflow on its task queue
// (temporal-workflows: workflows/shop-directory.ts) whose result — names only — is read from the
// workflow's close event. Callers at the same time share one run; a task queue without a worker
// answers within the run's time limit instead of leaving the list spinning.
import { NodeOperationError, type ILoadOptionsFunctions, type INodePropertyOptions } from 'n8n-workflow';
import {
  SHOP_DIRECTORY_WORKFLOW,
  shopDirectoryWorkflowId,
  TemporalHttp,
  temporalSettings,
} from './transport/temporal';

/** How long the directory run waits for a worker of the task queue. */
export const SHOP_DIRECTORY_TIMEOUT = '10s';

export async function getShops(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  const node = this.getNode();
  const temporal = new TemporalHttp(
    this,
    temporalSettings(node, await this.getCredentials('marketplaceTemporalApi')),
  );
  const workflowId = shopDirectoryWorkflowId(temporal.taskQueue);
  const started = await temporal.start(workflowId, SHOP_DIRECTORY_WORKFLOW, undefined, {
    joinRunning: true,
    executionTimeout: SHOP_DIRECTORY_TIMEOUT,
  });
  const body = started.body as { runId?: string; message?: string };
  if (started.statusCode >= 300 || !body?.runId)
    throw new NodeOperationError(
      node,
      `Temporal refused to ask the worker for its shops: ${body?.message ?? started.statusCode}`,
    );
  const closed = await temporal.closed(workflowId, body.runId);
  if (closed.status === 'timed_out')
    throw new NodeOperationError(
      node,
      `No selling-kit worker answered on task queue "${temporal.taskQueue}" within ${SHOP_DIRECTORY_TIMEOUT}: ${temporal.noWorkerHint}`,
    );
  if (closed.status !== 'completed')
    throw new NodeOperationError(node, `The worker could not list its shops: ${closed.message}`);
  const directory = (closed.value ?? {}) as { shops?: unknown; unavailable?: string };
  if (directory.unavailable)
    throw new NodeOperationError(node, `The worker could not list its shops: ${directory.unavailable}`);
  const shops = Array.isArray(directory.shops) ? directory.shops.filter((s) => typeof s === 'string') : [];
  return shops.map((name) => ({ name, value: name }));
}
