// Handlers for the "products" operations: create, list, and get / full update / patch / delete /
// mark-as-sold by SKU, product ID or slug, plus the staging-only purchase and like test endpoints.
import {
  checkSku,
  KIND_OF_KEY,
  PRODUCT_KEYS,
  PRODUCT_REF_KEYS,
  PRODUCTS_PAGE_MAX,
  ProductSortBy,
  ProductStateFilter,
  type ProductCreateRequest,
  type ProductKey,
} from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import {
  createListing,
  deleteListing,
  likeProduct,
  markListingSold,
  patchListing,
  updateListing,
} from '../domain/products.ts';
import { findAnyProduct, findProduct, findProductForChange } from '../domain/product-lookup.ts';
import { productToWire, productUpdatedData } from '../domain/product-wire.ts';
import { createOrder, DEFAULT_TEST_BUYER_ID } from '../domain/orders.ts';
import type { ProductRecord } from '../state.ts';
import type { Handler, HandlerContext, Handlers } from './types.ts';
import {
  dateRangeParams,
  enumParam,
  flagParam,
  invalidCursor,
  limitParam,
  positiveIntParam,
  queryParam,
} from './params.ts';

/** The operation-id suffix of a by-key operation (`BySku`): the core's product-key table. */
export const keySuffix = (key: ProductKey): string => PRODUCT_REF_KEYS[KIND_OF_KEY[key]].suffix;
const PRODUCTS_PAGE_DEFAULT = 20;
/** SPEC GAP (staging like): the liker is `?liker_id=` or this test user. */
const DEFAULT_TEST_LIKER_ID = 990_002;

export function keyParam(params: Record<string, string>, key: ProductKey): string {
  return params[KIND_OF_KEY[key]] ?? '';
}

function created(ctx: HandlerContext, record: ProductRecord, changed: string[]) {
  ctx.events.emit(ctx.seller.id, 'v1:product.updated', productUpdatedData(record, changed));
  return { body: { product_id: record.productId, slug: record.slug, sku: record.sku } };
}

function emitChange(ctx: HandlerContext, record: ProductRecord, changed: string[]) {
  if (changed.length > 0)
    ctx.events.emit(ctx.seller.id, 'v1:product.updated', productUpdatedData(record, changed));
}

const create: Handler = async (ctx) => {
  const record = await createListing(ctx.world, ctx.config, ctx.seller, ctx.body as ProductCreateRequest, {
    now: ctx.now,
    principal: ctx.principal,
  });
  return created(ctx, record, ['created']);
};

/** PUT by SKU is an upsert (public reference); by product ID or slug it updates existing products only. */
function update(key: ProductKey): Handler {
  return async (ctx) => {
    const value = keyParam(ctx.params, key);
    if (key === 'sku' && !ctx.seller.skus.has(value)) {
      // The upsert creates: the path's SKU meets the create rules (50 characters) like a body's would.
      const skuProblem = checkSku(value)[0];
      if (skuProblem) throw apiError(skuProblem.code, skuProblem.message);
      const body = { ...(ctx.body as object), sku: value } as ProductCreateRequest;
      const record = await createListing(ctx.world, ctx.config, ctx.seller, body, {
        now: ctx.now,
        principal: ctx.principal,
        kind: 'put',
      });
      return created(ctx, record, ['created']);
    }
    const record =
      key === 'sku'
        ? findAnyProduct(ctx.seller, key, value)!
        : findProductForChange(ctx.seller, key, value, ctx.now);
    const changed = await updateListing(ctx.config, ctx.seller, record, ctx.body as Record<string, unknown>, {
      now: ctx.now,
      principal: ctx.principal,
    });
    emitChange(ctx, record, changed);
    return { body: { product_id: record.productId, slug: record.slug, sku: record.sku } };
  };
}

function byKey(key: ProductKey): Record<string, Handler> {
  const s = keySuffix(key);
  return {
    [`products.get${s}`]: (ctx) => ({
      body: productToWire(
        findProduct(ctx.seller, key, keyParam(ctx.params, key), ctx.now),
        ctx.principal.scopes,
      ),
    }),
    [`products.update${s}`]: update(key),
    [`products.patch${s}`]: (ctx) => {
      const record = findProductForChange(ctx.seller, key, keyParam(ctx.params, key), ctx.now);
      emitChange(
        ctx,
        record,
        patchListing(ctx.config, record, ctx.body, {
          now: ctx.now,
          principal: ctx.principal,
          seller: ctx.seller,
        }),
      );
      return {};
    },
    [`products.delete${s}`]: (ctx) => {
      const failIfActive = flagParam(ctx.query, 'fail_if_active_offers');
      // Idempotent: deleting a removed product answers 200. SPEC GAP (never-existing key): 200 as well,
      // as the public reference documents ("200 even if absent").
      const record = findAnyProduct(ctx.seller, key, keyParam(ctx.params, key));
      if (record && deleteListing(ctx.seller, record, failIfActive, ctx.now))
        emitChange(ctx, record, ['status']);
      return {};
    },
    [`products.markAsSold${s}`]: (ctx) => {
      const record = findProductForChange(ctx.seller, key, keyParam(ctx.params, key), ctx.now);
      if (markListingSold(record, ctx.now)) emitChange(ctx, record, ['status']);
      return {};
    },
  };
}

