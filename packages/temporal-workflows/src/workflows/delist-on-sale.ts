// A sale on one connected shop, delisted on every other: one workflow per order (id
// `delist:<sourceShopId>:<purchaseId>`, started by the webhook receiver or by the reconciliation run),
// so a webhook delivered twice, or an order both delivered and reconciled, is delisted once. It looks
// the order's listings up on the source shop (their SKUs), then marks each SKU sold on every other shop
// at once — one activity per shop and SKU, in the general group's reserve like the sale lane
// (workflows/sale.ts): nothing waits behind a bulk window.
import { ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { DelistInput, DelistResult, DelistOutcome } from '../webhooks/sales-types.ts';
import { refuseInput } from './refuse.ts';
import { SALE_ACTIVITY } from './retry-policies.ts';

export { delistWorkflowId } from '../contract.ts';

// The sale lane's options: a 429 waits its Retry-After (nextRetryDelay), 5xx and timeouts back off.
const { planDelist, delistSku } = proxyActivities<Activities>(SALE_ACTIVITY);

export async function delistOnSaleWorkflow(input: DelistInput): Promise<DelistResult> {
  refuseInput(input);
  const plan = await planDelist(input.source, input.productIds, input.shops, input.skuMapPath);
  const shops = new Map(input.shops.map((s) => [s.shopId, s]));
  // Every shop's answer is kept: one shop out of retries never hides the others' outcomes.
  const settled = await Promise.allSettled(plan.targets.map((t) => delistSku(shops.get(t.shopId)!, t.sku)));
  const outcomes: DelistOutcome[] = settled.map((r, i) =>
    r.status === 'fulfilled'
      ? r.value
      : { shopId: plan.targets[i]!.shopId, sku: plan.targets[i]!.sku, status: 'failed', code: 'gave_up' },
  );
  const result: DelistResult = {
    purchaseId: input.purchaseId,
    sourceShopId: input.source.shopId,
    items: plan.items,
    outcomes,
    // Workflow time of this task: the answers' arrival, to within a workflow task.
    ...(input.receivedAt !== undefined ? { delayMs: Date.now() - input.receivedAt } : {}),
  };
  // A shop that could not be reached fails the run (with every outcome in its details), so a redelivery
  // or the reconciliation may run it again (reuse policy ALLOW_DUPLICATE_FAILED_ONLY); marking sold again
  // is a no-op on the shops that answered.
  const gaveUp = settled.filter((r) => r.status === 'rejected').length;
  if (gaveUp)
    throw ApplicationFailure.nonRetryable(
      `${gaveUp} of ${settled.length} shops could not be reached to mark the sale`,
      'DelistIncomplete',
      result,
    );
  return result;
}
