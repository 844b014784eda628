// What a product operation hands to the next node (version 2): the full listing, its public `url`, and
// its status as a word a no-code user can filter on (`on sale`, `sold`, `removed`, `banned`) with the
// wire value kept alongside as `status_code`. Shared by every operation that returns a listing.
import type { IDataObject } from 'n8n-workflow';
import { listingUrl, productState, type ProductState } from '@selling-kit/api-client/core';

export { listingUrl, LISTING_URL_PREFIX } from '@selling-kit/api-client/core';

export type StatusWord = 'on sale' | 'sold' | 'removed' | 'banned';

const WORD_OF_STATE: Record<ProductState, StatusWord> = {
  selling: 'on sale',
  sold: 'sold',
  removed: 'removed',
  banned: 'banned',
};

/**
 * The word for a wire status: the spec's state (the core's state ↔ status map), with "selling" read as
 * "on sale". A status the core does not know yet reads as its own name in lower case ("STATUS_DRAFT" →
 * "draft"), never as a wrong word.
 */
export function statusWord(code: string): StatusWord | string {
  const state = productState(code);
  if (state) return WORD_OF_STATE[state];
  return code
    .replace(/^STATUS_/, '')
    .replace(/_/g, ' ')
    .toLowerCase();
}

/** The full record for the output: every wire field, plus `url`, `status` (a word) and `status_code`. */
export function productOutput(record: object): IDataObject {
  const product = record as IDataObject;
  const out: IDataObject = { ...product };
  if (typeof product.status === 'string') {
    out.status = statusWord(product.status);
    out.status_code = product.status;
  }
  if (typeof product.slug === 'string' && product.slug) out.url = listingUrl(product.slug);
  return out;
}

/**
 * Simplify: the few fields a workflow usually needs, in a stable order. `withPicture` (node version 3)
 * adds `picture_url`, the main (first) picture, after `url`; version 2 keeps its fields as they were.
 */
export function simplifiedProduct(record: object, withPicture = false): IDataObject {
  const full = productOutput(record);
  const pictures = (record as { pictures?: { url?: unknown }[] }).pictures;
  if (withPicture && typeof pictures?.[0]?.url === 'string') full.picture_url = pictures[0].url;
  const keep = [
    'product_id',
    'sku',
    'slug',
    'url',
    'picture_url',
    'status',
    'description',
    'price_amount',
    'price_currency',
    'quantity',
    'brand',
    'is_boosted',
    'updated_at',
  ];
  return Object.fromEntries(keep.filter((k) => full[k] !== undefined).map((k) => [k, full[k]]));
}
