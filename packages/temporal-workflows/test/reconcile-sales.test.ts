// The sales reconciliation at scale (N7): a window of many orders is walked a page at a time, children
// start in batches, and the run continues as new before its history reaches its event budget — every run
// of the chain stays under 4,096 events and every order is delisted exactly once. A second run over the
// same window starts nothing: the listing leaves out the orders whose delist has run (one visibility
// query per page), so an hourly run does not repay the whole window. Orders are seeded straight in the
// simulator's world (its domain functions), which is what makes thousands of them quick.
// `RECONCILE_ORDERS=10000` runs the figure by hand (minutes on a small machine).
// @needs temporal
import { randomUUID } from 'node:crypto';
import { createOrder } from '../../simulator/src/domain/orders.ts';
import { reconcileSalesWorkflow } from '../src/workflows/reconcile-sales.ts';
import { WORKFLOW_TYPES } from '../src/contract.ts';
import type { ReconcileSalesInput } from '../src/webhooks/sales-types.ts';
import { listDirectly, useTestEnv, waitFor } from './helpers.ts';

const env = useTestEnv('reconcile-sales');
const ORDERS = Number(process.env.RECONCILE_ORDERS ?? 400);
/**
 * At the test's size: small pages, batches and event budget, so the chain pages, moves from shop to shop
 * and continues as new several times (by hand with thousands of orders: the defaults).
 */
const SMALL = ORDERS <= 1_500;
const OPTIONS = SMALL ? { pageSize: 50, startBatch: 25, eventsPerRun: 600 } : {};
const noWebhooks = { emit: () => undefined };
/** Minutes at the 10,000 on the 2-core machine. */
const TIMEOUT_MS = Math.max(600_000, ORDERS * 500);

/** `n` orders of one listing each, created in the shop's world now. */
async function seedOrders(sellerId: number, prefix: string, n: number): Promise<string[]> {
  const seller = env.sim.world.sellers.get(sellerId)!;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { productId } = await listDirectly(env, sellerId, `${prefix}-${i}`);
    const order = createOrder(env.sim.world, seller, [productId], {
      now: env.sim.world.clock.now(),
      events: noWebhooks,
    });
    ids.push(order.purchaseId);
  }
  return ids;
}

/** Every run of a chain: its run id and its history's length. */
async function runsOf(workflowId: string): Promise<{ runId: string; events: number }[]> {
  const runs: { runId: string; events: number }[] = [];
  for await (const run of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await env.client.workflow.getHandle(workflowId, run.runId).fetchHistory();
    runs.push({ runId: run.runId, events: history.events?.length ?? 0 });
  }
  return runs;
}

/** Delist executions of a shop (every run, not only the latest), from visibility. */
async function delistsOf(shopId: string): Promise<string[]> {
  const ids: string[] = [];
  const query = `WorkflowType = '${WORKFLOW_TYPES.delistOnSale}' AND WorkflowId STARTS_WITH 'delist:${shopId}:'`;
  for await (const run of env.client.workflow.list({ query })) ids.push(run.workflowId);
  return ids;
}

it(
  `${ORDERS} orders in the window: every run under 4,096 events, each order delisted once`,
  async () => {
    const [a, b] = [env.shop('rs-a'), env.shop('rs-b')];
    const refs = [a, b].map((s) => ({ shopId: s.shopId, credentialRef: s.ref }));
    // Two shops: the walk moves on from one shop's last page to the next shop (carried across runs).
    const aOrders = await seedOrders(a.sellerId, 'RS-A', Math.ceil((ORDERS * 2) / 3));
    const bOrders = await seedOrders(b.sellerId, 'RS-B', ORDERS - aOrders.length);
    const input: ReconcileSalesInput = { shops: refs, ...OPTIONS };
    const workflowId = `reconcile-sales-${randomUUID()}`;
    const t0 = Date.now();
    const result = await env.client.workflow.execute(reconcileSalesWorkflow, {
      taskQueue: env.taskQueue,
      workflowId,
      args: [input],
    });
    const runs = await runsOf(workflowId);
    const longest = Math.max(...runs.map((r) => r.events));
    console.log(
      `${ORDERS} orders: ${runs.length} runs, ${runs.map((r) => r.events).join(' ')} events (budget ${OPTIONS.eventsPerRun ?? 'default'}), ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    );
    expect(longest).toBeLessThan(4_096);
    if (OPTIONS.eventsPerRun) expect(longest).toBeLessThanOrEqual(OPTIONS.eventsPerRun);
    expect(runs.length).toBeGreaterThan(1);
    expect(result).toMatchObject({ orders: ORDERS, startedCount: ORDERS, alreadyDelisted: 0 });
    expect(result.started).toHaveLength(Math.min(ORDERS, 100));
    expect(runs).toHaveLength(result.runs!);

    // Every order has exactly one delist (visibility lags a moment behind the starts).
    const delisted = async (shopId: string, orders: string[]) => {
      const ids = await waitFor(
        `the delists of ${shopId}`,
        async () => {
          const found = await delistsOf(shopId);
          return found.length >= orders.length && found;
        },
        120_000,
      );
      expect(ids).toHaveLength(orders.length);
      expect(new Set(ids)).toEqual(new Set(orders.map((p) => `delist:${shopId}:${p}`)));
    };
    await delisted(a.shopId, aOrders);
    await delisted(b.shopId, bOrders);

    // The next hourly run over the same window: the listing leaves every order out, nothing starts, and
    // its history is a few events per page.
    const againId = `reconcile-sales-${randomUUID()}`;
    const again = await env.client.workflow.execute(reconcileSalesWorkflow, {
      taskQueue: env.taskQueue,
      workflowId: againId,
      args: [input],
    });
    expect(again).toMatchObject({ orders: ORDERS, startedCount: 0, alreadyDelisted: ORDERS, runs: 1 });
    const [only] = await runsOf(againId);
    expect(only!.events).toBeLessThan(12 * Math.ceil(ORDERS / (OPTIONS.pageSize ?? 200)) + 20);
  },
  TIMEOUT_MS,
);
