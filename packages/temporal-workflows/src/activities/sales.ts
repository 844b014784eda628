// Activities of single requests outside bulk windows: a sale elsewhere (mark as sold now) and the orders
// the reconciliation schedules look at — the sales reconciliation a page at a time (`listSalesPage`).
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { ValidationError } from '@selling-kit/api-client';
import { ORDERS_PAGE_MAX, type Order } from '@selling-kit/api-client/core';
import { delistWorkflowId, WORKFLOW_TYPES } from '../contract.ts';
import type { ItemRef, ShopRef } from '../types.ts';
import type { SalesPage } from '../webhooks/sales-types.ts';
import type { ActivityContext } from './context.ts';
import { toActivityFailure } from './send.ts';

/** Executions that keep an order from being delisted again (ALLOW_DUPLICATE_FAILED_ONLY lets the rest run). */
const DELIST_KEPT = new Set(['RUNNING', 'COMPLETED', 'CONTINUED_AS_NEW']);

/**
 * Of `ids` (delist workflow ids), those whose delist has run or runs: ONE visibility query for a page.
 * Visibility lags by a moment, so this only saves work: the child's id reuse policy still refuses a
 * delist that exists. Ids that cannot be quoted plainly are left to that refusal.
 */
async function delistsKnown(temporal: Client, ids: string[]): Promise<Set<string>> {
  const quotable = ids.filter((id) => !/['"\\]/.test(id));
  const known = new Set<string>();
  if (quotable.length === 0) return known;
  const query = `WorkflowType = '${WORKFLOW_TYPES.delistOnSale}' AND WorkflowId IN (${quotable.map((id) => `'${id}'`).join(', ')})`;
  for await (const execution of temporal.workflow.list({ query, pageSize: quotable.length * 2 }))
    if (DELIST_KEPT.has(execution.status.name)) known.add(execution.workflowId);
  return known;
}

export interface MarkSoldOptions {
  /** An earlier attempt, outside this activity's own retries, may have marked the listing sold. */
  afterUnknownAttempt?: boolean;
}

export function createSaleActivities({ clients, deps }: ActivityContext) {
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

    /**
     * One page of the shop's orders created since `since` (newest first, from `cursor`), without the
     * orders whose delist has run or runs (one visibility query): what the sales reconciliation starts.
     * `cursor` of the answer: the next page's, absent after the last.
     */
    async listSalesPage(
      shop: ShopRef,
      since: string,
      cursor: string | undefined,
      limit = ORDERS_PAGE_MAX,
    ): Promise<SalesPage> {
      let page: { meta: { cursor?: string | null; has_more?: boolean }; data: Order[] };
      try {
        const client = await clients.clientFor(shop);
        page = await client.request(
          {
            method: 'GET',
            path: '/api/v1/orders/',
            query: { from: since, limit: Math.min(limit, ORDERS_PAGE_MAX), ...(cursor ? { cursor } : {}) },
          },
          { signal: Context.current().cancellationSignal },
        );
      } catch (error) {
        if (error instanceof ApplicationFailure) throw error;
        return toActivityFailure(error);
      }
      const next = page.meta.has_more && page.meta.cursor ? page.meta.cursor : undefined;
      const orders = page.data.map((o) => ({
        purchaseId: o.purchase_id,
        productIds: o.line_items.map((l) => l.product_id),
      }));
      let known = new Set<string>();
      if (deps.temporal && orders.length) {
        try {
          known = await delistsKnown(
            deps.temporal,
            orders.map((o) => delistWorkflowId(shop.shopId, o.purchaseId)),
          );
        } catch (error) {
          // Without the filter every order is offered to the child start, which refuses the delisted.
          Context.current().log.warn('visibility query failed: this page is not filtered', {
            error: (error as Error).message,
          });
        }
      }
      const fresh = orders.filter((o) => !known.has(delistWorkflowId(shop.shopId, o.purchaseId)));
      return { orders: fresh, listed: orders.length, delisted: orders.length - fresh.length, cursor: next };
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
