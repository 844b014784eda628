// The missed-webhook catch-up of the delist flow: webhooks are best effort (public reference), so a
// scheduled run lists each connected shop's recent orders and starts the delist workflow of every
// order that never had one. The child's id is the one the webhook receiver uses
// (`delist:<shopId>:<purchaseId>`) with ALLOW_DUPLICATE_FAILED_ONLY: an order already delisted — or
// being delisted — is refused by the server and skipped, so nothing is ever delisted twice.
//
// From 0.4 (`patched(PAGED_PATCH)`, N7) the window is walked a page at a time: the listing activity
// leaves out the orders whose delist has run (one visibility query per page, so an hourly run does not
// repay the whole 24 h), children start in batches (one workflow task each), and the run continues as new
// — carrying the window, the shop, its cursor and the rest of the page — before its history reaches its
// event budget (or when the server suggests it). Each started child costs the parent a few events (its
// start, its start's answer, its completion, their workflow tasks); every run stays under ~4k events
// whatever the number of orders.
import {
  continueAsNew,
  ParentClosePolicy,
  patched,
  proxyActivities,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type {
  ReconcileSalesCarry,
  ReconcileSalesInput,
  ReconcileSalesResult,
  SalesPage,
} from '../webhooks/sales-types.ts';
import type { ShopRef } from '../types.ts';
import { delistWorkflowId } from '../contract.ts';
import { delistOnSaleWorkflow } from './delist-on-sale.ts';
import { refuseInput } from './refuse.ts';
import { READ_RETRY } from './retry-policies.ts';

/** Runs recorded before 0.4: the whole window in one answer. */
const { listRecentSales } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: READ_RETRY,
});
/** 0.4: one page (one request and one visibility query). */
const { listSalesPage } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: READ_RETRY,
});

export const PAGED_PATCH = 'reconcile-sales-paged';

const DEFAULT_EVENTS_PER_RUN = 3_000;
const DEFAULT_START_BATCH = 50;
/**
 * Events one started child costs this history, counted high: its start, the start's answer and the
 * workflow task that answer causes when it arrives apart from the others (most do).
 */
const EVENTS_PER_START = 6;
/** And later its completion, with its own workflow task (counted until it has arrived). */
const EVENTS_PER_COMPLETION = 4;
/** Events of one page's listing (its activity and workflow task) and the run's own end, counted high. */
const EVENTS_PER_PAGE = 12;
/** Started ids the result lists (the count has them all). */
export const MAX_STARTED_LISTED = 100;

export async function reconcileSalesWorkflow(
  input: ReconcileSalesInput,
  carry?: ReconcileSalesCarry,
): Promise<ReconcileSalesResult> {
  refuseInput(input, carry);
  if (!patched(PAGED_PATCH)) return reconcileWhole(input);
  const budget = input.eventsPerRun ?? DEFAULT_EVENTS_PER_RUN;
  const batchSize = Math.max(1, input.startBatch ?? DEFAULT_START_BATCH);
  const c: ReconcileSalesCarry = carry ?? {
    since: new Date(Date.now() - (input.lookbackHours ?? 24) * 3600_000).toISOString(),
    shop: 0,
    result: { orders: 0, started: [], startedCount: 0, alreadyDelisted: 0, runs: 0 },
  };
  const r = c.result;
  r.runs++;
  /** Children started by this run whose completion has not reached this history yet. */
  let outstanding = 0;
  const room = () => budget - workflowInfo().historyLength - outstanding * EVENTS_PER_COMPLETION;
  const full = (events: number) => workflowInfo().continueAsNewSuggested || room() < events;
  const next = () => continueAsNew<typeof reconcileSalesWorkflow>(input, c);

  /** Starts the children of `orders` (one batch, one workflow task), counting what the server refused. */
  const startBatch = async (shop: ShopRef, orders: SalesPage['orders']) => {
    const starts = await Promise.allSettled(
      orders.map((order) => startChild(delistOnSaleWorkflow, delistChild(input, shop, order))),
    );
    let failure: unknown;
    starts.forEach((start, i) => {
      if (start.status === 'fulfilled') {
        r.startedCount++;
        if (r.started.length < MAX_STARTED_LISTED) r.started.push(orders[i]!.purchaseId);
        outstanding++;
        const done = () => void outstanding--;
        start.value.result().then(done, done);
        // Delisted already (the webhook arrived), or being delisted now. (Matched by name: the class lives
        // in @temporalio/common, which workflow code does not import.)
      } else if ((start.reason as Error).name === 'WorkflowExecutionAlreadyStartedError') r.alreadyDelisted++;
      else failure ??= start.reason;
    });
    if (failure) throw failure;
  };

  while (c.shop < input.shops.length) {
    const shop = input.shops[c.shop]!;
    // The rest of a page a previous run did not finish, else the next page.
    if (!c.rest) {
      if (full(EVENTS_PER_PAGE + EVENTS_PER_START + EVENTS_PER_COMPLETION)) return next();
      const page = await listSalesPage(shop, c.since, c.cursor, input.pageSize);
      r.orders += page.listed;
      r.alreadyDelisted += page.delisted;
      c.rest = page.orders;
      c.cursor = page.cursor;
    }
    while (c.rest.length > 0) {
      const batch = c.rest.slice(0, batchSize);
      if (full(batch.length * (EVENTS_PER_START + EVENTS_PER_COMPLETION) + EVENTS_PER_PAGE)) return next();
      await startBatch(shop, batch);
      c.rest = c.rest.slice(batch.length);
    }
    c.rest = undefined;
    if (c.cursor === undefined) c.shop++;
  }
  return r;
}

/** Runs recorded before 0.4 (replayed as they ran): the whole window at once, one child after another. */
async function reconcileWhole(input: ReconcileSalesInput): Promise<ReconcileSalesResult> {
  const since = new Date(Date.now() - (input.lookbackHours ?? 24) * 3600_000).toISOString();
  const started: string[] = [];
  let orders = 0;
  for (const shop of input.shops) {
    for (const order of await listRecentSales(shop, since)) {
      orders++;
      try {
        await startChild(delistOnSaleWorkflow, delistChild(input, shop, order));
        started.push(order.purchaseId);
      } catch (error) {
        if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
      }
    }
  }
  return { orders, started };
}

/**
 * The start of one order's delist: abandoned (it finishes on its own, whatever this run does next), and
 * started again only if an earlier one failed.
 */
export function delistChild(
  input: { shops: ShopRef[]; skuMapPath?: string },
  shop: ShopRef,
  order: { purchaseId: string; productIds: number[] },
) {
  return {
    workflowId: delistWorkflowId(shop.shopId, order.purchaseId),
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [
      {
        purchaseId: order.purchaseId,
        source: shop,
        productIds: order.productIds,
        shops: input.shops,
        skuMapPath: input.skuMapPath,
      },
    ] as [Parameters<typeof delistOnSaleWorkflow>[0]],
  };
}
