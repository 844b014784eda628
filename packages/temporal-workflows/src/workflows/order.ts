// One order from `v1:order.new` to shipped (id `order:<shopId>:<purchaseId>`, started once per order by the
// webhook receiver, the reconciliation or a client): the delist of its listings on every other shop (the
// delist-on-sale workflow, as a child under its own id, so still once), the hand-off to fulfilment, then a
// durable wait for the tracking code — the `markShipped` update — with reminders on timers while the order
// waits. After the last on-time reminder the order is at risk (search attribute `SellingKitOrderState`).
// Mark-as-shipped is verified before it is ever sent again (an answer lost after the API committed).
// A refund or cancellation seen on the order (each reminder reads it; `orderSeen` asks for a read) ends it.
// Decisions and timers here; requests in activities (activities/orders.ts); buyer data never in history.
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  log,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { delistWorkflowId } from '../contract.ts';
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
import { delistOnSaleWorkflow } from './delist-on-sale.ts';
import { markShippedUpdate, orderSeenSignal, orderStateQuery } from './messages.ts';
import {
  atRiskAt,
  orderInputProblem,
  outcomeOf,
  reminderDueMs,
  reminderPlan,
  shipRequestProblem,
  type ReminderPlan,
} from './order-plan.ts';
import { guardSignal, refuseInput, validateInput } from './refuse.ts';
import { READ_RETRY, SALE_ACTIVITY } from './retry-policies.ts';

export { orderWorkflowId } from '../contract.ts';

const { readOrder, shipParcel } = proxyActivities<Activities>(SALE_ACTIVITY);
// An event the operator's endpoint does not take within a few minutes is logged as undelivered: a
// reminder is never what keeps an order from being shipped.
const { notifyOrder } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { ...READ_RETRY, maximumAttempts: 8 },
});

/** Reads after an in-doubt mark-as-shipped (ms after the answer), before it is sent again. */
const VERIFY_DELAYS_MS = [1_000, 2_000, 4_000];
/** Sends of one tracking code, in doubt each time, before the flow stops and asks for `resend`. */
const MAX_SENDS = 3;

export interface OrderFlowResult {
  purchaseId: string;
  shopId: string;
  outcome: OrderOutcome;
  remindersSent: number;
  lastShip?: ShipResult;
}

/** One run of an order flow: its input, plan and what it knows. */
interface OrderRun {
  input: OrderFlowInput;
  plan: ReminderPlan;
  /** The workflow's start (ms): reminders count from here. */
  start: number;
  state: OrderFlowState;
  /** Mark-as-shipped requests waiting for the loop, each with how to answer it. */
  ships: { req: ShipRequest; answer: (r: ShipResult) => void }[];
  /** Something about the order changed: read it again. */
  seen: boolean;
}

export async function orderWorkflow(input: OrderFlowInput): Promise<OrderFlowResult> {
  refuseInput(input);
  const problem = orderInputProblem(input);
  if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidInput');
  const run: OrderRun = {
    input,
    plan: reminderPlan(input.reminders),
    start: workflowInfo().runStartTime.getTime(),
    state: {
      purchaseId: input.purchaseId,
      shopId: input.shop.shopId,
      phase: 'awaiting_tracking',
      parcelIds: [],
      shipped: [],
      remindersSent: 0,
      startedBy: input.startedBy,
    },
    ships: [],
    seen: false,
  };
  handleMessages(run);
  const outcome = await follow(run);
  run.state.phase = 'ended';
  run.state.outcome = outcome;
  run.state.nextReminderAt = undefined;
  upsertSearchAttributes([{ key: ORDER_STATE_ATTRIBUTE, value: outcome }]);
  // Requests that came while the order was ending are answered with how it ended.
  for (const { answer } of run.ships.splice(0)) answer({ status: 'closed', outcome });
  await condition(allHandlersFinished);
  const { purchaseId, shopId, remindersSent, lastShip } = run.state;
  return { purchaseId, shopId, outcome, remindersSent, ...(lastShip ? { lastShip } : {}) };
}

