// Live insights, derived from the world's state at the moment of the request.
//
// SPEC GAPs chosen here (the public reference documents the fields, not how they are counted):
// - Counters are live (the service's "can lag up to 60 minutes" is not simulated).
// - products.total_count counts every product of the shop except removed (deleted) ones;
//   on_sale_count counts products in the selling state.
// - boost.live_count = boosted products on sale; boost.sold_count = boosted products sold.
// - rating: the seller's stored average and count; the average is 0 while the count is 0.
// - offers.awaiting_seller_review_count: the simulator models only offers sent by the seller (manual
//   and automatic offers to buyers), not offers made by buyers, so this counter is always 0.
//   Product insights' awaiting_buyer_review_count = the product's active offers not yet expired.
// - orders.awaiting_shipping_count: orders in SHIPPING_PENDING (fully refunded orders are REFUNDED
//   and so excluded), capped at 20; the section is omitted when zero. No recency window.
// - Product boost metrics are synthetic: organic_impressions = 20 × likes + 10 × bags,
//   organic_clicks = 2 × likes + bags; boosted_impressions = 10 × likes + 5 × bags and
//   boosted_clicks = likes, present only while the product is boosted.
import type { ProductInsightsResponse, Scope, ShopInsightsResponse } from '@selling-kit/api-client/core';
import type { ProductRecord, SellerState } from '../state.ts';

export const AWAITING_SHIPPING_MAX = 20;

export function activeOffersOf(seller: SellerState, productId: number | undefined, now: number): number {
  return seller.offers.filter(
    (o) =>
      o.state === 'active' && o.expiresAt > now && (productId === undefined || o.productId === productId),
  ).length;
}

export function shopInsights(
  seller: SellerState,
  scopes: ReadonlySet<Scope>,
  // Kept for time-based counters (e.g. offers expiring); the current sections do not need it.
  _now: number,
): ShopInsightsResponse {
  const out: ShopInsightsResponse = {};
  const products = [...seller.products.values()];
  if (scopes.has('products_read')) {
    out.products = {
      on_sale_count: products.filter((p) => p.state === 'selling').length,
      total_count: products.filter((p) => p.state !== 'removed').length,
    };
    out.boost = {
      live_count: products.filter((p) => p.isBoosted && p.state === 'selling').length,
      sold_count: products.filter((p) => p.isBoosted && p.state === 'sold').length,
    };
  }
  if (scopes.has('shop_read')) {
    out.rating = {
      average: seller.ratingCount > 0 ? seller.ratingAverage : 0,
      count: seller.ratingCount,
    };
  }
  if (scopes.has('offers_read')) {
    out.offers = { awaiting_seller_review_count: 0 };
  }
  if (scopes.has('orders_read')) {
    const awaiting = [...seller.orders.values()].filter((o) => o.status === 'SHIPPING_PENDING').length;
    if (awaiting > 0) out.orders = { awaiting_shipping_count: Math.min(AWAITING_SHIPPING_MAX, awaiting) };
  }
  return out;
}

export function productInsights(
  seller: SellerState,
  product: ProductRecord,
  scopes: ReadonlySet<Scope>,
  now: number,
): ProductInsightsResponse {
  const out: ProductInsightsResponse = {};
  if (scopes.has('products_read')) {
    const likes = product.likes.size;
    const bags = product.bagCount;
    out.likes_count = likes;
    out.bag_count = bags;
    out.boost = {
      organic_impressions: 20 * likes + 10 * bags,
      organic_clicks: 2 * likes + bags,
      ...(product.isBoosted ? { boosted_impressions: 10 * likes + 5 * bags, boosted_clicks: likes } : {}),
    };
  }
  if (scopes.has('offers_read')) {
    out.offers = {
      awaiting_seller_review_count: 0,
      awaiting_buyer_review_count: activeOffersOf(seller, product.productId, now),
    };
  }
  return out;
}
