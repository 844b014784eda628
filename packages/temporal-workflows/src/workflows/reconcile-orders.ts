// Daily orders reconciliation: webhooks are best effort (public reference), so a scheduled run lists
// the last day's orders and reports those still awaiting shipment — the sales a missed `v1:order.new`
// would have announced — for the seller to act on. The report is a job of its own in the job store, read
// by the run's workflow id (`reportKey`) like any job's.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ReconcileInput, ReconcileResult } from '../types.ts';
import { refuseInput } from './refuse.ts';
import { READ_RETRY } from './retry-policies.ts';

const { listRecentOrders, writeReport } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: READ_RETRY,
});

export async function reconcileOrdersWorkflow(input: ReconcileInput): Promise<ReconcileResult> {
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
  return { reportKey, orders: orders.length, awaitingShipping: awaiting.map((o) => o.purchaseId) };
}
