// The delist demo of `selling-kit dev`: a webhook receiver for the two demo shops (the simulator's demo
// partner signs their webhooks), a simulated purchase on the first shop, and the same SKU marked sold
// on the second — with the delay measured from the purchase to the second shop's listing sold. Each order
// runs as an order flow (its delist, then reminders until it is shipped: dev-orders.ts).
import type { RunningSimulator } from '@selling-kit/simulator';
import { startWebhookReceiver, type WebhookReceiver } from '@selling-kit/temporal-workflows';
import type { Context } from '../context.ts';
import { connectTemporal } from '../temporal.ts';
import { DEV_ORDER_REMINDERS } from './dev-orders.ts';

export interface DelistDemo {
  receiver: WebhookReceiver;
  close(): Promise<void>;
}

/** Starts the receiver for shops "demo" and "demo-us" and subscribes the demo partner to it. */
export async function startDelistDemo(config: Context['config'], sim: RunningSimulator): Promise<DelistDemo> {
  const demo = sim.demo!;
  const session = await connectTemporal(config);
  const receiver = await startWebhookReceiver({
    client: session.client,
    taskQueue: config.taskQueue,
    secret: demo.webhookSecret,
    shops: [
      { shopId: 'demo', credentialRef: 'demo', sellerId: demo.sellerId },
      { shopId: 'demo-us', credentialRef: 'demo-us', sellerId: demo.usSellerId },
    ],
    orders: { reminders: DEV_ORDER_REMINDERS },
  });
  await admin(sim, '/admin/webhooks', {
    partnerId: demo.partnerId,
    url: receiver.url,
    eventTypes: ['v1:order.new', 'v1:order.refund'],
  });
  return {
    receiver,
    close: async () => {
      await receiver.close();
      await session.close();
    },
  };
}

async function admin(sim: RunningSimulator, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(sim.adminUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`simulator admin ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * A purchase of the first demo listing on the GB shop; resolves when the listing with the same SKU on
 * the US shop is sold, with the delay in ms (or rejects after `timeoutMs`).
 */
export async function simulatePurchase(
  sim: RunningSimulator,
  timeoutMs = 30_000,
): Promise<{ sku: string; delayMs: number; purchaseId: string }> {
  const demo = sim.demo!;
  const productId = demo.listings[0]!;
  const sku = sim.world.sellers.get(demo.sellerId)!.products.get(productId)!.sku!;
  const twin = [...sim.world.sellers.get(demo.usSellerId)!.products.values()].find((p) => p.sku === sku);
  // Read through a function: the state changes while this loop awaits.
  const state = () => twin?.state;
  if (state() !== 'selling') throw new Error(`the US demo shop has no listing ${sku} on sale`);
  const start = performance.now();
  const { purchaseId } = await admin(sim, '/admin/orders', {
    sellerId: demo.sellerId,
    productIds: [productId],
  });
  while (state() !== 'sold') {
    if (performance.now() - start > timeoutMs)
      throw new Error(`${sku} was not marked sold on the US demo shop within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return { sku, delayMs: Math.round(performance.now() - start), purchaseId: String(purchaseId) };
}
