// The webhook receiver's order flows (webhook-receiver.ts `orders`): `v1:order.new` starts the order's flow
// (which runs the delist), `v1:order.refund` tells the purchase's flow to read the order. Each answers what
// the receiver logs and sends back; a failure to reach Temporal is thrown (the receiver answers 503, the
// sender delivers again).
import type { Client } from '@temporalio/client';
import { OrderFlowInputError, orderSeen, startOrderFlow } from '../client/orders-client.ts';
import type { ShopRef } from '../types.ts';
import type { OrderReminders } from './order-types.ts';

export interface OrderFlowReply {
  status: number;
  action: string;
  workflowId?: string;
  body: Record<string, unknown>;
}

/** Starts the order's flow: once (a redelivery or two at once start one). */
export async function startOrderFromWebhook(
  client: Client,
  taskQueue: string,
  order: { purchaseId: string; shop: ShopRef; productIds: number[] },
  options: { delist?: { shops: ShopRef[]; skuMapPath?: string }; reminders?: OrderReminders },
): Promise<OrderFlowReply> {
  const flow = await startOrderFlow(
    client,
    {
      ...order,
      ...(options.delist ? { delist: options.delist } : {}),
      startedBy: 'webhook',
      ...(options.reminders ? { reminders: options.reminders } : {}),
    },
    taskQueue,
  ).catch((e: unknown) => {
    if (e instanceof OrderFlowInputError) return e;
    throw e;
  });
  // A purchase id no workflow id can carry: accepted and ignored (a redelivery would be refused alike).
  if (flow instanceof OrderFlowInputError)
    return { status: 202, action: 'ignored', body: { ignored: 'invalid_order' } };
  const { started, workflowId } = flow;
  return {
    status: 200,
    action: started ? 'order_started' : 'order_duplicate',
    workflowId,
    body: { workflowId, started },
  };
}

/**
 * A refund names no seller: the flow of that purchase on whichever shop has one reads the order again. A
 * flow told: done; none told and a shop's could not be reached: thrown (the sender delivers again).
 */
export async function refundToOrderFlow(
  client: Client,
  shops: ShopRef[],
  purchaseId: string,
): Promise<OrderFlowReply> {
  const told = await Promise.allSettled(
    shops.map((s) => orderSeen(client, { shopId: s.shopId, purchaseId }, 'refund_webhook')),
  );
  const reached = told.some((t) => t.status === 'fulfilled' && t.value);
  const failed = told.find((t): t is PromiseRejectedResult => t.status === 'rejected');
  if (!reached && failed) throw failed.reason;
  const action = reached ? 'refund_signalled' : 'no_order_flow';
  return { status: 200, action, body: { [action]: purchaseId } };
}
