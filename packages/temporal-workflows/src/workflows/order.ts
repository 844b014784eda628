// One order from `v1:order.new` to shipped (id `order:<shopId>:<purchaseId>`, started once per order by the
// webhook receiver, the reconciliation or a client): the delist of its listings on every other shop (the
// delist-on-sale workflow, as a child under its own id, so still once), the hand-off to fulfilment, then a
// durable wait for the tracking code — the `markShipped` update (order-ship.ts: verify-then-retry) — with
// reminders on timers while the order waits. After the last on-time reminder the order is at risk (search
// attribute `SellingKitOrderState`). A refund, a cancellation or a shipment elsewhere seen on the order (each
// reminder reads it; `orderSeen` asks for a read) ends it. Nothing but its end or giving up ends the flow:
// a read that fails is read again at the next turn. Decisions and timers here; requests in activities
// (activities/orders.ts); buyer data never in history.
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  setHandler,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { mainTaskQueueOf, ORDER_NOT_READ_YET } from '../contract.ts';
import { ORDER_STATE_ATTRIBUTE } from '../search-attributes.ts';
import type { OrderFlowInput, OrderOutcome, ShipRequest, ShipResult } from '../webhooks/order-types.ts';
import { delistOnSaleWorkflow } from './delist-on-sale.ts';
import { delistChild } from './reconcile-sales.ts';
import { markShippedUpdate, orderSeenSignal, orderStateQuery } from './messages.ts';
import {
  atRiskAt,
  orderInputProblem,
  parcelProblem,
  reminderDueMs,
  reminderPlan,
  shipRequestShapeProblem,
} from './order-plan.ts';
import { endOf, learn, notify, read, setPhase, type OrderRun } from './order-run.ts';
import { ship } from './order-ship.ts';
import { anObject, guardSignal, refuseInput, validateInput } from './refuse.ts';

/** While the order has not been read (the API unreachable): read again this often (ms). */
const UNREAD_RETRY_MS = 60_000;

export interface OrderFlowResult {
  purchaseId: string;
  shopId: string;
  outcome: OrderOutcome;
  remindersSent: number;
  lastShip?: ShipResult;
  /** The request that shipped the last parcel (a retried request is answered only when it is the same). */
  shippedWith?: { parcelId: string; carrier: string; trackingCode: string };
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
    maybeSent: false,
    events: [],
  };
  handleMessages(run);
  const outcome = await follow(run);
  run.state.phase = 'ended';
  run.state.outcome = outcome;
  run.state.nextReminderAt = undefined;
  upsertSearchAttributes([{ key: ORDER_STATE_ATTRIBUTE, value: outcome }]);
  // Requests that came while the order was ending are answered with how it ended.
  for (const { answer } of run.ships.splice(0)) answer({ status: 'closed', outcome });
  await Promise.all(run.events);
  await condition(allHandlersFinished);
  const { purchaseId, shopId, remindersSent, lastShip, shippedWith } = run.state;
  return {
    purchaseId,
    shopId,
    outcome,
    remindersSent,
    ...(lastShip ? { lastShip } : {}),
    ...(shippedWith ? { shippedWith } : {}),
  };
}

/** The order's life, once the flow has started: how it ended. */
async function follow(run: OrderRun): Promise<OrderOutcome> {
  const { state } = run;
  // Read first (the flow takes a tracking code from then on); the hand-off goes meanwhile.
  const [order] = await Promise.all([read(run), delist(run.input)]);
  if (order) {
    learn(run, order);
    const ended = endOf(run, order);
    if (ended) return ended;
  }
  run.events.push(notify(run, 'order.ready', 0));
  for (;;) {
    const n = state.remindersSent + 1;
    const dueAt = run.start + Math.min(reminderDueMs(run.plan, n), run.plan.giveUpAfterMs);
    state.nextReminderAt = dueAt;
    const wakeAt = state.parcelIds.length ? dueAt : Math.min(dueAt, Date.now() + UNREAD_RETRY_MS);
    // A wait already over is not a timer: the turn is now.
    if (wakeAt > Date.now()) await condition(() => run.ships.length > 0 || run.seen, wakeAt - Date.now());
    const ended = await turn(run, n, dueAt);
    if (ended) return ended;
  }
}

