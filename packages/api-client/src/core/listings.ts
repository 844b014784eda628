// What a listing is outside the wire: its state in the spec's words (selling, sold, removed, banned)
// from the service's `status`, its public page, and the markets a listing can be sold from with their
// currency. One home for the CLI's conformance probes, the n8n node's outputs and form, and the simulator.
import type { ProductStatus } from './schemas/products.ts';

export type ProductState = 'selling' | 'sold' | 'removed' | 'banned';

/**
 * SPEC GAP (state ↔ status): the spec's states and the public reference's statuses are not tied
 * together anywhere. Ours: ONSALE = selling; PURCHASED and MARKED_AS_SOLD = sold; every DELETED_* =
 * removed; every *_BANNED_* = banned.
 */
export const PRODUCT_STATE_OF_STATUS: Readonly<Record<ProductStatus, ProductState>> = {
  STATUS_ONSALE: 'selling',
  STATUS_PURCHASED: 'sold',
  STATUS_MARKED_AS_SOLD: 'sold',
  STATUS_DELETED: 'removed',
  STATUS_DELETED_ONSALE: 'removed',
  STATUS_DELETED_PURCHASED: 'removed',
  STATUS_DELETED_MARKED_AS_SOLD: 'removed',
  STATUS_PRODUCT_BANNED_ONSALE: 'banned',
  STATUS_USER_BANNED_ONSALE: 'banned',
  STATUS_PRODUCT_BANNED_PURCHASED: 'banned',
  STATUS_USER_BANNED_PURCHASED: 'banned',
};

/** The spec state of a wire status; undefined for a status the public reference does not list. */
export function productState(status: string): ProductState | undefined {
  return (PRODUCT_STATE_OF_STATUS as Record<string, ProductState>)[status];
}

/** Public reference: a listing's public page is `https://www.depop.com/products/{slug}/`. */
export const LISTING_URL_PREFIX = 'https://www.depop.com/products/';

/** The listing's public page. */
export function listingUrl(slug: string): string {
  return `${LISTING_URL_PREFIX}${encodeURIComponent(slug)}/`;
}

/**
 * SPEC GAP (listing markets): the countries a seller may list from, with the currency their listings are
 * priced in. The spec names GB/GBP and US/USD; the public reference adds the other markets. The client
 * never refuses another code (the service decides); the simulator serves exactly these.
 */
export const LISTING_MARKETS = {
  GB: 'GBP',
  US: 'USD',
  AU: 'AUD',
  IE: 'EUR',
  FR: 'EUR',
  DE: 'EUR',
  IT: 'EUR',
} as const;
export type ListingCountry = keyof typeof LISTING_MARKETS;
export const LISTING_COUNTRIES = Object.keys(LISTING_MARKETS) as ListingCountry[];
