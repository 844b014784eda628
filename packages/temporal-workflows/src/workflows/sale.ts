// A sale elsewhere: mark the listing sold NOW. It never waits behind bulk work: it is its own short
// workflow (id `sale:<shopId>:<key>`, so a repeated call joins the one in flight), its request uses the
// general group's reserve that bulk lanes leave free (DEFAULT_ALLOWANCES), and it asks no lane. A 429
// waits its Retry-After (the activity's nextRetryDelay), 5xx and timeouts retry with backoff, a 4xx
// fails at once, visibly, with its code and error id.
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.ts';
import type { ItemRef, SaleInput, SaleResult } from '../types.ts';

const { markSold } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 12 },
});

export const saleWorkflowId = (shopId: string, ref: ItemRef) =>
  `sale:${shopId}:${'sku' in ref ? `sku:${ref.sku}` : 'productId' in ref ? `id:${ref.productId}` : `slug:${ref.slug}`}`;

export async function saleWorkflow(input: SaleInput): Promise<SaleResult> {
  try {
    return await markSold(input.shop, input.ref);
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : error;
    if (cause instanceof ApplicationFailure) {
      const details = (cause.details?.[0] ?? {}) as { code?: string; errorId?: string };
      throw ApplicationFailure.create({
        message: `mark-as-sold failed: ${cause.message}`,
        type: details.code ?? cause.type ?? 'SaleFailed',
        nonRetryable: true,
        details: [details],
      });
    }
    throw error;
  }
}
