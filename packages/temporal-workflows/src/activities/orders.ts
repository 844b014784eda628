// The order flow's activities (workflows/order.ts): read an order, mark one of its parcels shipped (one
// request per attempt, verified by a read first when an earlier send may have landed), and tell the
// operator's endpoint about the order (the hand-off to fulfilment, reminders). Buyer data and item text go
// from the API straight to that endpoint: the workflow (and so its history) sees statuses and ids only.
// Every request takes its turn in the shop's general group from the shop's lane (order-pacing.ts).
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  OutcomeUnknownError,
  RateLimitedError,
  SellingApiError,
  ServerError,
  TransportError,
  type SellingClient,
} from '@selling-kit/api-client';
import type { Order } from '@selling-kit/api-client/core';
import { orderWorkflowId } from '../contract.ts';
import type { ShopRef } from '../types.ts';
import type { OrderEvent, OrderEventsTarget, OrderOutcome, OrderSeen } from '../webhooks/order-types.ts';
import { outcomeOf } from '../workflows/order-plan.ts';
import type { ActivityContext } from './context.ts';
import { toActivityFailure } from './send.ts';
import { createOrderPacer } from './order-pacing.ts';
import { createOrderReconcileActivities } from './order-reconcile.ts';

/** One mark-as-shipped attempt, as the workflow decides on it. */
export type ShipAttempt =
  | { status: 'shipped'; verified: boolean }
  /** The order reads shipped (or completed) though this send did not make it so. */
  | { status: 'already_shipped' }
  /** The order is refunded or cancelled: nothing to ship. */
  | { status: 'closed'; outcome: OrderOutcome }
  | { status: 'refused'; code: string; message: string; httpStatus?: number; errorId?: string }
  /** The request may have landed (5xx, 504, a reset or timeout after it left): verify before sending again. */
  | { status: 'in_doubt'; code: string };

export interface ShipOptions {
  /** An earlier send may have landed: read the order first. */
  verifyFirst?: boolean;
  /** The order's parcels (a read confirms a parcel only when it is the only one). */
  parcels?: number;
  /** The user checked the order and asks to send again. */
  resend?: boolean;
}

/** Milliseconds an order event may take to be accepted by the operator's endpoint. */
const EVENT_TIMEOUT_MS = 10_000;

const seen = (order: Order): OrderSeen => {
  const createdAt = Date.parse(order.created_at);
  return {
    status: order.status,
    parcelIds: [...new Set((order.line_items ?? []).map((l) => String(l.parcel_id)))],
    ...(Number.isFinite(createdAt) ? { createdAt } : {}),
  };
};

export function createOrderActivities(ctx: ActivityContext) {
  const { clients, deps, taskQueue } = ctx;
  const pacer = createOrderPacer(() => deps.temporal!, taskQueue);
  deps.closers?.push(() => pacer.close());
  /** One request of `shop`'s, in its turn (unpaced without a Temporal client: a worker's tests). */
  const paced = async <T>(shop: ShopRef, send: () => Promise<T>): Promise<T> => {
    if (!deps.temporal) return send();
    const done = await pacer.take(shop);
    try {
      return await send();
    } finally {
      done();
    }
  };
  const getOrder = (shop: ShopRef, client: SellingClient, purchaseId: string) =>
    paced(shop, () => client.orders.get(purchaseId, { signal: Context.current().cancellationSignal }));
  const get = async (shop: ShopRef, client: SellingClient, purchaseId: string) =>
    seen(await getOrder(shop, client, purchaseId));

  return {
    ...createOrderReconcileActivities(ctx, async (shop, purchaseId) =>
      get(shop, await clients.clientFor(shop), purchaseId),
    ),
    /** The order's status and parcels (404 and other 4xx: not retried; 5xx and network: retried). */
    async readOrder(shop: ShopRef, purchaseId: string): Promise<OrderSeen> {
      try {
        return await get(shop, await clients.clientFor(shop), purchaseId);
      } catch (error) {
        return toActivityFailure(error);
      }
    },

    /**
     * Marks one parcel shipped: one request. Read first when an earlier send may have landed (a retry of
     * this activity, or `verifyFirst` after an in-doubt answer): an order already shipped is not sent again,
     * and a parcel of an order with several (which the read cannot confirm) is in doubt unless `resend`.
     */
    async shipParcel(
      shop: ShopRef,
      purchaseId: string,
      parcelId: string,
      tracking: { carrier: string; trackingCode: string },
      { verifyFirst = false, parcels = 1, resend = false }: ShipOptions = {},
    ): Promise<ShipAttempt> {
      const client = await clients.clientFor(shop);
      if (verifyFirst || Context.current().info.attempt > 1) {
        const order = await get(shop, client, purchaseId).catch(toActivityFailure);
        const known = settledBy(order);
        if (known) return known.status === 'already_shipped' ? { status: 'shipped', verified: true } : known;
        if (parcels > 1 && !resend) return { status: 'in_doubt', code: 'unverifiable' };
      }
      try {
        await paced(shop, () =>
          client.orders.markParcelShipped(
            purchaseId,
            parcelId,
            { carrier: tracking.carrier, tracking_number: tracking.trackingCode },
            { signal: Context.current().cancellationSignal },
          ),
        );
        return { status: 'shipped', verified: false };
      } catch (error) {
        return await shipFailed(() => get(shop, client, purchaseId), error);
      }
    },

    /**
     * Tells the operator's endpoint about the order (with the order as the API returns it), if it is still
     * waiting to be shipped. Returns the status read, so a reminder is also the order's check. Without an
     * endpoint, nothing is sent (`delivered: false`). A failed delivery is retried by Temporal.
     */
    async notifyOrder(shop: ShopRef, event: OrderEvent): Promise<OrderSeen & { delivered: boolean }> {
      const client = await clients.clientFor(shop);
      let order: Order;
      try {
        order = await getOrder(shop, client, event.purchaseId);
      } catch (error) {
        return toActivityFailure(error);
      }
      const target = deps.orderEvents;
      if (order.status !== 'SHIPPING_PENDING' || !target) return { ...seen(order), delivered: false };
      await postEvent(target, event, order);
      return { ...seen(order), delivered: true };
    },
  };
}

