// Finding a listing: by SKU, product ID or slug within one seller's shop (what the API's by-key paths
// see), or by product ID anywhere in the world (the admin surface). Which states a caller may see is
// the caller's choice: reads hide removed listings, changes reach them so they can answer what the
// spec names for a removed product.
import type { ProductKey } from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { ProductRecord, SellerState, World } from '../state.ts';

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

/** The record behind a key once it can be read (read-after-create delay); else 404 product_not_found. */
function findVisibleProduct(
  seller: SellerState,
  key: ProductKey,
  value: string,
  now: number,
  hideRemoved: boolean,
): ProductRecord {
  const record = findAnyProduct(seller, key, value);
  if (!record || (hideRemoved && record.state === 'removed') || record.visibleAt > now) {
    throw apiError(
      'product_not_found',
      `no product with ${key === 'product_id' ? 'product ID' : key} "${value}" for this seller`,
    );
  }
  return record;
}

/**
 * A product by SKU, product id or slug, for this seller only, for reads. Removed products and listings
 * still in their read-after-create delay answer 404 product_not_found, as the spec warns.
 */
export function findProduct(seller: SellerState, key: ProductKey, value: string, now: number): ProductRecord {
  return findVisibleProduct(seller, key, value, now, true);
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
  return findVisibleProduct(seller, key, value, now, false);
}

/** A product by id in any seller's shop, whatever its state (the admin surface). */
export function findProductInWorld(world: World, productId: number): ProductRecord | undefined {
  for (const seller of world.sellers.values()) {
    const p = seller.products.get(productId);
    if (p) return p;
  }
  return undefined;
}
