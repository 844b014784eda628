// Products: the listing state machine (selling / sold / removed / banned), the write rules that need
// the seller's state, and the wire representation. Stateless rules come from the client core
// (`checkProductWrite` & co.) so the simulator and the client's local checks cannot drift apart.
import {
  checkProductPatch,
  checkProductWrite,
  checkHashtags,
  LISTING_COUNTRIES,
  OFFER_LIFETIME_MS,
  type Product,
  type ProductCreateRequest,
  type ProductKey,
  type ProductStatus,
  type RuleViolation,
  type Scope,
} from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { SimulatorConfig } from '../config.ts';
import type { EventSink } from '../handlers/types.ts';
import type { Principal, ProductRecord, SellerState, World } from '../state.ts';
import { brandById, BRANDS, matchBrand, PRODUCT_TYPES, SIZE_SETS } from './catalog.ts';
import { ingestPictures } from './pictures.ts';
import { shippingProvidersForAddress } from './orders.ts';

type Body = Record<string, unknown>;

/** Supported seller countries for listing (SPEC GAP: the spec names none; the public reference's markets). */
/** The countries a seller may list from (core LISTING_MARKETS). */
export const SUPPORTED_COUNTRIES: readonly string[] = LISTING_COUNTRIES;

function fail(v: RuleViolation): never {
  throw apiError(v.code, v.message);
}

/** Auto-offer prices need `offers_write` on top of `products_write` (public reference). */
function requireOffersWriteFor(body: Body, principal: Principal | undefined): void {
  const wantsOffers =
    body.auto_send_offer_price !== undefined || body.auto_negotiate_offer_price !== undefined;
  if (wantsOffers && principal && !principal.scopes.has('offers_write')) {
    throw apiError(
      'insufficient_scope',
      'missing required scope(s): offers_write (needed to set auto_send_offer_price or auto_negotiate_offer_price)',
    );
  }
}

/**
 * Listing writes (create, PUT, PATCH, manual offers) need an onboarded seller. SPEC GAP (which writes):
 * delete and mark-as-sold stay allowed, so a seller can always take a listing down.
 */
export function requireOnboardedSeller(seller: SellerState): void {
  if (seller.profile.onboardingIncomplete) {
    throw apiError(
      'seller_onboarding_incomplete',
      'the seller has not completed onboarding; do not retry until they have',
    );
  }
}

function requireWritableSeller(seller: SellerState): void {
  requireOnboardedSeller(seller);
  if (seller.profile.unsupportedCountry || !SUPPORTED_COUNTRIES.includes(seller.countryCode)) {
    throw apiError(
      'unsupported_country',
      `the seller's country ${seller.countryCode} is not supported for listings; supported countries: ${SUPPORTED_COUNTRIES.join(', ')}`,
    );
  }
}

/** Category, brand, size and shipping checks that need the catalogue or the seller's addresses. */
function checkCatalogueAndShipping(seller: SellerState, body: Body, brand: string): void {
  if (body.category_id !== undefined) {
    // SPEC GAP (legacy categories): a legacy `category_id` is refused; remap it to product_type + department.
    throw apiError(
      'invalid_department',
      'legacy category ids are not accepted: remap category_id to the current product_type and department',
    );
  }
  const type = PRODUCT_TYPES[String(body.product_type)];
  if (!type || !type.departments.includes(body.department as never)) {
    throw apiError(
      'invalid_department',
      `the category could not be resolved: product_type "${String(body.product_type)}" does not exist in department "${String(body.department)}"`,
    );
  }
  if (body.brand_id !== undefined && !brandById(Number(body.brand_id))) {
    throw apiError('invalid_brand', `brand_id ${String(body.brand_id)} is not a valid brand`);
  }
  checkHashtags(String(body.description), brand, BRANDS).forEach(fail);
  const sizeIds = sizeIdsOf(body);
  if (type.sizeSets.length === 0) {
    if (body.size_set_id !== undefined || sizeIds.length > 0)
      throw apiError(
        'invalid_size',
        `product_type "${String(body.product_type)}" has no sizes; omit size_set_id and size_id`,
      );
  } else if (sizeIds.length > 0 || body.size_set_id !== undefined) {
    const set = SIZE_SETS[Number(body.size_set_id)];
    if (!set || !type.sizeSets.includes(Number(body.size_set_id))) {
      throw apiError(
        'invalid_size',
        `size_set_id ${String(body.size_set_id)} is not valid for product_type "${String(body.product_type)}" (valid: ${type.sizeSets.join(', ')})`,
      );
    }
    const bad = sizeIds.find((id) => !set.sizes.includes(id));
    if (bad !== undefined || sizeIds.length === 0) {
      throw apiError(
        'invalid_size',
        `size_id ${String(bad ?? '(missing)')} is not in size set ${String(body.size_set_id)} (${set.name})`,
      );
    }
  }
  const shipping = body.depop_shipping as
    { address_id: number; shipping_provider_id: string; parcel_size_id: string } | undefined;
  if (shipping) {
    const providers = shippingProvidersForAddress(seller, shipping.address_id);
    if (!providers) {
      // Rule 5: generic_error with a 4xx status. SPEC GAP (which 4xx): 422, as for the other rules.
      throw apiError(
        'generic_error',
        `address ${shipping.address_id} does not belong to the authenticated seller`,
        422,
      );
    }
    const provider = providers.find((p) => p.id === shipping.shipping_provider_id);
    if (!provider)
      throw apiError(
        'validation',
        `shipping provider ${shipping.shipping_provider_id} is not available from address ${shipping.address_id} (available: ${providers.map((p) => p.id).join(', ')})`,
      );
    if (!provider.parcel_sizes.some((s) => s.id.toLowerCase() === shipping.parcel_size_id.toLowerCase())) {
      throw apiError(
        'validation',
        `parcel size ${shipping.parcel_size_id} is not offered by ${provider.id} (offered: ${provider.parcel_sizes.map((s) => s.id).join(', ') || 'none'})`,
      );
    }
  } else if (!seller.profile.manualShippingAllowed) {
    throw apiError(
      'manual_shipping_not_allowed',
      'this seller may not use manual shipping (national_shipping_cost); use depop_shipping',
    );
  }
}

