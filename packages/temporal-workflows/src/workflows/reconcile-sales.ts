// The missed-webhook catch-up of the delist flow: webhooks are best effort (public reference), so a
// scheduled run lists each connected shop's recent orders and starts the delist workflow of every
// order that never had one. The child's id is the one the webhook receiver uses
// (`delist:<shopId>:<purchaseId>`) with ALLOW_DUPLICATE_FAILED_ONLY: an order already delisted — or
// being delisted — is refused by the server and skipped, so nothing is ever delisted twice.
import { ParentClosePolicy, proxyActivities, startChild, WorkflowIdReusePolicy } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.ts';
import type { ReconcileSalesInput, ReconcileSalesResult } from '../sales-types.ts';
import { delistWorkflowId } from '../contract.ts';
import { delistOnSaleWorkflow } from './delist-on-sale.ts';

const { listRecentSales } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10 },
});

export async function reconcileSalesWorkflow(input: ReconcileSalesInput): Promise<ReconcileSalesResult> {
  const since = new Date(Date.now() - (input.lookbackHours ?? 24) * 3600_000).toISOString();
  const started: string[] = [];
  let orders = 0;
  for (const shop of input.shops) {
    for (const order of await listRecentSales(shop, since)) {
      orders++;
      try {
        await startChild(delistOnSaleWorkflow, {
          workflowId: delistWorkflowId(shop.shopId, order.purchaseId),
          workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
          // The delist finishes on its own, whatever this run does next.
          parentClosePolicy: ParentClosePolicy.ABANDON,
          args: [
            {
              purchaseId: order.purchaseId,
              source: shop,
              productIds: order.productIds,
              shops: input.shops,
              skuMapPath: input.skuMapPath,
            },
          ],
        });
        started.push(order.purchaseId);
      } catch (error) {
        // Delisted already (the webhook arrived), or being delisted now.
        // (Matched by name: the class lives in @temporalio/common, which workflow code does not import.)
        if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
      }
    }
  }
  return { orders, started };
}
