// Handlers for the "insights" operations: live shop and product insights. Each section appears only
// when the credential holds the scope that unlocks it (the server already checked that at least one
// of them is held). Counting rules and their SPEC GAP choices are in ../domain/insights.ts.
import { apiError } from '../errors.ts';
import { productInsights, shopInsights } from '../domain/insights.ts';
import type { ProductRecord, SellerState } from '../state.ts';
import type { Handler, Handlers } from './types.ts';

/**
 * The seller's product by key, as product reads see it: missing, another seller's, removed, or not yet
 * visible (read-after-create delay) → undefined.
 */
function lookupProduct(
  seller: SellerState,
  key: 'sku' | 'product_id' | 'slug',
  value: string,
  now: number,
): ProductRecord | undefined {
  let id: number | undefined;
  if (key === 'sku') id = seller.skus.get(value);
  else if (key === 'slug') id = seller.slugs.get(value);
  else id = /^\d{1,15}$/.test(value) ? Number(value) : undefined;
  const product = id === undefined ? undefined : seller.products.get(id);
  if (!product || product.sellerId !== seller.id || product.state === 'removed' || product.visibleAt > now)
    return undefined;
  if (key === 'sku' && product.sku !== value) return undefined;
  return product;
}

function productHandler(key: 'sku' | 'product_id' | 'slug', param: string): Handler {
  return ({ seller, principal, params, now }) => {
    const value = params[param] ?? '';
    const product = lookupProduct(seller, key, value, now);
    if (!product)
      throw apiError('product_not_found', `no product with ${key} "${value.slice(0, 60)}" in this shop`);
    return { body: productInsights(seller, product, principal.scopes, now) };
  };
}

export const insightsHandlers: Handlers = {
  'insights.shop': ({ seller, principal, now }) => ({ body: shopInsights(seller, principal.scopes, now) }),
  'insights.productBySku': productHandler('sku', 'sku'),
  'insights.productByProductId': productHandler('product_id', 'productId'),
  'insights.productBySlug': productHandler('slug', 'slug'),
};