/**
 * SPEC GAP (variants): the write schema carries one size_id, yet offers speak of multi-size products.
 * Ours: an optional `variants: [{ size_id, quantity }]` makes a multi-size listing.
 */
function sizeIdsOf(body: Body): number[] {
  if (Array.isArray(body.variants)) return body.variants.map((v) => Number((v as Body).size_id));
  return body.size_id === undefined ? [] : [Number(body.size_id)];
}

function variantsValid(body: Body): void {
  if (body.variants === undefined) return;
  const readable =
    Array.isArray(body.variants) &&
    body.variants.every(
      (v) =>
        v &&
        typeof v === 'object' &&
        Number.isInteger((v as Body).size_id) &&
        Number.isInteger((v as Body).quantity),
    );
  // Not a list of { size_id, quantity } integers cannot be read (400); a readable list that breaks
  // the rules is 422 (rules/violations.ts: the status classes).
  if (!readable)
    throw apiError('bad-request', 'variants must be an array of { size_id, quantity } objects (integers)');
  const variants = body.variants as Body[];
  if (variants.length < 2 || variants.some((v) => (v.quantity as number) < 1))
    throw apiError('validation', 'variants needs at least two { size_id, quantity ≥ 1 } entries');
  if (body.size_id !== undefined) throw apiError('validation', 'send either size_id or variants, not both');
}

/** Every check of a create or full update, in the service's order; resolves the brand. */
async function validateWrite(
  kind: 'create' | 'put',
  seller: SellerState,
  config: SimulatorConfig,
  body: unknown,
  principal?: Principal,
): Promise<{ brand: string }> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw apiError('bad-request', 'the request body must be a JSON object');
  const b = body as Body;
  requireOffersWriteFor(b, principal);
  requireWritableSeller(seller);
  const brand =
    b.brand_id !== undefined && brandById(Number(b.brand_id))
      ? brandById(Number(b.brand_id))!
      : matchBrand(String(b.brand_name ?? ''));
  const violations = checkProductWrite(kind, b, { minPercentOff: config.minPercentOff, brand });
  if (violations.length) fail(violations[0]!);
  variantsValid(b);
  checkCatalogueAndShipping(seller, b, brand);
  return { brand };
}

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
  if (record.state === 'banned')
    throw apiError(
      'product_has_been_banned',
      `product ${record.productId} has been banned and cannot be modified`,
    );
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

function requireNotBanned(record: ProductRecord): void {
  if (record.state === 'banned')
    throw apiError(
      'product_has_been_banned',
      `product ${record.productId} has been banned and cannot be modified`,
    );
}