/** One wake of the loop: a mark-as-shipped, a read asked for, or the reminder due. How it ended, if it did. */
async function turn(run: OrderRun, n: number, dueAt: number): Promise<OrderOutcome | undefined> {
  const { state } = run;
  const next = run.ships.shift();
  if (next) {
    const result = await ship(run, next.req);
    next.answer(result);
    if (result.status === 'closed') return result.outcome;
    return state.shipped.length >= state.parcelIds.length ? 'shipped' : undefined;
  }
  if (run.seen || state.parcelIds.length === 0) {
    run.seen = false;
    const order = await read(run);
    if (order) learn(run, order);
    return order && endOf(run, order);
  }
  if (Date.now() < dueAt) return undefined;
  if (Date.now() >= run.start + run.plan.giveUpAfterMs) return 'unshipped';
  const atRisk = atRiskAt(run.plan, n);
  const seen = await notify(run, atRisk ? 'order.at_risk' : 'order.reminder', n);
  const ended = seen && endOf(run, seen);
  if (ended) return ended;
  state.remindersSent = n;
  if (atRisk && state.phase === 'awaiting_tracking') setPhase(state, 'at_risk');
  return undefined;
}

/** The delist of the order's listings on every other shop: its own workflow, started once (or already). */
async function delist(input: OrderFlowInput): Promise<void> {
  if (!input.delist || !input.productIds?.length) return;
  try {
    await startChild(delistOnSaleWorkflow, {
      ...delistChild(input.delist, input.shop, {
        purchaseId: input.purchaseId,
        productIds: input.productIds,
      }),
      // On the main queue, as every other delist: never behind the order flows' own tasks.
      taskQueue: mainTaskQueueOf(workflowInfo().taskQueue),
    });
  } catch (error) {
    // Started before (the webhook's delist, the sales reconciliation): it is that one's to finish.
    if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
  }
}

/** The state query, the order-seen signal, and the mark-as-shipped update (validated before it is recorded). */
function handleMessages(run: OrderRun): void {
  const { state } = run;
  setHandler(orderStateQuery, () => state);
  // Only with its `{ source }`: a payload the codec has checked (a bare signal would carry none).
  setHandler(
    orderSeenSignal,
    guardSignal(
      'orderSeenSignal',
      () => {
        run.seen = true;
      },
      anObject,
    ),
  );
  setHandler(
    markShippedUpdate,
    (req) =>
      // The same request again after the flow ended shipped: the stored answer (a retried client call).
      state.phase === 'ended' && state.lastShip
        ? Promise.resolve(state.lastShip)
        : new Promise<ShipResult>((answer) => run.ships.push({ req, answer })),
    {
      validator: (req) => {
        validateInput(req);
        // What is wrong whatever the order holds (the request's shape, a flow that has ended) first; then,
        // its parcels being known once the order is read, a request before that is asked to come again.
        const refuse = (problem: string | undefined) => {
          if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidShipRequest');
        };
        refuse(shipRequestShapeProblem(req) ?? endedProblem(state, req));
        if (state.parcelIds.length === 0)
          throw ApplicationFailure.nonRetryable(
            'the order has not been read yet: try again in a moment',
            ORDER_NOT_READ_YET,
          );
        refuse(parcelProblem(req, state.parcelIds) ?? takeProblem(run, req));
      },
    },
  );
}

/** A request to a flow that has ended: refused, unless it is the one it ended shipped with (its answer). */
function endedProblem(state: OrderRun['state'], req: ShipRequest): string | undefined {
  if (state.phase !== 'ended') return undefined;
  const w = state.shippedWith;
  const parcelId = req.parcelId ?? state.parcelIds[0];
  const same =
    w && w.parcelId === parcelId && w.carrier === req.carrier && w.trackingCode === req.trackingCode;
  return same ? undefined : `the order flow has ended: ${state.outcome}`;
}

/** Why a mark-as-shipped request cannot be taken now, or undefined (the flow is running). */
function takeProblem({ state, ships }: OrderRun, req: ShipRequest): string | undefined {
  if (state.phase === 'ended') return undefined; // the request it ended shipped with (endedProblem)
  const parcelId = req.parcelId ?? state.parcelIds[0]!;
  if (state.phase === 'shipping' || ships.length > 0)
    return 'a mark-as-shipped for this order is in flight: wait for its answer';
  if (state.shipped.includes(parcelId)) return `parcel ${parcelId} is marked shipped already`;
  if (state.phase === 'ship_in_doubt' && req.resend !== true)
    return 'the last mark-as-shipped is in doubt: check the order, then send again with resend: true';
  return undefined;
}