/** The order's life, once the flow has started: how it ended. */
async function follow(run: OrderRun): Promise<OrderOutcome> {
  const { input, state } = run;
  // The hand-off reads the order as it goes (one activity: the flow's first read); one not delivered
  // leaves the order to be read on its own.
  const [, handedOff] = await Promise.all([delist(input), notify(run, 'order.ready', 0)]);
  const order = handedOff ?? (await readOrder(input.shop, input.purchaseId));
  state.parcelIds = order.parcelIds;
  const early = outcomeOf(order);
  if (early) return early;
  for (;;) {
    const n = state.remindersSent + 1;
    const dueAt = run.start + Math.min(reminderDueMs(run.plan, n), run.plan.giveUpAfterMs);
    state.nextReminderAt = dueAt;
    // A wait already over is not a timer: the reminder goes now.
    if (dueAt > Date.now()) await condition(() => run.ships.length > 0 || run.seen, dueAt - Date.now());
    const next = run.ships.shift();
    if (next) {
      const result = await ship(run, next.req);
      next.answer(result);
      if (result.status === 'closed') return result.outcome;
      if (state.shipped.length >= state.parcelIds.length) return 'shipped';
      continue;
    }
    if (run.seen) {
      run.seen = false;
      const ended = outcomeOf(await readOrder(input.shop, input.purchaseId));
      if (ended) return ended;
      continue;
    }
    if (Date.now() >= run.start + run.plan.giveUpAfterMs) return 'unshipped';
    const atRisk = atRiskAt(run.plan, n);
    const seen = await notify(run, atRisk ? 'order.at_risk' : 'order.reminder', n);
    const ended = seen && outcomeOf(seen);
    if (ended) return ended;
    state.remindersSent = n;
    if (atRisk && state.phase === 'awaiting_tracking') setPhase(state, 'at_risk');
  }
}

/** The delist of the order's listings on every other shop: its own workflow, started once (or already). */
async function delist(input: OrderFlowInput): Promise<void> {
  if (!input.delist || !input.productIds?.length) return;
  try {
    await startChild(delistOnSaleWorkflow, {
      workflowId: delistWorkflowId(input.shop.shopId, input.purchaseId),
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [
        {
          purchaseId: input.purchaseId,
          source: input.shop,
          productIds: input.productIds,
          shops: input.delist.shops,
          skuMapPath: input.delist.skuMapPath,
        },
      ],
    });
  } catch (error) {
    // Started before (the webhook's delist, the sales reconciliation): it is that one's to finish.
    if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
  }
}

/**
 * An event to the operator's endpoint, which first reads the order (sent only while it waits to be
 * shipped): the order as read, or undefined when the event was not delivered after its attempts (logged;
 * the order goes on waiting).
 */
