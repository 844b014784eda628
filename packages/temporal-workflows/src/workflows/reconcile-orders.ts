// Daily orders reconciliation: webhooks are best effort (public reference), so a scheduled run lists
// the last day's orders and reports those still awaiting shipment — the sales a missed `v1:order.new`
// would have announced — for the seller to act on. The report is a job of its own in the job store, read
// by the run's workflow id (`reportKey`) like any job's. With `orderFlows`, every order still waiting gets
// its order flow (workflows/order.ts), and the shop's running flows read their orders again.
import { patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ReconcileOrdersInput, ReconcileOrdersResult } from '../webhooks/order-types.ts';
import { refuseInput } from './refuse.ts';
import { READ_RETRY } from './retry-policies.ts';

const { listRecentOrders, writeReport } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: READ_RETRY,
});
const { reconcileOrderFlows } = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '1 minute',
  retry: READ_RETRY,
});
/** Runs from this patch on take `orderFlows` (a run recorded before it had none to take). */
const ORDER_FLOWS_PATCH = 'reconcile-orders-flows';

export async function reconcileOrdersWorkflow(input: ReconcileOrdersInput): Promise<ReconcileOrdersResult> {
  refuseInput(input);
  const info = workflowInfo();
  const reportKey = info.workflowId;
  const since = new Date(Date.now() - (input.lookbackHours ?? 24) * 3600_000).toISOString();
  const orders = await listRecentOrders(input.shop, since);
  const awaiting = orders.filter((o) => o.status === 'SHIPPING_PENDING');
  await writeReport(
    { workflowId: info.workflowId, firstRunId: info.firstExecutionRunId, jobId: reportKey },
    // One line per order (the report is merged by line).
    awaiting.map((o, i) => ({
      line: i + 1,
      sku: null,
      status: 'ok',
      message: `order ${o.purchaseId} awaits shipping`,
      code: 'SHIPPING_PENDING',
    })),
  );
  const result = { reportKey, orders: orders.length, awaitingShipping: awaiting.map((o) => o.purchaseId) };
  if (input.orderFlows && patched(ORDER_FLOWS_PATCH))
    return { ...result, orderFlows: await reconcileOrderFlows(input.shop, since, input.orderFlows) };
  return result;
}
