// The order flow (workflows/order.ts) on the real dev server against the simulator over 127.0.0.1: one
// workflow per order (a second start is refused), the delist of the sold listing elsewhere, the hand-off
// and reminders at their times to the operator's endpoint (a local HTTP server), at risk after the last,
// mark-as-shipped through the update (a lost answer verified, sent once), a refund ending it.
// @needs temporal
import { createServer, type Server } from 'node:http';
import { createClient } from '@selling-kit/api-client';
import { webhookHeaders } from '@selling-kit/api-client/core';
import type { AddressInfo } from 'node:net';
import { createOrder, itemsTotalCents } from '../../simulator/src/domain/orders.ts';
import { refundOrder } from '../../simulator/src/domain/refunds.ts';
import { laneWorkflowId, orderTaskQueue, orderWorkflowId, WORKFLOW_TYPES } from '../src/contract.ts';
import { ringQuery } from '../src/workflows/messages.ts';
import {
  listOrderFlows,
  orderFlowState,
  orderSeen,
  shipOrder,
  startOrderFlow,
} from '../src/client/orders-client.ts';
import type { OrderFlowInput, ReconcileOrdersResult } from '../src/webhooks/order-types.ts';
import { createOrdersReconciliationSchedule } from '../src/client/schedules.ts';
import { reconcileOrdersWorkflow } from '../src/workflows/reconcile-orders.ts';
import type { OrderFlowResult } from '../src/workflows/order.ts';
import { admin, listDirectly, useTestEnv, waitFor } from './helpers.ts';
import { startPartnerReceiver } from './partner-receiver.ts';

/** What the operator's endpoint received: each event, when, and with which headers. */
interface Received {
  event: string;
  n: number;
  eventId: string;
  at: number;
  authorization?: string;
  order: { purchase_id: string; status: string };
}
const received: Received[] = [];
let sink: Server;
const events = {
  get url() {
    return `http://127.0.0.1:${(sink.address() as AddressInfo).port}/dispatch`;
  },
  token: 'order-events-token',
};

beforeAll(async () => {
  sink = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ ...JSON.parse(body), at: Date.now(), authorization: req.headers.authorization });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
});
afterAll(() => new Promise<void>((r) => sink.close(() => r())));

const env = useTestEnv('order', { orderEvents: events });
const noWebhooks = { emit: () => undefined };

/** A listing on `seller` sold in one order now: its purchase id and product id. */
async function sellOne(sellerId: number, sku: string) {
  const { productId } = await listDirectly(env, sellerId, sku);
  const seller = env.sim.world.sellers.get(sellerId)!;
  const order = createOrder(env.sim.world, seller, [productId], {
    now: env.sim.world.clock.now(),
    events: noWebhooks,
  });
  return { purchaseId: order.purchaseId, productId, order };
}

type Shop = ReturnType<typeof env.shop>;

/** A listing of `shop` sold now, and its order's flow started (`reminders` as given). */
async function sellWithFlow(shop: Shop, prefix: string, reminders?: OrderFlowInput['reminders']) {
  const sold = await sellOne(shop.sellerId, `${prefix}-${Date.now()}`);
  const { purchaseId } = sold;
  const input = { purchaseId, shop: { shopId: shop.shopId, credentialRef: shop.ref }, reminders };
  await startOrderFlow(env.client, input, env.taskQueue);
  return { ...sold, ref: { shopId: shop.shopId, purchaseId } };
}

/** The flow of `ref` once it has read its order (it takes a mark-as-shipped from then on). */
const orderRead = (ref: { shopId: string; purchaseId: string }) =>
  waitFor('the order read by its flow', async () => {
    const state = await orderFlowState(env.client, ref);
    return state?.parcelIds.length ? state : undefined;
  });

const eventsOf = (purchaseId: string) => received.filter((r) => r.order.purchase_id === purchaseId);

/** The flow's history length, and how it ended. */
async function ended(shopId: string, purchaseId: string) {
  const handle = env.client.workflow.getHandle(orderWorkflowId(shopId, purchaseId));
  const result = (await handle.result()) as OrderFlowResult;
  const { historyLength } = await handle.describe();
  return { result, historyLength };
}

