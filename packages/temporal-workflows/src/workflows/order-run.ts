// One run of an order flow (order.ts): what it knows, and the steps its loop and its mark-as-shipped share —
// reading the order (a failure is logged and read again later, never the flow's end), telling the operator's
// endpoint, and the phase kept in the search attribute `SellingKitOrderState`.
import { log, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { ORDER_STATE_ATTRIBUTE } from '../search-attributes.ts';
import type {
  OrderEvent,
  OrderFlowInput,
  OrderFlowState,
  OrderOutcome,
  OrderPhase,
  OrderSeen,
  ShipRequest,
  ShipResult,
} from '../webhooks/order-types.ts';
import { outcomeOf, type ReminderPlan } from './order-plan.ts';
import { SALE_ACTIVITY, READ_RETRY } from './retry-policies.ts';

const { readOrder } = proxyActivities<Activities>(SALE_ACTIVITY);
// An event the operator's endpoint does not take within a few minutes is logged as undelivered: a
// reminder is never what keeps an order from being shipped.
const { notifyOrder } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { ...READ_RETRY, maximumAttempts: 8 },
});

export interface OrderRun {
  input: OrderFlowInput;
  plan: ReminderPlan;
  /** Reminders count from here: the order's creation when it is known, else the workflow's start (ms). */
  start: number;
  state: OrderFlowState;
  /** Mark-as-shipped requests waiting for the loop, each with how to answer it. */
  ships: { req: ShipRequest; answer: (r: ShipResult) => void }[];
  /** Something about the order changed: read it again. */
  seen: boolean;
  /** A send of this flow's may have landed unconfirmed: the order reading shipped is this flow's doing. */
  maybeSent: boolean;
  /** Events on their way to the operator's endpoint (awaited before the flow ends). */
  events: Promise<unknown>[];
}

/** The order read, or undefined when it could not be (logged: the loop reads it again later). */
export async function read(run: OrderRun): Promise<OrderSeen | undefined> {
  try {
    return await readOrder(run.input.shop, run.input.purchaseId);
  } catch (error) {
    log.warn('the order could not be read; reading it again later', { error: (error as Error).message });
    return undefined;
  }
}

/**
 * An event to the operator's endpoint, which first reads the order (sent only while it waits to be
 * shipped): the order as read, or undefined when the event was not delivered after its attempts (logged;
 * the order goes on waiting).
 */
export async function notify(
  run: OrderRun,
  event: OrderEvent['event'],
  n: number,
): Promise<OrderSeen | undefined> {
  const { input } = run;
  try {
    return await notifyOrder(input.shop, {
      event,
      purchaseId: input.purchaseId,
      shopId: input.shop.shopId,
      n,
    });
  } catch (error) {
    log.warn('an order event was not delivered', { event, n, error: (error as Error).message });
    return undefined;
  }
}

/**
 * How the order read ends the flow, or undefined while it waits. Read shipped after a send of this flow's
 * whose answer was lost, it is this flow's shipment (verified), not one made elsewhere.
 */
export function endOf(run: OrderRun, order: OrderSeen): OrderOutcome | undefined {
  const outcome = outcomeOf(order);
  if (outcome === 'shipped_elsewhere' && run.maybeSent) return 'shipped';
  return outcome;
}

/** What the first read tells the run: the parcels, and the order's creation as the reminders' start. */
export function learn(run: OrderRun, order: OrderSeen): void {
  if (run.state.parcelIds.length === 0) run.state.parcelIds = order.parcelIds;
  if (order.createdAt !== undefined && order.createdAt < run.start) run.start = order.createdAt;
}

export function setPhase(state: OrderFlowState, phase: OrderPhase): void {
  if (state.phase === phase) return;
  state.phase = phase;
  upsertSearchAttributes([{ key: ORDER_STATE_ATTRIBUTE, value: phase }]);
}

/** The phase an order waiting again is in: at risk once its reminders said so. */
export const waitingPhase = (run: OrderRun): OrderPhase =>
  run.state.remindersSent >= run.plan.afterMs.length ? 'at_risk' : 'awaiting_tracking';
