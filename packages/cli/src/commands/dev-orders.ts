// The order flow in `selling-kit dev`: the worker's order events go to an endpoint in this process that
// prints each one (and hands it on to the dev n8n's "Dispatch reminders" workflow once n8n is up); after the
// delist demo's purchase, its order flow's first reminder is awaited and the order is shipped the way
// `selling-kit orders ship` does it, the simulator then showing the parcel shipped with its tracking.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSimulator } from '@selling-kit/simulator';
import { shipOrder, type OrderReminders } from '@selling-kit/temporal-workflows';
import type { CliConfig } from '../config.ts';
import type { Output } from '../output.ts';
import { connectTemporal } from '../temporal.ts';

/** Reminders on the dev stack: a "day" is 5 seconds, so the first reminder shows during the demo. */
export const DEV_ORDER_REMINDERS: Required<OrderReminders> = {
  afterMs: [5_000, 10_000, 15_000],
  atRiskEveryMs: 35_000,
  giveUpAfterMs: 150_000,
};

/** The dev n8n's Webhook node for order events (examples/dispatch-reminders.json). */
export const DISPATCH_WEBHOOK_PATH = 'selling-kit-dispatch';

export interface OrderEventsSink {
  url: string;
  /** Events received, in order. */
  events: { event: string; n: number; purchaseId: string }[];
  /** Hands every event on to `url` as well (the dev n8n's webhook), those received before it first. */
  forwardTo(url: string): void;
  close(): Promise<void>;
}

/** The endpoint the dev worker's order flows post to: prints each event, hands it on to n8n if set. */
export async function startOrderEventsSink(out: Output): Promise<OrderEventsSink> {
  const bodies: string[] = [];
  let target: string | undefined;
  const forward = (body: string) =>
    void fetch(target!, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).catch(
      () => undefined,
    );
  const sink: OrderEventsSink = {
    url: '',
    events: [],
    forwardTo(url) {
      target = url;
      for (const body of bodies.splice(0)) forward(body);
    },
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      try {
        const e = JSON.parse(body) as { event: string; n: number; purchaseId: string; eventId: string };
        sink.events.push({ event: e.event, n: e.n, purchaseId: e.purchaseId });
        out.info(`  order event: ${e.event}${e.n ? ` #${e.n}` : ''} for order ${e.purchaseId}`);
      } catch {
        // Not an order event: answered all the same (nothing here depends on it).
      }
      if (target) forward(body);
      else bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/order-events`;
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}

/**
 * The purchase's order flow, shown: its first reminder awaited (a "day" after the order), then the order
 * shipped through the flow and the parcel read back from the simulator.
 */
export async function showOrderFlow(
  config: CliConfig,
  sim: RunningSimulator,
  sink: OrderEventsSink,
  purchaseId: string,
  out: Output,
  timeoutMs = 60_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!sink.events.some((e) => e.purchaseId === purchaseId && e.event === 'order.reminder')) {
    if (Date.now() > until) throw new Error(`order ${purchaseId}: no reminder within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const tracking = { carrier: 'ROYAL_MAIL', trackingCode: 'DEV0000000001GB' };
  out.info(
    `  $ selling-kit orders ship ${purchaseId} --shop demo --carrier ${tracking.carrier} --tracking ${tracking.trackingCode}`,
  );
  const session = await connectTemporal(config);
  try {
    const shipped = await shipOrder(session.client, { shopId: 'demo', purchaseId }, tracking);
    if (shipped.status !== 'shipped') throw new Error(`order ${purchaseId}: ${JSON.stringify(shipped)}`);
  } finally {
    await session.close();
  }
  const order = sim.world.sellers.get(sim.demo!.sellerId)!.orders.get(purchaseId)!;
  const parcel = [...order.parcels.values()][0]!;
  out.info(
    `  the simulator's order ${purchaseId}: ${order.status}, parcel shipped with ${parcel.carrier} ${parcel.trackingNumber}`,
  );
}