/** What an order's status settles for a parcel about to be sent, or undefined (still to ship). */
function settledBy(order: OrderSeen): ShipAttempt | undefined {
  const outcome = outcomeOf(order);
  if (outcome === 'shipped_elsewhere') return { status: 'already_shipped' };
  return outcome ? { status: 'closed', outcome } : undefined;
}

/**
 * A failed mark-as-shipped. Never left: thrown (Temporal retries; the retry reads first). A 429: thrown
 * with its Retry-After. May have landed: in doubt. SPEC GAP (README "Spec gaps", mark-as-shipped errors):
 * the spec documents 400 and 401 only; any other 4xx (a parcel already shipped, an order refunded) is
 * decided by reading the order.
 */
async function shipFailed(read: () => Promise<OrderSeen>, error: unknown): Promise<ShipAttempt> {
  if (error instanceof RateLimitedError) return toActivityFailure(error);
  if (error instanceof TransportError && !error.requestSent) return toActivityFailure(error);
  if (error instanceof OutcomeUnknownError || error instanceof TransportError || error instanceof ServerError)
    return { status: 'in_doubt', code: error.code };
  if (!(error instanceof SellingApiError)) throw error;
  if (error.status !== undefined && error.status !== 400 && error.status !== 401) {
    const known = settledBy(await read().catch(toActivityFailure));
    if (known) return known;
  }
  return {
    status: 'refused',
    code: error.code,
    message: error.message,
    ...(error.status !== undefined ? { httpStatus: error.status } : {}),
    ...(error.errorId ? { errorId: error.errorId } : {}),
  };
}

/**
 * POSTs the event to the operator's endpoint, at least once: `x-selling-kit-event-id` (the workflow id, the
 * event and its number) is the same on every try, for the receiver to drop repeats. Redirects are not
 * followed. A non-2xx answer is retried by Temporal (the workflow gives up after its attempts).
 */
async function postEvent(target: OrderEventsTarget, event: OrderEvent, order: Order): Promise<void> {
  const eventId = `${orderWorkflowId(event.shopId, event.purchaseId)}/${event.event}/${event.n}`;
  const response = await fetch(target.url, {
    method: 'POST',
    redirect: 'manual',
    signal: AbortSignal.any([Context.current().cancellationSignal, AbortSignal.timeout(EVENT_TIMEOUT_MS)]),
    headers: {
      'content-type': 'application/json',
      'x-selling-kit-event-id': eventId,
      ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
    },
    body: JSON.stringify({ ...event, eventId, order }),
  });
  await response.body?.cancel();
  if (!response.ok)
    throw ApplicationFailure.retryable(
      `the order events endpoint answered ${response.status} to ${event.event} (${eventId})`,
      'OrderEventUndelivered',
    );
}