function stagingByKey(key: ProductKey): Record<string, Handler> {
  const s = keySuffix(key);
  return {
    [`products.simulatePurchase${s}`]: (ctx) => {
      const record = findProductForChange(ctx.seller, key, keyParam(ctx.params, key), ctx.now);
      if (record.state === 'removed')
        throw apiError('product_not_on_sale', `product ${record.productId} is not on sale (it is removed)`);
      createOrder(ctx.world, ctx.seller, [record.productId], {
        now: ctx.now,
        buyerId: DEFAULT_TEST_BUYER_ID,
        events: ctx.events,
      });
      return {};
    },
    [`products.simulateLike${s}`]: (ctx) => {
      const record = findProduct(ctx.seller, key, keyParam(ctx.params, key), ctx.now);
      const likerId = positiveIntParam(ctx.query, 'liker_id', DEFAULT_TEST_LIKER_ID);
      likeProduct(ctx.seller, record.productId, likerId, ctx.events);
      return {};
    },
  };
}

// --- list ---------------------------------------------------------------------------------------------

type SortBy = (typeof ProductSortBy.options)[number];
interface Cursor {
  s: SortBy;
  c: number;
  i: number;
}

function decodeCursor(raw: string, sort: SortBy): Cursor {
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    if (c.s === sort && Number.isFinite(c.c) && Number.isInteger(c.i)) return c;
  } catch {
    // falls through to the 400 below
  }
  return invalidCursor(', with the same sort_by');
}

const COMPARE: Record<SortBy, (a: ProductRecord, b: ProductRecord) => number> = {
  id_desc: (a, b) => b.productId - a.productId,
  id_asc: (a, b) => a.productId - b.productId,
  created_date_desc: (a, b) => b.createdAt - a.createdAt || b.productId - a.productId,
};

const list: Handler = (ctx) => {
  const limit = limitParam(ctx.query, PRODUCTS_PAGE_DEFAULT, PRODUCTS_PAGE_MAX);
  const sort = enumParam(ctx.query, 'sort_by', ProductSortBy.options, 'id_desc');
  const state = enumParam(ctx.query, 'state', ProductStateFilter.options, 'all');
  const { from, to } = dateRangeParams(ctx.query, 'from_created_date', 'to_created_date');
  const rawCursor = queryParam(ctx.query, 'cursor');
  const cursor = rawCursor === undefined ? undefined : decodeCursor(rawCursor, sort);
  const compare = COMPARE[sort];
  // SPEC GAP: removed products are not listed; "all" means selling, sold and banned; listings still in
  // their read-after-create delay are not listed either (as GET by key).
  const items = [...ctx.seller.products.values()]
    .filter((p) => p.state !== 'removed' && p.visibleAt <= ctx.now)
    .filter((p) => state === 'all' || p.state === state)
    .filter((p) => (from === undefined || p.createdAt >= from) && (to === undefined || p.createdAt <= to))
    .sort(compare);
  const start = cursor
    ? items.findIndex((p) => compare({ productId: cursor.i, createdAt: cursor.c } as ProductRecord, p) < 0)
    : 0;
  const page = start < 0 ? [] : items.slice(start, start + limit);
  const last = page.at(-1);
  const hasMore = start >= 0 && start + limit < items.length;
  const next =
    hasMore && last
      ? Buffer.from(JSON.stringify({ s: sort, c: last.createdAt, i: last.productId })).toString('base64url')
      : null;
  return {
    body: {
      meta: { cursor: next, has_more: hasMore },
      data: page.map((p) => productToWire(p, ctx.principal.scopes)),
    },
  };
};

export const productsHandlers: Handlers = {
  'products.create': create,
  'products.list': list,
  ...Object.assign({}, ...PRODUCT_KEYS.map(byKey)),
  ...stagingByKey('sku'),
  ...stagingByKey('product_id'),
};