describe('the order flow', () => {
  it('delists, hands off, reminds at its times, goes at risk, ships through the update: one workflow per order', async () => {
    const a = env.shop('sold');
    const b = env.shop('other');
    const sku = `ORDER-${Date.now()}`;
    const elsewhere = await listDirectly(env, b.sellerId, sku);
    const { purchaseId, productId, order } = await sellOne(a.sellerId, sku);
    const input: OrderFlowInput = {
      purchaseId,
      shop: { shopId: a.shopId, credentialRef: a.ref },
      productIds: [productId],
      delist: {
        shops: [
          { shopId: a.shopId, credentialRef: a.ref },
          { shopId: b.shopId, credentialRef: b.ref },
        ],
      },
      startedBy: 'webhook',
      reminders: { afterMs: [2_000, 4_000], atRiskEveryMs: 60_000, giveUpAfterMs: 600_000 },
    };
    const t0 = Date.now();
    expect(await startOrderFlow(env.client, input, env.taskQueue)).toMatchObject({ started: true });
    // The same order.new again (a redelivery, the reconciliation): no second workflow.
    expect(await startOrderFlow(env.client, input, env.taskQueue)).toMatchObject({ started: false });
    // On the order queue beside the main one: its tasks never queue in front of a lane's update.
    const started = await env.client.workflow.getHandle(orderWorkflowId(a.shopId, purchaseId)).describe();
    expect(started.taskQueue).toBe(orderTaskQueue(env.taskQueue));

    // The hand-off at once, then a reminder at 2 s and the at-risk one at 4 s.
    await waitFor(
      'the at-risk event',
      () => eventsOf(purchaseId).some((e) => e.event === 'order.at_risk'),
      30_000,
    );
    const got = eventsOf(purchaseId);
    expect(got.map((e) => [e.event, e.n])).toEqual([
      ['order.ready', 0],
      ['order.reminder', 1],
      ['order.at_risk', 2],
    ]);
    expect(got[1]!.at - t0).toBeGreaterThanOrEqual(1_500);
    expect(got[2]!.at - t0).toBeGreaterThanOrEqual(3_500);
    expect(got.every((e) => e.authorization === `Bearer ${events.token}`)).toBe(true);
    expect(got[0]!.eventId).toBe(`${orderWorkflowId(a.shopId, purchaseId)}/order.ready/0`);
    // The sold listing is sold on the other shop too.
    await waitFor('the delist on the other shop', () =>
      env.sim.world.sellers.get(b.sellerId)!.products.get(elsewhere.productId)?.state === 'sold'
        ? true
        : undefined,
    );
    const atRisk = await waitFor('the order listed at risk', async () => {
      const flows = await listOrderFlows(env.client, { shopId: a.shopId, atRisk: true });
      return flows.length ? flows : undefined;
    });
    expect(atRisk.map((f) => f.workflowId)).toEqual([orderWorkflowId(a.shopId, purchaseId)]);

    const ref = { shopId: a.shopId, purchaseId };
    const parcelId = [...order.parcels.keys()][0]!;
    const ship = { carrier: 'ROYAL_MAIL', trackingCode: 'GB123456789GB' };
    expect(await shipOrder(env.client, ref, ship)).toEqual({ status: 'shipped', parcelId, verified: false });
    const { result, historyLength } = await ended(a.shopId, purchaseId);
    expect(result).toMatchObject({ outcome: 'shipped', remindersSent: 2 });
    expect(historyLength).toBeLessThan(200);
    expect(order.status).toBe('SHIPPED');
    expect(order.parcels.get(parcelId)).toMatchObject({
      shipped: true,
      trackingNumber: ship.trackingCode,
      carrier: ship.carrier,
    });
    // The same call again (a retried CLI): the recorded answer, nothing sent.
    expect(await shipOrder(env.client, ref, ship)).toEqual({ status: 'shipped', parcelId, verified: false });
  }, 120_000);

  it('a lost mark-as-shipped answer is verified by reading the order: shipped once', async () => {
    const a = env.shop('lost');
    const { purchaseId, order, ref } = await sellWithFlow(a, 'LOST');
    await orderRead(ref);
    // Every mark-as-shipped request is counted (a latency rule of 0 ms sees each); the first one's answer
    // is lost after the API committed it.
    const operationId = 'orders.markParcelShipped';
    const counter = env.sim.faults.add({ type: 'latency', latencyMs: 0, operationId });
    env.sim.faults.add({ type: 'timeout_after_commit', operationId, count: 1 });
    try {
      const shipped = await shipOrder(env.client, ref, { carrier: 'DPD', trackingCode: 'DPD0001' });
      expect(shipped).toMatchObject({ status: 'shipped', verified: true });
      expect(counter.fired).toBe(1);
      expect(order.parcels.values().next().value).toMatchObject({ shipped: true, trackingNumber: 'DPD0001' });
      expect((await ended(a.shopId, purchaseId)).result.outcome).toBe('shipped');
    } finally {
      env.sim.faults.clear();
    }
  }, 120_000);

  it('a mark-as-shipped sent before the flow has read its order waits for that read, then ships', async () => {
    const a = env.shop('early');
    const { purchaseId, order } = await sellOne(a.sellerId, `EARLY-${Date.now()}`);
    // The flow's first read of this order answers after 2 s: the request below arrives before it.
    env.sim.faults.add({
      type: 'latency',
      latencyMs: 2_000,
      path: `/api/v1/orders/${purchaseId}/`,
      count: 1,
    });
    try {
      const ref = { shopId: a.shopId, purchaseId };
      await startOrderFlow(
        env.client,
        { purchaseId, shop: { shopId: a.shopId, credentialRef: a.ref } },
        env.taskQueue,
      );
      const ship = { carrier: 'UPS', trackingCode: '1Z0000EARLY' };
      // A request wrong whatever the order holds is refused at once, not asked again for 30 s.
      await expect(shipOrder(env.client, ref, { ...ship, carrier: '' })).rejects.toThrow(/carrier must be/);
      // Not waiting: refused with the reason (nothing recorded), never a misleading "0 parcels".
      await expect(shipOrder(env.client, ref, ship, { waitForReadMs: 0 })).rejects.toThrow(
        /has not been read yet/,
      );
      expect(await shipOrder(env.client, ref, ship)).toMatchObject({ status: 'shipped', verified: false });
      expect(order.parcels.values().next().value).toMatchObject({
        shipped: true,
        trackingNumber: '1Z0000EARLY',
      });
    } finally {
      env.sim.faults.clear();
    }
  }, 120_000);

  it('a month of reminders (time-scaled: a day is 500 ms) stays under 200 history events, then gives up', async () => {
    const a = env.shop('month');
    const day = 500;
    const { purchaseId } = await sellWithFlow(a, 'MONTH', {
      afterMs: [day, 2 * day, 3 * day],
      atRiskEveryMs: 7 * day,
      giveUpAfterMs: 30 * day,
    });
    const { result, historyLength } = await ended(a.shopId, purchaseId);
    expect(result).toMatchObject({ outcome: 'unshipped', remindersSent: 6 });
    expect(historyLength).toBeLessThan(200);
    expect(eventsOf(purchaseId).map((e) => e.event)).toEqual([
      'order.ready',
      'order.reminder',
      'order.reminder',
      ...Array<string>(4).fill('order.at_risk'),
    ]);
  }, 120_000);

  it.each([
    ['SHIPPED', 'shipped_elsewhere'],
    ['CANCELLED', 'cancelled'],
  ] as const)(
    'an order %s outside the kit ends the flow at its next reminder (%s), with nothing sent',
    async (status, outcome) => {
      const a = env.shop(`outside-${status.toLowerCase()}`);
      const { purchaseId, order } = await sellWithFlow(a, `OUTSIDE-${status}`, {
        afterMs: [5_000],
        atRiskEveryMs: 60_000,
        giveUpAfterMs: 600_000,
      });
      await waitFor('the hand-off', () => eventsOf(purchaseId).length > 0);
      // The API cancels no order itself (the marketplace does): the simulator's order is set so here.
      order.status = status;
      const { result } = await ended(a.shopId, purchaseId);
      expect(result).toMatchObject({ outcome, remindersSent: 0 });
      expect(eventsOf(purchaseId).map((e) => e.event)).toEqual(['order.ready']);
    },
    120_000,
  );

  it('the webhook receiver starts one flow per order (two deliveries at once: one start); a refund webhook ends it', async () => {
    const [a, b] = [env.shop('hook-a'), env.shop('hook-b')];
    const secret = 'whsec_order_flow_test';
    const logged: string[] = [];
    // The simulator delivers the refunds; the test delivers order.new itself, twice at once.
    const { receiver } = await startPartnerReceiver(env, `partner-${a.ref}`, ['v1:order.refund'], {
      secret,
      shops: [a, b].map((s) => ({ shopId: s.shopId, credentialRef: s.ref, sellerId: s.sellerId })),
      orders: { reminders: { afterMs: [60_000], atRiskEveryMs: 60_000, giveUpAfterMs: 600_000 } },
      log: (e) => logged.push(e.action),
    });
    const sku = `HOOK-${Date.now()}`;
    const { productId } = await listDirectly(env, a.sellerId, sku);
    const elsewhere = await listDirectly(env, b.sellerId, sku);
    const { purchaseId } = (await admin(env, 'POST', '/admin/orders', {
      sellerId: a.sellerId,
      productIds: [productId],
    })) as { purchaseId: string };
    const e = env.sim.webhooks.events.find(
      (ev) => ev.eventType === 'v1:order.new' && ev.data.purchase_id === purchaseId,
    )!;
    const body = JSON.stringify({ id: e.id, event_type: e.eventType, created_at: e.createdAt, data: e.data });
    const deliver = () =>
      fetch(receiver.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...webhookHeaders(body, secret) },
        body,
      }).then((r) => r.json() as Promise<{ started: boolean; workflowId: string }>);
    const answers = await Promise.all([deliver(), deliver()]);
    expect(answers.map((r) => r.started).sort()).toEqual([false, true]);
    expect(answers[0]!.workflowId).toBe(orderWorkflowId(a.shopId, purchaseId));
    expect(logged.filter((l) => l.startsWith('order_')).sort()).toEqual(['order_duplicate', 'order_started']);
    // The flow runs the delist: the listing is sold on the other shop.
    await waitFor('the delist on the other shop', () =>
      env.sim.world.sellers.get(b.sellerId)!.products.get(elsewhere.productId)?.state === 'sold'
        ? true
        : undefined,
    );
    await waitFor('the hand-off', () => eventsOf(purchaseId).length > 0);

    // A full refund through the API: the simulator's v1:order.refund reaches the flow, which ends.
    const api = createClient({ ...env.keys.get(a.ref)!, pacing: false });
    const order = env.sim.world.sellers.get(a.sellerId)!.orders.get(purchaseId)!;
    await api.refunds.create(purchaseId, { items_refund_amount: (itemsTotalCents(order) / 100).toFixed(2) });
    const { result } = await ended(a.shopId, purchaseId);
    expect(result).toMatchObject({ outcome: 'refunded' });
    await waitFor('the refund logged', () => logged.includes('refund_signalled'));
  }, 120_000);

  it('the daily reconciliation starts the flow of an order whose webhook was missed (once), and closes one shipped outside the kit', async () => {
    const a = env.shop('recon');
    const long = { afterMs: [60_000], atRiskEveryMs: 60_000, giveUpAfterMs: 600_000 };
    const shop = { shopId: a.shopId, credentialRef: a.ref };
    const missed = await sellOne(a.sellerId, `MISSED-${Date.now()}`);
    const outside = await sellWithFlow(a, 'OUTSIDE2', long);
    await waitFor('the hand-off', () => eventsOf(outside.purchaseId).length > 0);
    outside.order.status = 'SHIPPED';
    // The running flow must be visible to the reconciliation's query.
    await waitFor(
      'the flow in visibility',
      async () => (await listOrderFlows(env.client, { shopId: a.shopId })).length > 0,
    );
    const reconcile = () =>
      env.client.workflow.execute(reconcileOrdersWorkflow, {
        taskQueue: env.taskQueue,
        workflowId: `reconcile:order-flow-${Date.now()}`,
        args: [{ shop, orderFlows: { reminders: long } }],
      });
    const first = await reconcile();
    // Read: the order of the flow shipped outside (no longer waiting: told); the missed one was just started.
    expect(first.orderFlows).toMatchObject({ pending: 1, started: 1, looked: 1, told: 1 });
    expect(first.awaitingShipping).toEqual([missed.purchaseId]);
    expect((await ended(a.shopId, outside.purchaseId)).result.outcome).toBe('shipped_elsewhere');
    const state = await orderRead({ shopId: a.shopId, purchaseId: missed.purchaseId });
    expect(state).toMatchObject({ phase: 'awaiting_tracking', startedBy: 'reconciliation' });
    const reconciled = env.client.workflow.getHandle(orderWorkflowId(a.shopId, missed.purchaseId));
    expect((await reconciled.describe()).taskQueue).toBe(orderTaskQueue(env.taskQueue));
    // The next day's run: the flow exists, nothing is started again.
    expect((await reconcile()).orderFlows).toMatchObject({ pending: 1, started: 0 });

    // The same from its schedule (`schedules create --kind orders-reconciliation --order-flows`).
    const scheduleId = `orders-${Date.now()}`;
    const schedule = await createOrdersReconciliationSchedule(
      env.client,
      scheduleId,
      { shop, orderFlows: { reminders: long } },
      { every: '1d' },
      env.taskQueue,
    );
    try {
      await schedule.trigger();
      const run = await waitFor('the scheduled run', async () => {
        const action = (await schedule.describe()).info.recentActions[0]?.action;
        return action?.workflow.workflowId;
      });
      const scheduled = (await env.client.workflow.getHandle(run).result()) as ReconcileOrdersResult;
      expect(scheduled.orderFlows).toMatchObject({ pending: 1, started: 0 });
    } finally {
      await schedule.delete();
    }
  }, 120_000);

  it("takes its requests' turns from the shop's general lane (outside the sales reserve), and gives the slot back when idle", async () => {
    const a = env.shop('paced');
    // The shop's general lane at 4 per 2 s: four slots of one request, each open again 2 s after its answer.
    const lane = await env.client.workflow.start(WORKFLOW_TYPES.shopLane, {
      workflowId: laneWorkflowId(env.taskQueue, a.shopId, 'general'),
      taskQueue: env.taskQueue,
      args: [{ allowance: { limit: 4, windowMs: 2_000 } }],
    });
    const long = { afterMs: [60_000], atRiskEveryMs: 60_000, giveUpAfterMs: 600_000 };
    const flows = [];
    for (let i = 0; i < 6; i++) flows.push(await sellWithFlow(a, `PACED${i}`, long));
    const ids = new Set(flows.map((f) => f.purchaseId));
    await waitFor(
      'six hand-offs',
      () => received.filter((e) => ids.has(e.order.purchase_id)).length >= 6,
      60_000,
    );
    const at = received.filter((e) => ids.has(e.order.purchase_id)).map((e) => e.at);
    // Six reads at four per window: the last two wait for a window (unpaced: all within a fraction of a second).
    expect(Math.max(...at) - Math.min(...at)).toBeGreaterThanOrEqual(1_800);
    // Idle, the worker gives its slot back: no slot held, the uses recorded.
    const ring = await waitFor(
      'the slot given back',
      async () => {
        const r = await lane.query(ringQuery);
        return r.holder.every((h) => h === null) ? r : undefined;
      },
      30_000,
    );
    expect(ring.lastAt.filter((t) => t > 0).length).toBeGreaterThan(0);
    expect(Object.keys(ring.jobs).some((j) => j.startsWith('orders:'))).toBe(false);
  }, 120_000);

  it('a refund ends the flow; a request the flow cannot take is refused before it is recorded', async () => {
    const a = env.shop('refund');
    const { purchaseId, order, ref } = await sellWithFlow(a, 'REFUND');
    await orderRead(ref);
    await expect(
      shipOrder(env.client, ref, { carrier: 'DPD', trackingCode: 'X1', parcelId: 'nope' }),
    ).rejects.toThrow(/parcel nope is not a parcel of this order/);
    await expect(shipOrder(env.client, ref, { carrier: ' ', trackingCode: 'X1' })).rejects.toThrow(/carrier/);
    // Refunded in full (through the simulator's own rules, as the refunds endpoint does).
    const items = (itemsTotalCents(order) / 100).toFixed(2);
    refundOrder(
      order,
      { items_refund_amount: items },
      { now: env.sim.world.clock.now(), events: noWebhooks },
    );
    expect(order.status).toBe('REFUNDED');
    expect(await orderSeen(env.client, ref, 'refund_webhook')).toBe(true);
    const { result, historyLength } = await ended(a.shopId, purchaseId);
    expect(result).toMatchObject({ outcome: 'refunded', remindersSent: 0 });
    // Refused updates left nothing in history: start, reads, the hand-off, the signal, the end.
    expect(historyLength).toBeLessThan(40);
  }, 120_000);
});
