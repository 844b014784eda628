// Activities of single requests outside bulk windows: a sale elsewhere (mark as sold now) and the orders
// the reconciliation schedule looks at.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ValidationError } from '@selling-kit/api-client';
import type { ItemRef, ShopRef } from '../types.ts';
import type { ActivityContext } from './context.ts';
import { toActivityFailure } from './send.ts';

export interface MarkSoldOptions {
  /** An earlier attempt, outside this activity's own retries, may have marked the listing sold. */
  afterUnknownAttempt?: boolean;
}

export function createSaleActivities({ clients }: ActivityContext) {
  return {
    /**
     * A sale elsewhere: mark the listing sold now. One request per activity attempt, local (the sale's
     * fast path) or not; Temporal retries (429 after its Retry-After, 5xx with backoff). A repeat that
     * finds the listing no longer on sale after an unknown earlier attempt (a retry of this activity, or
     * `afterUnknownAttempt`) counts as sold.
     */
    async markSold(
      shop: ShopRef,
      ref: ItemRef,
      { afterUnknownAttempt = false }: MarkSoldOptions = {},
    ): Promise<{ status: 'sold' | 'already_sold'; attempts: number }> {
      const client = await clients.clientFor(shop);
      const ctx = Context.current();
      const attempts = ctx.info.attempt;
      try {
        await client.products.markAsSold(ref, { signal: ctx.cancellationSignal });
        return { status: 'sold', attempts };
      } catch (error) {
        const repeat = attempts > 1 || afterUnknownAttempt;
        if (repeat && error instanceof ValidationError && error.code === 'product_not_on_sale')
          return { status: 'already_sold', attempts };
        return toActivityFailure(error);
      }
    },

    /** Orders created since `since` (ISO date-time), all pages. */
    async listRecentOrders(shop: ShopRef, since: string): Promise<{ purchaseId: string; status: string }[]> {
      const out: { purchaseId: string; status: string }[] = [];
      try {
        for await (const order of (await clients.clientFor(shop)).orders.list({ from: since, limit: 200 })) {
          out.push({ purchaseId: order.purchase_id, status: order.status });
          Context.current().heartbeat();
        }
      } catch (error) {
        if (error instanceof ApplicationFailure) throw error;
        return toActivityFailure(error);
      }
      return out;
    },
  };
}