async function notify(run: OrderRun, event: OrderEvent['event'], n: number): Promise<OrderSeen | undefined> {
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
 * Mark-as-shipped for one parcel, verify-then-retry: an in-doubt answer is checked by reading the order
 * (shipped: done, once), and only an order still waiting is sent again, at most MAX_SENDS times. A parcel of
 * an order with several cannot be checked (parcels have no status of their own): in doubt, it waits for
 * a `resend`.
 */
async function ship(run: OrderRun, req: ShipRequest): Promise<ShipResult> {
  const { input, state } = run;
  const parcelId = req.parcelId ?? state.parcelIds[0]!;
  setPhase(state, 'shipping');
  const tracking = { carrier: req.carrier, trackingCode: req.trackingCode };
  let result: ShipResult | undefined;
  for (let sends = 0; !result; sends++) {
    const attempt = await shipParcel(input.shop, input.purchaseId, parcelId, tracking, {
      verifyFirst: sends > 0 || req.resend === true,
    });
    if (attempt.status === 'shipped') {
      state.shipped.push(parcelId);
      result = { status: 'shipped', parcelId, verified: attempt.verified };
    } else if (attempt.status === 'already_shipped')
      result = { status: 'closed', outcome: 'shipped_elsewhere' };
    else if (attempt.status === 'closed')
      result = { status: 'closed', outcome: outcomeOf({ status: attempt.orderStatus, parcelIds: [] })! };
    else if (attempt.status === 'refused') {
      const { code, message, httpStatus } = attempt;
      result = { status: 'refused', parcelId, code, message, ...(httpStatus ? { httpStatus } : {}) };
    } else if (state.parcelIds.length > 1 || sends + 1 >= MAX_SENDS)
      result = { status: 'in_doubt', parcelId };
    else result = await verifyShipped(run, parcelId);
  }
  state.lastShip = result;
  if (result.status === 'in_doubt') {
    setPhase(state, 'ship_in_doubt');
    await notify(run, 'order.ship_in_doubt', 0);
  } else if (result.status !== 'closed' && state.shipped.length < state.parcelIds.length)
    // Refused, or one parcel of several shipped: waiting again (at risk if its reminders said so).
    setPhase(state, state.remindersSent >= run.plan.afterMs.length ? 'at_risk' : 'awaiting_tracking');
  return result;
}

/**
 * After an in-doubt answer: the order read at growing delays. Shipped → done (verified); ended → closed;
 * still waiting after the last read → undefined (send again: the send reads once more first).
 */
async function verifyShipped(run: OrderRun, parcelId: string): Promise<ShipResult | undefined> {
  const { input, state } = run;
  for (const ms of VERIFY_DELAYS_MS) {
    await sleep(ms);
    const order = await readOrder(input.shop, input.purchaseId);
    const ended = outcomeOf(order);
    if (ended === 'shipped_elsewhere') {
      state.shipped.push(parcelId);
      return { status: 'shipped', parcelId, verified: true };
    }
    if (ended) return { status: 'closed', outcome: ended };
  }
  return undefined;
}

function setPhase(state: OrderFlowState, phase: OrderPhase): void {
  if (state.phase === phase) return;
  state.phase = phase;
  upsertSearchAttributes([{ key: ORDER_STATE_ATTRIBUTE, value: phase }]);
}

/** The state query, the order-seen signal, and the mark-as-shipped update (validated before it is recorded). */
function handleMessages(run: OrderRun): void {
  const { state } = run;
  setHandler(orderStateQuery, () => state);
  setHandler(
    orderSeenSignal,
    guardSignal('orderSeenSignal', () => {
      run.seen = true;
    }),
  );
  setHandler(
    markShippedUpdate,
    (req) => {
      // The same tracking again after it was shipped: the stored answer (a retried client call).
      const last = state.lastShip;
      if (
        last?.status === 'shipped' &&
        state.phase === 'ended' &&
        last.parcelId === (req.parcelId ?? last.parcelId)
      )
        return Promise.resolve(last);
      return new Promise<ShipResult>((answer) => run.ships.push({ req, answer }));
    },
    {
      validator: (req) => {
        validateInput(req);
        const problem = shipRequestProblem(req, state.parcelIds) ?? phaseProblem(state, req);
        if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidShipRequest');
      },
    },
  );
}

/** Why a mark-as-shipped request cannot be taken now, or undefined. */
function phaseProblem(state: OrderFlowState, req: ShipRequest): string | undefined {
  if (state.parcelIds.length === 0) return 'the order has not been read yet: try again in a moment';
  if (state.phase === 'ended')
    return state.lastShip?.status === 'shipped' &&
      state.lastShip.parcelId === (req.parcelId ?? state.lastShip.parcelId)
      ? undefined
      : `the order flow has ended: ${state.outcome}`;
  if (state.phase === 'shipping') return 'a mark-as-shipped for this order is in flight: wait for its answer';
  if (state.phase === 'ship_in_doubt' && req.resend !== true)
    return 'the last mark-as-shipped is in doubt: check the order, then send again with resend: true';
  return undefined;
}
