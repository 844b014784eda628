// Dynamic options: the currency to use. An offer must be in its product's currency, so with a product
// picked that one currency is the answer. Otherwise the shop's currency: the Selling API's seller
// details carry a country but no currency (SPEC: SellerDetails = id, username, country_code), so it
// is read from the shop's own products, most used first.
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { PRODUCTS_PAGE_MAX } from '@selling-kit/api-client/core';
import { parseProductLocator } from '../../actions/productRef';
import { clientFor } from '../client';

/** The currencies of the shop's newest products (one page), most used first. */
export async function shopCurrencies(client: SellingClient): Promise<string[]> {
  const page = await client.products.list({ limit: PRODUCTS_PAGE_MAX, state: 'all' }).firstPage();
  const counts = new Map<string, number>();
  for (const p of page.data) counts.set(p.price_currency, (counts.get(p.price_currency) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([code]) => code);
}

export async function getCurrencies(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  const client = await clientFor(this);
  const locator = this.getCurrentNodeParameter('product') as { value?: unknown } | undefined;
  // An expression is only known when the workflow runs: then the currency is the shop's.
  const picked = String(locator?.value ?? '').startsWith('=') ? 'expression' : parseProductLocator(locator);
  if (typeof picked !== 'string') {
    const product = await client.products.get(picked);
    return [{ name: `${product.price_currency} (the product's currency)`, value: product.price_currency }];
  }
  return (await shopCurrencies(client)).map((code, i) => ({
    name: i === 0 ? `${code} (the shop's currency)` : code,
    value: code,
  }));
}
