// Products: the listing lifecycle — create, full update (PUT), patch, delete, mark-as-sold, likes — and
// its state machine (selling / sold / removed / banned). What a write must pass first is in
// ./product-checks.ts, finding a listing in ./product-lookup.ts, the wire and event forms in
// ./product-wire.ts.
import { checkProductPatch, type ProductCreateRequest } from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { SimulatorConfig } from '../config.ts';
import type { EventSink } from '../platform/events.ts';
import type { Principal, ProductRecord, SellerState, World } from '../state.ts';
import { ingestPictures } from './pictures.ts';
import {
  fail,
  requireNotBanned,
  requireOffersWriteFor,
  requireOnboardedSeller,
  requireOnSale,
  sizeIdsOf,
  validateWrite,
  type Body,
} from './product-checks.ts';
import { findAnyProduct } from './product-lookup.ts';
import { productLikeData } from './product-wire.ts';

/**
 * SPEC GAP (slug format): the first five words of the description (hashtags dropped) plus the product id:
 * "Vintage Nike T-Shirt! #nike" + 7033001 → "vintage-nike-t-shirt-7033001" (the public reference's example).
 */
function slugify(description: string, id: number): string {
  const words = description
    .toLowerCase()
    .replace(/#\S+/g, '')
    .normalize('NFKD')
    .replace(/[^a-z0-9\s-]/g, '')
    .split(/\s+/)
    .map((w) => w.replace(/-+/g, '-').replace(/^-|-$/g, ''))
    .filter(Boolean)
    .slice(0, 5);
  return [...words, String(id)].join('-');
}

/** The write body as stored: minus the keys kept elsewhere, with the read model's defaults filled in. */
function storedFields(body: Body): Record<string, unknown> {
  const { sku: _sku, quantity: _q, is_boosted: _b, pictures: _p, ...rest } = body;
  return { attributes: {}, colour: [], style: [], age: [], source: [], ...rest };
}

function totalQuantity(body: Body): number {
  if (Array.isArray(body.variants))
    return body.variants.reduce((n, v) => n + Number((v as Body).quantity), 0);
  return Number(body.quantity);
}

/** Creates a listing after every check (used by POST, PUT-by-SKU upsert and the demo seed). */
export async function createListing(
  world: World,
  config: SimulatorConfig,
  seller: SellerState,
  body: ProductCreateRequest,
  opts: { now: number; skipPictureFetch?: boolean; principal?: Principal; kind?: 'create' | 'put' },
): Promise<ProductRecord> {
  const { brand } = await validateWrite(opts.kind ?? 'create', seller, config, body, opts.principal);
  const sku = body.sku ?? null;
  if (sku !== null && seller.skus.has(sku)) {
    // Rule 4. SPEC GAP (code): the spec says a duplicate SKU "fails validation": 422 validation.
    throw apiError(
      'validation',
      `a listing with SKU "${sku}" already exists for this seller (SKUs are never reusable, even after a sale or delete)`,
    );
  }
  const pictures = await ingestPictures(
    body.pictures.map((p) => p.url),
    config,
    opts.skipPictureFetch,
  );
  // The SKU may have been taken while pictures were fetched: re-check before committing.
  if (sku !== null && seller.skus.has(sku))
    throw apiError('validation', `a listing with SKU "${sku}" already exists for this seller`);
  const productId = ++world.ids.product;
  const record: ProductRecord = {
    productId,
    sellerId: seller.id,
    sku,
    slug: slugify(body.description, productId),
    state: 'selling',
    fields: storedFields(body as Body),
    brand,
    pictures,
    quantity: totalQuantity(body as Body),
    isBoosted: body.is_boosted ?? false,
    createdAt: opts.now,
    updatedAt: opts.now,
    visibleAt: opts.now + config.readAfterCreateDelayMs,
    likes: new Set(),
    bagCount: 0,
    variantSizeIds: Array.isArray((body as Body).variants) ? sizeIdsOf(body as Body) : [],
  };
  seller.products.set(productId, record);
  if (sku !== null) seller.skus.set(sku, productId);
  seller.slugs.set(record.slug, productId);
  return record;
}

/** Full update of an existing listing (PUT): size immutable, no variant conversion, is_boosted kept when omitted. */
export async function updateListing(
  config: SimulatorConfig,
  seller: SellerState,
  record: ProductRecord,
  body: Body,
  opts: { now: number; principal?: Principal },
): Promise<string[]> {
  requireNotBanned(record);
  if (record.state === 'removed') {
    // SPEC GAP: a removed product's SKU stays reserved and a full update of it (by SKU, product ID or
    // slug) is refused with the spec's product_not_on_sale ("it may be sold or removed"), not revived.
    throw apiError(
      'product_not_on_sale',
      `product ${record.productId} was deleted (removed), so it is not on sale and cannot be updated; its SKU stays reserved`,
    );
  }
  const { brand } = await validateWrite('put', seller, config, body, opts.principal);
  const wasMulti = (record.variantSizeIds ?? []).length > 0;
  if (!wasMulti && Array.isArray(body.variants)) {
    throw apiError(
      'validation',
      'a single-size product cannot be converted into a multi-size (variant) product; delete and recreate it',
    );
  }
  const oldSizes = wasMulti
    ? record.variantSizeIds!
    : record.fields.size_id === undefined
      ? []
      : [Number(record.fields.size_id)];
  const newSizes = sizeIdsOf(body);
  if (oldSizes.join(',') !== newSizes.join(',') || record.fields.size_set_id !== body.size_set_id) {
    throw apiError(
      'validation',
      'size_id cannot be changed on an existing product (rule 3): delete the listing and create it again',
    );
  }
  const pictures = await ingestPictures(
    (body.pictures as { url: string }[]).map((p) => p.url),
    config,
  );
  const before = { ...record.fields, quantity: record.quantity, is_boosted: record.isBoosted };
  record.fields = storedFields(body);
  record.brand = brand;
  record.pictures = pictures;
  record.quantity = totalQuantity(body);
  if (body.is_boosted !== undefined) record.isBoosted = Boolean(body.is_boosted);
  if (record.state === 'sold') {
    // Restock: the public reference restocks through PUT with the new quantity (a sold listing goes
    // back on sale; the spec shows no other transition out of sold).
    record.state = 'selling';
    record.soldVia = undefined;
  }
  record.updatedAt = opts.now;
  const after = { ...record.fields, quantity: record.quantity, is_boosted: record.isBoosted };
  return changedFields(before, after);
}

function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

/**
 * PATCH: an on-sale product's prices, quantity (0 sells out, spec) and boost. SPEC GAP: PATCH also takes
 * `is_boosted` (boost / unboost without a full PUT).
 *
 * Restocking by PATCH (spec, Endpoints): `quantity ≥ 1` on a sold listing puts it back on sale with the
 * rest of the body applied. SPEC GAP (restock after mark-as-sold): the spec has one `sold` state, so a
 * listing sold out by PATCH, by purchases or by mark-as-sold restocks alike; any other PATCH of a sold
 * listing is product_not_on_sale.
 */
export function patchListing(
  config: SimulatorConfig,
  record: ProductRecord,
  body: unknown,
  opts: { now: number; principal?: Principal; seller?: SellerState },
): string[] {
  const b = (body !== null && typeof body === 'object' && !Array.isArray(body) ? body : undefined) as
    Body | undefined;
  const restock = record.state === 'sold' && Number.isInteger(b?.quantity) && Number(b?.quantity) >= 1;
  if (!restock) requireOnSale(record);
  if (opts.seller) requireOnboardedSeller(opts.seller);
  if (!b) throw apiError('bad-request', 'the request body must be a JSON object');
  requireOffersWriteFor(b, opts.principal);
  const current = {
    price_amount: String(record.fields.price_amount),
    discount_price: record.fields.discount_price as string | undefined,
    auto_send_offer_price: record.fields.auto_send_offer_price as string | undefined,
    auto_negotiate_offer_price: record.fields.auto_negotiate_offer_price as string | undefined,
  };
  const violations = checkProductPatch(b, current, { minPercentOff: config.minPercentOff });
  if (violations.length) fail(violations[0]!);
  const changed: string[] = [];
  for (const field of [
    'price_amount',
    'discount_price',
    'auto_send_offer_price',
    'auto_negotiate_offer_price',
  ] as const) {
    if (b[field] !== undefined && b[field] !== record.fields[field]) {
      record.fields[field] = b[field];
      changed.push(field);
    }
  }
  if (b.is_boosted !== undefined && b.is_boosted !== record.isBoosted) {
    record.isBoosted = Boolean(b.is_boosted);
    changed.push('is_boosted');
  }
  if (b.quantity !== undefined && b.quantity !== record.quantity) {
    record.quantity = Number(b.quantity);
    changed.push('quantity');
    if (record.quantity === 0) sellOut(record, 'marked');
  }
  if (restock) {
    // A listing marked as sold keeps its last quantity; restocking names the quantity all the same,
    // so a webhook consumer sees what the listing is back on sale with.
    if (!changed.includes('quantity')) changed.push('quantity');
    record.state = 'selling';
    record.soldVia = undefined;
    changed.push('status');
  }
  record.updatedAt = opts.now;
  return changed;
}

function sellOut(record: ProductRecord, via: 'marked' | 'purchased'): void {
  record.state = 'sold';
  record.soldVia = via;
}

export function activeOffers(seller: SellerState, productId: number, now: number) {
  return seller.offers.filter((o) => o.productId === productId && o.state === 'active' && o.expiresAt > now);
}

/** DELETE: idempotent; refuses while offers are active if asked to; otherwise cancels them. */
export function deleteListing(
  seller: SellerState,
  record: ProductRecord,
  failIfActiveOffers: boolean,
  now: number,
): boolean {
  requireNotBanned(record);
  if (record.state === 'removed') return false;
  const offers = activeOffers(seller, record.productId, now);
  if (offers.length > 0 && failIfActiveOffers) {
    throw apiError(
      'product_has_active_offers',
      `product ${record.productId} has ${offers.length} active offer(s); retry without fail_if_active_offers to cancel them`,
    );
  }
  for (const offer of offers) offer.state = 'cancelled';
  record.previousState = record.state;
  record.state = 'removed';
  record.updatedAt = now;
  return true;
}

/**
 * Mark-as-sold: selling → sold; a no-op success in any other state but banned (public reference: "no-op
 * success if not in a selling state"). SPEC GAP: that includes a removed product (200, stays removed);
 * only a key that never existed answers 404.
 */
export function markListingSold(record: ProductRecord, now: number): boolean {
  requireNotBanned(record);
  if (record.state !== 'selling') return false;
  sellOut(record, 'marked');
  record.updatedAt = now;
  return true;
}

/**
 * A buyer likes (or unlikes) a product — the admin surface and the staging like endpoint: fires
 * v1:product.like / v1:product.unlike when the like actually changes.
 */
function setLike(
  seller: SellerState,
  productId: number,
  likerId: number,
  liked: boolean,
  events: EventSink,
): ProductRecord {
  const record = findAnyProduct(seller, 'product_id', String(productId));
  if (!record || record.state === 'removed')
    throw apiError('product_not_found', `no product with product ID "${productId}" for this seller`);
  const changed = liked ? !record.likes.has(likerId) : record.likes.has(likerId);
  if (changed) {
    if (liked) record.likes.add(likerId);
    else record.likes.delete(likerId);
    events.emit(seller.id, liked ? 'v1:product.like' : 'v1:product.unlike', productLikeData(record, likerId));
  }
  return record;
}

export function likeProduct(
  seller: SellerState,
  productId: number,
  likerId: number,
  events: EventSink,
): ProductRecord {
  return setLike(seller, productId, likerId, true, events);
}

export function unlikeProduct(
  seller: SellerState,
  productId: number,
  likerId: number,
  events: EventSink,
): ProductRecord {
  return setLike(seller, productId, likerId, false, events);
}
