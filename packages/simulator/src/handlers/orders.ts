// Handlers for the "orders" operations: list (cursor pages, date window), get, mark a parcel shipped.
//
// SPEC GAPs chosen here:
// - List order: newest first (by purchase id, which grows with creation time).
// - Cursor: base64 of the last returned purchase id (the public reference's shape); opaque to clients;
//   anything that does not decode to a purchase id → 400 bad-request naming `cursor`.
//   `meta.cursor` is null on the last page (`has_more` false).
// - `from`/`to`: inclusive bounds on `created_at`; malformed → 400 naming the parameter;
//   `from` later than `to` → 422 validation (as the products list does for its date window).
// - The mark-shipped body arrives parsed by the table's schema (server.ts, params.ts parseBody).
import { ORDERS_PAGE_MAX, type MarkAsShippedRequest } from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { OrderRecord } from '../state.ts';
import { findOrder, markParcelShipped, orderToWire } from '../domain/orders.ts';
import { dateRangeParams, invalidCursor, limitParam, queryParam } from './params.ts';
import type { Handlers } from './types.ts';

export const ORDERS_PAGE_DEFAULT = 20;

export function encodeOrderCursor(purchaseId: string): string {
  return Buffer.from(purchaseId, 'utf8').toString('base64');
}

function decodeOrderCursor(raw: string | undefined): bigint | undefined {
  if (raw === undefined) return undefined;
  const decoded = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64').toString('utf8') : '';
  if (!/^\d{1,19}$/.test(decoded)) invalidCursor();
  return BigInt(decoded);
}

const idOf = (o: OrderRecord): bigint => (/^\d+$/.test(o.purchaseId) ? BigInt(o.purchaseId) : 0n);

/** Newest first: larger purchase ids first (ids grow with creation time). */
function byNewest(a: OrderRecord, b: OrderRecord): number {
  const d = idOf(b) - idOf(a);
  return d > 0n ? 1 : d < 0n ? -1 : b.createdAt - a.createdAt;
}

export const ordersHandlers: Handlers = {
  'orders.list': ({ seller, query }) => {
    const limit = limitParam(query, ORDERS_PAGE_DEFAULT, ORDERS_PAGE_MAX);
    const after = decodeOrderCursor(queryParam(query, 'cursor'));
    const { from, to } = dateRangeParams(query, 'from', 'to');
    const matching = [...seller.orders.values()]
      .filter(
        (o) =>
          (from === undefined || o.createdAt >= from) &&
          (to === undefined || o.createdAt <= to) &&
          (after === undefined || idOf(o) < after),
      )
      .sort(byNewest);
    const page = matching.slice(0, limit);
    const hasMore = matching.length > limit;
    return {
      body: {
        meta: {
          cursor: hasMore ? encodeOrderCursor(page[page.length - 1]!.purchaseId) : null,
          has_more: hasMore,
        },
        data: page.map(orderToWire),
      },
    };
  },

  'orders.get': ({ seller, params }) => ({ body: orderToWire(findOrder(seller, params.purchase_id)) }),

  'orders.markParcelShipped': ({ seller, params, body }) => {
    const request = body as MarkAsShippedRequest;
    const order = findOrder(seller, params.purchase_id);
    const parcelId = params.parcel_id ?? '';
    if (!order.parcels.has(parcelId))
      throw apiError('parcel_id_not_found', `no parcel ${parcelId} in order ${order.purchaseId}`);
    markParcelShipped(order, parcelId, { trackingNumber: request.tracking_number, carrier: request.carrier });
    return {};
  },
};
