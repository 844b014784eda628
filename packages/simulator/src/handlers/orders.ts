// Handlers for the "orders" operations: list (cursor pages, date window), get, mark a parcel shipped.
// Also the small request-parsing helpers the other order-side handler files share.
//
// SPEC GAPs chosen here:
// - List order: newest first (by purchase id, which grows with creation time).
// - Cursor: base64 of the last returned purchase id (the public reference's shape); opaque to clients;
//   anything that does not decode to a purchase id → 400 bad-request naming `cursor`.
//   `meta.cursor` is null on the last page (`has_more` false).
// - `from`/`to`: inclusive bounds on `created_at`; malformed → 400 naming the parameter;
//   `from` later than `to` → 422 validation (as the products list does for its date window).
// - Request bodies that do not match the core schema answer as the core maps them (400 for a body or a
//   value of the wrong JSON type, 422 validation for a missing field or a broken limit), naming the field.
import type { z } from 'zod/v4';
import {
  IsoDateTime,
  MarkAsShippedRequest,
  ORDERS_PAGE_MAX,
  violationsFromZod,
} from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { OrderRecord, SellerState } from '../state.ts';
import { markParcelShipped, orderToWire } from '../domain/orders.ts';
import type { Handlers } from './types.ts';

export const ORDERS_PAGE_DEFAULT = 20;

/**
 * Validates a JSON body with a core schema. Failures answer as the core maps them (rules/violations.ts):
 * 400 bad-request when the body is not a JSON object or a value has the wrong JSON type, else 422 with
 * the limit's code (usually `validation`), naming each field and rule.
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, name: string): z.infer<T> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body))
    throw apiError('bad-request', `the request body must be a JSON object (${name})`);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const violations = violationsFromZod(result.error);
  const unreadable = violations.filter((v) => v.code === 'bad-request');
  const shown = (unreadable.length ? unreadable : violations).slice(0, 5);
  const problems = shown.map(
    (v) =>
      `field "${v.field}": ${v.rule === 'required' ? 'is required' : v.message.replace(`${v.field}: `, '')}`,
  );
  throw apiError(shown[0]!.code, `invalid ${name}: ${problems.join('; ')}`);
}

/** One query parameter as a string; repeated → 400. */
export function queryParam(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw apiError('bad-request', `query parameter "${name}" must be given once`);
  return value;
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return ORDERS_PAGE_DEFAULT;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > ORDERS_PAGE_MAX)
    throw apiError(
      'bad-request',
      `query parameter "limit" must be an integer between 1 and ${ORDERS_PAGE_MAX}, got "${raw.slice(0, 40)}"`,
    );
  return n;
}

function parseDate(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!IsoDateTime.safeParse(raw).success)
    throw apiError(
      'bad-request',
      `query parameter "${name}" must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z, got "${raw.slice(0, 60)}"`,
    );
  return Date.parse(raw);
}

export function encodeOrderCursor(purchaseId: string): string {
  return Buffer.from(purchaseId, 'utf8').toString('base64');
}

function decodeOrderCursor(raw: string | undefined): bigint | undefined {
  if (raw === undefined) return undefined;
  const decoded = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64').toString('utf8') : '';
  if (!/^\d{1,19}$/.test(decoded))
    throw apiError(
      'bad-request',
      'query parameter "cursor" is not valid: pass meta.cursor from the previous page',
    );
  return BigInt(decoded);
}

const idOf = (o: OrderRecord): bigint => (/^\d+$/.test(o.purchaseId) ? BigInt(o.purchaseId) : 0n);

/** Newest first: larger purchase ids first (ids grow with creation time). */
function byNewest(a: OrderRecord, b: OrderRecord): number {
  const d = idOf(b) - idOf(a);
  return d > 0n ? 1 : d < 0n ? -1 : b.createdAt - a.createdAt;
}

export function findOrder(seller: SellerState, purchaseId: string | undefined): OrderRecord {
  const order = purchaseId === undefined ? undefined : seller.orders.get(purchaseId);
  if (!order)
    throw apiError('purchase_id_not_found', `no order with purchase ID ${purchaseId} for this seller`);
  return order;
}

export const ordersHandlers: Handlers = {
  'orders.list': ({ seller, query }) => {
    const limit = parseLimit(queryParam(query, 'limit'));
    const after = decodeOrderCursor(queryParam(query, 'cursor'));
    const from = parseDate(queryParam(query, 'from'), 'from');
    const to = parseDate(queryParam(query, 'to'), 'to');
    if (from !== undefined && to !== undefined && from > to)
      throw apiError('validation', 'query parameter "from" must not be later than "to"');
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
    const request = parseBody(MarkAsShippedRequest, body, 'MarkAsShippedRequest');
    const order = findOrder(seller, params.purchase_id);
    const parcelId = params.parcel_id ?? '';
    if (!order.parcels.has(parcelId))
      throw apiError('parcel_id_not_found', `no parcel ${parcelId} in order ${order.purchaseId}`);
    markParcelShipped(order, parcelId, { trackingNumber: request.tracking_number, carrier: request.carrier });
    return {};
  },
};
