// The picker's "From List": the shop's products, newest first, one API page per call with the API's
// cursor as n8n's pagination token. The API has no text search, so a filter is matched here (title,
// SKU, slug, ID, brand) over as many pages as it takes to fill a screen, never more than a few.
import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';
import { operation, PRODUCTS_PAGE_MAX, type Page, type Product } from '@selling-kit/api-client/core';
import { clientFor } from '../client';
import { listingUrl, statusWord } from '../../actions/products/output';

/** Matches wanted before a filtered search answers (the list shows about this many rows). */
export const SEARCH_SCREEN = 20;
/** API pages one filtered search reads at most before answering with what it found. */
export const SEARCH_MAX_PAGES = 5;

/** Characters of the description a row shows. */
export const TITLE_MAX = 32;

const excerpt = (text: string, max: number) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
};

/**
 * "SKU TEE-1 · Vintage black Nike tee, boxy fi… · 25.00 GBP", plus the status when not on sale. The SKU
 * (or the ID) comes first: it is what tells rows apart, and the editor's narrow dropdown cuts the end
 * of a row off; the title is cut short so the price still shows.
 */
export function productLabel(p: Product): string {
  const status = statusWord(p.status);
  return [
    p.sku ? `SKU ${p.sku}` : `ID ${p.product_id}`,
    excerpt(p.description || p.slug, TITLE_MAX),
    `${p.price_amount} ${p.price_currency}`,
    ...(status === 'on sale' ? [] : [status]),
  ].join(' · ');
}

function matches(p: Product, needle: string): boolean {
  return [p.description, p.sku, p.slug, String(p.product_id), p.brand]
    .filter((v): v is string => typeof v === 'string')
    .some((v) => v.toLowerCase().includes(needle));
}

export async function searchProducts(
  this: ILoadOptionsFunctions,
  filter?: string,
  paginationToken?: string,
): Promise<INodeListSearchResult> {
  const client = await clientFor(this);
  const needle = (filter ?? '').trim().toLowerCase();
  const path = operation('products.list').path;
  const results: INodeListSearchItems[] = [];
  let cursor = paginationToken || undefined;
  for (let pages = 0; pages < (needle ? SEARCH_MAX_PAGES : 1); pages++) {
    const page = await client.request<Page<Product>>({
      method: 'GET',
      path,
      query: { limit: needle ? PRODUCTS_PAGE_MAX : 50, state: 'all', sort_by: 'id_desc', cursor },
    });
    for (const p of page.data)
      if (!needle || matches(p, needle))
        results.push({ name: productLabel(p), value: String(p.product_id), url: listingUrl(p.slug) });
    cursor = page.meta.has_more && page.meta.cursor ? page.meta.cursor : undefined;
    if (!cursor || results.length >= SEARCH_SCREEN) break;
  }
  return { results, paginationToken: cursor };
}
