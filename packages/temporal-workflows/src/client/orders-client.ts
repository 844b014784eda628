// Order flows from a client (the CLI's `orders` commands, the webhook receiver, n8n, tests): start one per
// order (never twice), mark a parcel shipped through its workflow, read its state, list the flows (at risk).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { innermostMessage } from './on-worker.ts';
import { startOnce } from './start-once.ts';
import {
  DEFAULT_TASK_QUEUE,
  ORDER_NOT_READ_YET,
  ORDER_READ_WAIT_MS,
  shipOnceRead,
  orderTaskQueue,
  orderWorkflowId,
} from '../contract.ts';
import {
  ORDER_STATE_ATTRIBUTE,
  orderFlowsQuery,
  orderSearchAttributes,
  SHOP_ATTRIBUTE,
  type OrderFlowFilter,
} from '../search-attributes.ts';
import type { OrderFlowInput, OrderFlowState, ShipRequest, ShipResult } from '../webhooks/order-types.ts';
import {
  markShippedUpdate,
  orderSeenSignal,
  orderStateQuery,
  orderWorkflow,
  type OrderFlowResult,
} from '../workflows/index.ts';
import { orderInputProblem } from '../workflows/order-plan.ts';

/** Names one order flow: the shop that sold and the purchase. */
export interface OrderRef {
  shopId: string;
  purchaseId: string;
}

/**
 * Starts the order's flow and returns once the server has recorded it. `started: false`: the order has a
 * flow already (running, or ended other than failed): a second `order.new` or a reconciliation does nothing.
 * `taskQueue` is the workers' main queue; the flow runs on its order queue beside it.
 */
export async function startOrderFlow(
  client: Client,
  input: OrderFlowInput,
  taskQueue = DEFAULT_TASK_QUEUE,
): Promise<{ started: boolean; workflowId: string }> {
  const problem = orderInputProblem(input);
  if (problem) throw new OrderFlowInputError(problem);
  return startOnce(client, orderWorkflow, {
    taskQueue: orderTaskQueue(taskQueue),
    workflowId: orderWorkflowId(input.shop.shopId, input.purchaseId),
    args: [input],
    typedSearchAttributes: orderSearchAttributes(input.shop.shopId, 'awaiting_tracking'),
  });
}

/**
 * Marks the order's parcel shipped through its flow (verified, never sent blind twice) and answers how it
 * went. The update's id comes from the request: a retried call joins the one in flight or gets its answer.
 * The flow already ended shipped with this parcel: its recorded answer.
 */
export async function shipOrder(
  client: Client,
  order: OrderRef,
  req: ShipRequest,
  { waitForReadMs = ORDER_READ_WAIT_MS }: { waitForReadMs?: number } = {},
): Promise<ShipResult> {
  const handle = client.workflow.getHandle<typeof orderWorkflow>(
    orderWorkflowId(order.shopId, order.purchaseId),
  );
  // A fresh id per call (ids are plain in history; a digest of a tracking code could be guessed back): the
  // flow itself refuses a second request while one is in flight.
  const send = () =>
    handle.executeUpdate(markShippedUpdate, { args: [req], updateId: `ship-${randomUUID()}` }).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  // A flow started a moment ago (`orders ship` right after `order.new`) knows its parcels once it has read
  // the order: its validator refused without recording anything, so asking again is safe.
  const answer = await shipOnceRead(send, (a) => 'error' in a && notReadYet(a.error), sleep, waitForReadMs);
  if ('value' in answer) return answer.value;
  const { error } = answer;
  const closed = await endedShipped(handle, req).catch(() => undefined);
  if (closed) return closed;
  // The flow's own words (a parcel it does not have, an order that has ended), not the SDK's wrapper.
  if (error instanceof WorkflowUpdateFailedError)
    throw new ShipRequestRefused(`order ${order.purchaseId}: ${innermostMessage(error)}`, { cause: error });
  throw error;
}

const notReadYet = (error: unknown) =>
  error instanceof WorkflowUpdateFailedError &&
  error.cause instanceof ApplicationFailure &&
  error.cause.type === ORDER_NOT_READ_YET;

/** An order flow's input breaks a rule (an id, the reminder plan): named in the message; nothing started. */
export class OrderFlowInputError extends Error {
  override name = 'OrderFlowInputError';
}

/** The order's flow refused a mark-as-shipped request (its reason in the message); nothing was sent. */
export class ShipRequestRefused extends Error {
  override name = 'ShipRequestRefused';
}

/** The answer of a flow that has ended shipped by this same request (parcel, carrier, code), or undefined. */
async function endedShipped(
  handle: ReturnType<Client['workflow']['getHandle']>,
  req: ShipRequest,
): Promise<ShipResult | undefined> {
  const { status } = await handle.describe();
  if (status.name !== 'COMPLETED') return undefined;
  const { lastShip, shippedWith: w } = (await handle.result()) as OrderFlowResult;
  const same =
    w !== undefined &&
    (req.parcelId === undefined || req.parcelId === w.parcelId) &&
    req.carrier === w.carrier &&
    req.trackingCode === w.trackingCode;
  return same && lastShip?.status === 'shipped' ? lastShip : undefined;
}

/** The flow's state (phase, parcels, reminders), or undefined when the order has no flow. */
export async function orderFlowState(client: Client, order: OrderRef): Promise<OrderFlowState | undefined> {
  try {
    return await client.workflow
      .getHandle(orderWorkflowId(order.shopId, order.purchaseId))
      .query(orderStateQuery);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** Tells the flow the order may have changed (a refund webhook): it reads the order again. */
export async function orderSeen(client: Client, order: OrderRef, source = 'client'): Promise<boolean> {
  try {
    await client.workflow
      .getHandle(orderWorkflowId(order.shopId, order.purchaseId))
      .signal(orderSeenSignal, { source });
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

export interface OrderFlowListing {
  workflowId: string;
  shopId?: string;
  state?: string;
  status: string;
  startTime: Date;
}

/** Order flows a filter names: from visibility, which lags a moment. */
export async function listOrderFlows(
  client: Client,
  filter: OrderFlowFilter = {},
): Promise<OrderFlowListing[]> {
  const flows: OrderFlowListing[] = [];
  for await (const w of client.workflow.list({ query: orderFlowsQuery(filter) })) {
    flows.push({
      workflowId: w.workflowId,
      shopId: w.typedSearchAttributes.get(SHOP_ATTRIBUTE),
      state: w.typedSearchAttributes.get(ORDER_STATE_ATTRIBUTE),
      status: w.status.name,
      startTime: w.startTime,
    });
  }
  return flows;
}
