// The order flow's decisions that need no I/O (workflows/order.ts): when reminders are due, when the order
// is at risk, what an order's status means for the flow, and what a mark-as-shipped request may carry.
// Pure and deterministic: workflow code and unit tests use it alike.
import { idProblem } from '../contract.ts';
import type {
  OrderFlowInput,
  OrderOutcome,
  OrderReminders,
  OrderSeen,
  ShipRequest,
} from '../webhooks/order-types.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * SPEC GAP (README "Spec gaps", order reminders): the spec sets no dispatch deadline. The defaults remind
 * a day, two days and three days after the order; after the third the order is at risk and reminded of
 * weekly; the flow stops waiting after 30 days. A month of it is 6 reminders (under 200 history events).
 */
export const DEFAULT_ORDER_REMINDERS: Required<OrderReminders> = {
  afterMs: [DAY, 2 * DAY, 3 * DAY],
  atRiskEveryMs: 7 * DAY,
  giveUpAfterMs: 30 * DAY,
};

/** Reminders before the order is at risk, at most; and reminders in all (each ~11 history events). */
export const MAX_ON_TIME_REMINDERS = 10;
export const MAX_REMINDERS = 12;

export type ReminderPlan = Required<OrderReminders>;

/** The flow's reminder plan: the input's, each part defaulted. */
export function reminderPlan(reminders: OrderReminders | undefined): ReminderPlan {
  return { ...DEFAULT_ORDER_REMINDERS, ...reminders };
}

/** How many reminders the plan sends before giving up (on time and at risk). */
export function plannedReminders(plan: ReminderPlan): number {
  const last = plan.afterMs.at(-1) ?? 0;
  const atRisk = Math.max(0, Math.ceil((plan.giveUpAfterMs - last) / plan.atRiskEveryMs) - 1);
  return plan.afterMs.filter((ms) => ms < plan.giveUpAfterMs).length + atRisk;
}

/** When reminder number `n` (1 …) is due, in ms after the start: on time, then every `atRiskEveryMs`. */
export function reminderDueMs(plan: ReminderPlan, n: number): number {
  if (n <= plan.afterMs.length) return plan.afterMs[n - 1]!;
  return (plan.afterMs.at(-1) ?? 0) + (n - plan.afterMs.length) * plan.atRiskEveryMs;
}

/** Reminder `n` (1 …) leaves the order at risk: the last on-time reminder and every one after it. */
export const atRiskAt = (plan: ReminderPlan, n: number) => n >= plan.afterMs.length;

/** What is wrong with an order flow's input, naming the field and the rule, or undefined. */
export function orderInputProblem(input: OrderFlowInput): string | undefined {
  const bad =
    idProblem('purchaseId', input?.purchaseId) ??
    idProblem('shop.shopId', input?.shop?.shopId) ??
    (input.productIds !== undefined &&
    (!Array.isArray(input.productIds) || input.productIds.some((id) => !Number.isSafeInteger(id)))
      ? 'productIds must be a list of integer product ids'
      : undefined);
  return bad ?? remindersProblem(input.reminders);
}

function remindersProblem(reminders: OrderReminders | undefined): string | undefined {
  if (reminders === undefined) return undefined;
  const plan = reminderPlan(reminders);
  const ms = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;
  if (!Array.isArray(plan.afterMs) || plan.afterMs.length > MAX_ON_TIME_REMINDERS || !plan.afterMs.every(ms))
    return `reminders.afterMs must be a list of at most ${MAX_ON_TIME_REMINDERS} durations in ms (> 0)`;
  if (plan.afterMs.some((v, i) => i > 0 && v <= plan.afterMs[i - 1]!))
    return 'reminders.afterMs must be in ascending order';
  if (!ms(plan.atRiskEveryMs) || !ms(plan.giveUpAfterMs))
    return 'reminders.atRiskEveryMs and reminders.giveUpAfterMs must be durations in ms (> 0)';
  if (plannedReminders(plan) > MAX_REMINDERS)
    return `reminders plan ${plannedReminders(plan)} reminders before giving up; at most ${MAX_REMINDERS} (a longer atRiskEveryMs or a shorter giveUpAfterMs)`;
  return undefined;
}

/** The flow's end an order's status calls for, or undefined while it waits to be shipped. */
export function outcomeOf(order: OrderSeen): OrderOutcome | undefined {
  switch (order.status) {
    case 'SHIPPED':
    case 'COMPLETED':
      return 'shipped_elsewhere';
    case 'REFUNDED':
      return 'refunded';
    case 'CANCELLED':
      return 'cancelled';
    default:
      return undefined;
  }
}

/** What is wrong with a mark-as-shipped request whatever its order holds, or undefined. */
export function shipRequestShapeProblem(req: ShipRequest): string | undefined {
  if (req === null || typeof req !== 'object')
    return 'the request must be { carrier, trackingCode, parcelId? }';
  if (typeof req.carrier !== 'string' || req.carrier.trim() === '' || req.carrier.length > 100)
    return 'carrier must be a non-empty text of at most 100 characters';
  if (typeof req.trackingCode !== 'string' || req.trackingCode === '' || req.trackingCode.length > 500)
    return 'trackingCode must be a non-empty text of at most 500 characters';
  return undefined;
}

/**
 * What is wrong with a mark-as-shipped request for an order with `parcelIds`, or undefined. Only its shape
 * is checked here: the tracking code's rules are the API's to apply (its answer is the update's).
 */
export function shipRequestProblem(req: ShipRequest, parcelIds: readonly string[]): string | undefined {
  return shipRequestShapeProblem(req) ?? parcelProblem(req, parcelIds);
}

/** A request's parcel against the order's `parcelIds` (its shape already checked), or undefined. */
export function parcelProblem(req: ShipRequest, parcelIds: readonly string[]): string | undefined {
  if (req.parcelId === undefined)
    return parcelIds.length === 1
      ? undefined
      : `this order has ${parcelIds.length} parcels (${parcelIds.join(', ')}): name one (parcelId)`;
  if (!parcelIds.includes(req.parcelId))
    return `parcel ${String(req.parcelId)} is not a parcel of this order (${parcelIds.join(', ')})`;
  return undefined;
}