function requireOnSale(record: ProductRecord): void {
  requireNotBanned(record);
  if (record.state !== 'selling')
    throw apiError(
      'product_not_on_sale',
      `product ${record.productId} is not on sale (it is ${record.state})`,
    );
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
 * A product by SKU, product id or slug, for this seller only, for reads. Removed products and listings
 * still in their read-after-create delay answer 404 product_not_found, as the spec warns.
 */
export function findProduct(seller: SellerState, key: ProductKey, value: string, now: number): ProductRecord {
  const record = findAnyProduct(seller, key, value);
  if (!record || record.state === 'removed' || record.visibleAt > now) {
    throw apiError(
      'product_not_found',
      `no product with ${key === 'product_id' ? 'product ID' : key} "${value}" for this seller`,
    );
  }
  return record;
}

/**
 * A product for a change (PUT by product ID or slug, PATCH, mark-as-sold, offers, staging purchase): as
 * findProduct, but a removed product is returned too, so the operation answers what the spec names for it:
 * 422 product_not_on_sale ("operation needs an on-sale product (it may be sold or removed)"), or the
 * no-op success of mark-as-sold. Only GET (and the list) hide removed products behind a 404.
 */
export function findProductForChange(
  seller: SellerState,
  key: ProductKey,
  value: string,
  now: number,
): ProductRecord {
  const record = findAnyProduct(seller, key, value);
  if (!record || record.visibleAt > now) {
    throw apiError(
      'product_not_found',
      `no product with ${key === 'product_id' ? 'product ID' : key} "${value}" for this seller`,
    );
  }
  return record;
}

/** The record behind a key including removed ones (for idempotent delete and the SKU upsert). */
export function findAnyProduct(
  seller: SellerState,
  key: ProductKey,
  value: string,
): ProductRecord | undefined {
  const id =
    key === 'sku'
      ? seller.skus.get(value)
      : key === 'slug'
        ? seller.slugs.get(value)
        : /^\d{1,15}$/.test(value)
          ? Number(value)
          : undefined;
  return id === undefined ? undefined : seller.products.get(id);
}

export function wireStatus(record: ProductRecord): ProductStatus {
  const soldStatus = record.soldVia === 'marked' ? 'MARKED_AS_SOLD' : 'PURCHASED';
  switch (record.state) {
    case 'selling':
      return 'STATUS_ONSALE';
    case 'sold':
      return `STATUS_${soldStatus}`;
    case 'removed':
      return record.previousState === 'sold' ? `STATUS_DELETED_${soldStatus}` : 'STATUS_DELETED_ONSALE';
    case 'banned':
      return record.previousState === 'sold'
        ? 'STATUS_PRODUCT_BANNED_PURCHASED'
        : 'STATUS_PRODUCT_BANNED_ONSALE';
  }
}

const WIRE_FIELDS = [
  'description',
  'price_currency',
  'price_amount',
  'discount_price',
  'national_shipping_cost',
  'international_shipping_cost',
  'depop_shipping',
  'department',
  'product_type',
  'size_set_id',
  'size_id',
  'condition',
  'variants',
];

/** The read model; auto-offer prices only for tokens holding `offers_read` (public reference). */
export function productToWire(record: ProductRecord, scopes: ReadonlySet<Scope>): Product {
  const f = record.fields;
  const wire: Record<string, unknown> = {
    sku: record.sku,
    product_id: record.productId,
    slug: record.slug,
    status: wireStatus(record),
    address: f.address,
    current_price: f.discount_price ?? f.price_amount,
    quantity: record.quantity,
    pictures: record.pictures,
    colour: f.colour ?? [],
    style: f.style ?? [],
    age: f.age ?? [],
    source: f.source ?? [],
    brand: record.brand,
    attributes: f.attributes ?? {},
    is_boosted: record.isBoosted,
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
  };
  for (const k of WIRE_FIELDS) if (f[k] !== undefined) wire[k] = f[k];
  if (scopes.has('offers_read')) {
    if (f.auto_send_offer_price !== undefined) wire.auto_send_offer_price = f.auto_send_offer_price;
    if (f.auto_negotiate_offer_price !== undefined)
      wire.auto_negotiate_offer_price = f.auto_negotiate_offer_price;
  }
  return wire as Product;
}

export function productUpdatedData(record: ProductRecord, changed: string[]): Record<string, unknown> {
  return {
    seller_id: record.sellerId,
    product_id: record.productId,
    sku: record.sku,
    slug: record.slug,
    status: wireStatus(record),
    changed_fields: changed,
  };
}

function likeData(record: ProductRecord, likerId: number) {
  return {
    seller_id: record.sellerId,
    product_id: record.productId,
    sku: record.sku,
    slug: record.slug,
    liker_id: likerId,
  };
}

/**
 * A buyer likes (or unlikes) a product — the admin surface and the staging like endpoint: fires
 * v1:product.like / v1:product.unlike when the like actually changes.
 */
export function setLike(
  seller: SellerState,
  productId: number,
  likerId: number,
  liked: boolean,
  opts: { events: EventSink },
): ProductRecord {
  const record = findAnyProduct(seller, 'product_id', String(productId));
  if (!record || record.state === 'removed')
    throw apiError('product_not_found', `no product with product ID "${productId}" for this seller`);
  const changed = liked ? !record.likes.has(likerId) : record.likes.has(likerId);
  if (changed) {
    if (liked) record.likes.add(likerId);
    else record.likes.delete(likerId);
    opts.events.emit(seller.id, liked ? 'v1:product.like' : 'v1:product.unlike', likeData(record, likerId));
  }
  return record;
}

export function likeProduct(
  _world: World,
  seller: SellerState,
  productId: number,
  likerId: number,
  opts: { now: number; events: EventSink },
): ProductRecord {
  return setLike(seller, productId, likerId, true, opts);
}

export function unlikeProduct(
  _world: World,
  seller: SellerState,
  productId: number,
  likerId: number,
  opts: { now: number; events: EventSink },
): ProductRecord {
  return setLike(seller, productId, likerId, false, opts);
}

export { OFFER_LIFETIME_MS };
