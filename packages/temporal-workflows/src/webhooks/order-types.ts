// Types of the order flow (workflows/order.ts): one durable workflow per purchase, from `v1:order.new` to the
// parcel marked shipped — the delist, the hand-off to fulfilment, reminders while the order waits for its
// tracking code, and mark-as-shipped with verify-then-retry. Types only (workflow code imports them).
import type { ReconcileInput, ReconcileResult, ShopRef } from '../types.ts';

/**
 * When the order's reminders go out, in ms after the order was seen (the workflow's start). SPEC GAP
 * (README "Spec gaps", order reminders): the marketplace states no dispatch deadline in the spec; the defaults
 * (`DEFAULT_ORDER_REMINDERS`) follow the common "dispatch within a few days" expectation.
 */
export interface OrderReminders {
  /** Reminders while the order is on time (ascending, at most 10). After the last the order is at risk. */
  afterMs?: number[];
  /** While at risk: one more reminder every this long. */
  atRiskEveryMs?: number;
  /** The workflow stops waiting this long after the start (the order stays SHIPPING_PENDING): `unshipped`. */
  giveUpAfterMs?: number;
}

export interface OrderFlowInput {
  /** The order's purchase id: with the shop it names the workflow (`order:<shopId>:<purchaseId>`). */
  purchaseId: string;
  /** The shop that sold. */
  shop: ShopRef;
  /** Product ids of the order's line items (from the webhook): what the delist marks sold elsewhere. */
  productIds?: number[];
  /** Every connected shop, to mark the sold listings sold on (the delist-on-sale workflow, as a child). */
  delist?: { shops: ShopRef[]; skuMapPath?: string };
  /** Who started it (shown in its state). */
  startedBy?: 'webhook' | 'reconciliation' | 'client';
  reminders?: OrderReminders;
}

/** How flows started for a shop's orders run (the webhook receiver's, the reconciliation's). */
export interface OrderFlowSettings {
  /** Mark the sold listings sold on these shops too (the delist-on-sale workflow, as the flow's child). */
  delist?: { shops: ShopRef[]; skuMapPath?: string };
  reminders?: OrderReminders;
}

/** Where an order flow is. Its value is also the search attribute `SellingKitOrderState` while it runs. */
export type OrderPhase = 'awaiting_tracking' | 'at_risk' | 'shipping' | 'ship_in_doubt';

/** How an order flow ended. */
export type OrderOutcome =
  /** Marked shipped by this workflow (`verified`: an answer was lost, and the order read back shipped). */
  | 'shipped'
  /** The order was found shipped (or completed) without this workflow's mark-as-shipped. */
  | 'shipped_elsewhere'
  | 'refunded'
  | 'cancelled'
  /** Still SHIPPING_PENDING when the workflow gave up waiting (`giveUpAfterMs`). */
  | 'unshipped';

/** The `markShipped` update's argument: the tracking of one parcel. */
export interface ShipRequest {
  /** The parcel to mark; optional when the order has one parcel (every order today). */
  parcelId?: string;
  carrier: string;
  /** Several tracking numbers comma-separated, no spaces (the API's rule). */
  trackingCode: string;
  /** Send again after an in-doubt answer the order could not confirm (multi-parcel orders). */
  resend?: boolean;
}

/** The `markShipped` update's answer. */
export type ShipResult =
  | { status: 'shipped'; parcelId: string; verified: boolean }
  /** The API refused it (the order keeps waiting for a corrected code). */
  | { status: 'refused'; parcelId: string; code: string; message: string; httpStatus?: number }
  /** The answer was lost and the order could not confirm it: send again with `resend: true`. */
  | { status: 'in_doubt'; parcelId: string }
  /** The order ended before it could be shipped. */
  | { status: 'closed'; outcome: OrderOutcome };

/** The order as the workflow reads it (GET order): no buyer data, which never enters history. */
export interface OrderSeen {
  status: string;
  parcelIds: string[];
  /** When the order was made (epoch ms), when the API says. */
  createdAt?: number;
}

/** The `orderState` query's answer. */
export interface OrderFlowState {
  purchaseId: string;
  shopId: string;
  phase: OrderPhase | 'ended';
  outcome?: OrderOutcome;
  parcelIds: string[];
  /** Parcels this workflow marked shipped. */
  shipped: string[];
  remindersSent: number;
  /** When the next reminder is due (epoch ms), while the order waits. */
  nextReminderAt?: number;
  lastShip?: ShipResult;
  /** The request that shipped the last parcel: a retried request is answered only when it is the same. */
  shippedWith?: { parcelId: string; carrier: string; trackingCode: string };
  startedBy?: OrderFlowInput['startedBy'];
}

/** What a reminder or a hand-off event tells the operator's endpoint (the activity adds the order's facts). */
export interface OrderEvent {
  event: 'order.ready' | 'order.reminder' | 'order.at_risk' | 'order.ship_in_doubt';
  purchaseId: string;
  shopId: string;
  /** The reminder's number (1 …), 0 for other events: with the workflow id, the event's idempotency key. */
  n: number;
}

/** What a reconciliation run did to a shop's order flows. */
export interface OrderFlowsReconciled {
  /** Orders waiting to be shipped in the window. */
  pending: number;
  /** Flows started now (their webhook was missed). */
  started: number;
  /** Running flows whose order was read (those not among `pending`). */
  looked: number;
  /** Of those, flows told to read their order again: it was no longer waiting to be shipped. */
  told: number;
}

/** The orders reconciliation's input, with order flows (workflows/reconcile-orders.ts). */
export interface ReconcileOrdersInput extends ReconcileInput {
  /**
   * Every order still waiting gets its flow (a missed webhook), and every running flow of the shop reads its
   * order again (one shipped, refunded or cancelled outside the kit ends).
   */
  orderFlows?: OrderFlowSettings;
}

export interface ReconcileOrdersResult extends ReconcileResult {
  /** With `orderFlows`: what the run did to them. */
  orderFlows?: OrderFlowsReconciled;
}

/** Where the order events go: the operator's endpoint (an n8n Webhook node, …), never a job's input. */
export interface OrderEventsTarget {
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
}
