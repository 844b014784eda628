// The wire form of a listing: the read model the API returns (`productToWire`, `wireStatus`) and the
// data of the product webhook events (`productUpdatedData`, `productLikeData`).
import type { Product, ProductStatus, Scope } from '@selling-kit/api-client/core';
import type { ProductRecord } from '../state.ts';

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

/** The fields every product event starts with: whose listing, under each of its keys. */
function productEventKeys(record: ProductRecord) {
  return { seller_id: record.sellerId, product_id: record.productId, sku: record.sku, slug: record.slug };
}

/** `v1:product.updated`: the listing's status after the change and which fields changed. */
export function productUpdatedData(record: ProductRecord, changed: string[]): Record<string, unknown> {
  return { ...productEventKeys(record), status: wireStatus(record), changed_fields: changed };
}

/** `v1:product.like` / `v1:product.unlike`: who liked (or stopped liking) the listing. */
export function productLikeData(record: ProductRecord, likerId: number): Record<string, unknown> {
  return { ...productEventKeys(record), liker_id: likerId };
}
