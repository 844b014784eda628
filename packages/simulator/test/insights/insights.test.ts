import { ProductInsightsResponse, ShopInsightsResponse, type Scope } from '@selling-kit/api-client/core';
import type { ProductRecord } from '../../src/state.ts';
import {
  addProduct,
  expectError,
  expectSchema,
  newOrder,
  oauthToken,
  otherShop,
  testShopPerFile,
} from '../fixtures.ts';

const shop = testShopPerFile({}, ({ seller }) => {
  seller.products.clear();
  seller.skus.clear();
  seller.slugs.clear();
  seller.orders.clear();
  seller.offers.length = 0;
  seller.ratingAverage = 4.8;
  seller.ratingCount = 0;
});

const SHOP = '/api/v1/insights/shop/live/';
const tokenWith = (...scopes: Scope[]) => oauthToken(shop, scopes);
const shopInsights = async (token?: string) => {
  const res = await shop.call('GET', SHOP, undefined, token ? { token } : {});
  expect(res.status).toBe(200);
  return expectSchema(ShopInsightsResponse, res.body);
};

function addOffer(
  product: ProductRecord,
  state: 'active' | 'cancelled' | 'expired' = 'active',
  ttlMs = 86_400_000,
) {
  const now = shop.sim.world.clock.now();
  shop.seller.offers.push({
    id: `offer-${shop.seller.offers.length + 1}`,
    productId: product.productId,
    recipientId: 555,
    value: 20,
    currency: 'GBP',
    createdAt: now,
    expiresAt: now + ttlMs,
    state,
  });
}

/** 2 on sale (1 boosted), 1 sold (boosted), 1 removed, 1 banned. */
function stockShop() {
  const w = shop.sim.world;
  addProduct(w, shop.seller, { isBoosted: true });
  addProduct(w, shop.seller);
  addProduct(w, shop.seller, { state: 'sold', quantity: 0, isBoosted: true });
  addProduct(w, shop.seller, { state: 'removed' });
  addProduct(w, shop.seller, { state: 'banned' });
}

describe('GET /api/v1/insights/shop/live/', () => {
  test('an API key (every scope) gets every section, counted from state', async () => {
    stockShop();
    shop.seller.ratingAverage = 4.6;
    shop.seller.ratingCount = 12;
    const order = newOrder(shop); // one more product, sold through an order awaiting shipping
    expect(order.status).toBe('SHIPPING_PENDING');
    expect(await shopInsights()).toEqual({
      products: { on_sale_count: 2, total_count: 5 },
      boost: { live_count: 1, sold_count: 1 },
      rating: { average: 4.6, count: 12 },
      offers: { awaiting_seller_review_count: 0 },
      orders: { awaiting_shipping_count: 1 },
    });
  });

  test('products_read unlocks products and boost only', async () => {
    stockShop();
    newOrder(shop);
    expect(Object.keys(await shopInsights(tokenWith('products_read'))).sort()).toEqual(['boost', 'products']);
  });

  test('shop_read unlocks rating only (average 0 while there are no ratings)', async () => {
    expect(await shopInsights(tokenWith('shop_read'))).toEqual({ rating: { average: 0, count: 0 } });
  });

  test('offers_read unlocks offers only', async () => {
    expect(await shopInsights(tokenWith('offers_read'))).toEqual({
      offers: { awaiting_seller_review_count: 0 },
    });
  });

  test('orders_read unlocks orders: omitted at zero, capped at 20, shipped and fully refunded orders excluded', async () => {
    const token = tokenWith('orders_read');
    expect(await shopInsights(token)).toEqual({});
    const orders = Array.from({ length: 23 }, () => newOrder(shop));
    expect(await shopInsights(token)).toEqual({ orders: { awaiting_shipping_count: 20 } });
    for (const o of orders.slice(0, 5)) o.status = 'SHIPPED';
    await shop.call('POST', `/api/v1/orders/${orders[5]!.purchaseId}/refund/`, {
      items_refund_amount: '25.00',
    });
    await shop.call('POST', `/api/v1/orders/${orders[6]!.purchaseId}/refund/`, {
      items_refund_amount: '1.00',
    });
    expect(await shopInsights(token)).toEqual({ orders: { awaiting_shipping_count: 17 } });
  });

  test('two scopes unlock two sections', async () => {
    const body = await shopInsights(tokenWith('shop_read', 'offers_read'));
    expect(Object.keys(body).sort()).toEqual(['offers', 'rating']);
  });

  test('none of the four scopes → 403 insufficient_scope naming them', async () => {
    const msg = expectError(
      await shop.call('GET', SHOP, undefined, { token: tokenWith('orders_write', 'products_write') }),
      403,
      'insufficient_scope',
    );
    expect(msg).toContain('products_read');
  });
});

describe('GET /api/v1/insights/products/{by-sku|by-product-id|by-slug}/…/live/', () => {
  const paths = (p: ProductRecord) => [
    `/api/v1/insights/products/by-sku/${p.sku}/live/`,
    `/api/v1/insights/products/by-product-id/${p.productId}/live/`,
    `/api/v1/insights/products/by-slug/${p.slug}/live/`,
  ];

  test('every key answers likes, bags, boost and offers counted from state', async () => {
    const product = addProduct(shop.sim.world, shop.seller, { likes: [1, 2, 3], bagCount: 2 });
    addOffer(product);
    addOffer(product);
    addOffer(product, 'cancelled');
    addOffer(product, 'active', -1); // already past its expiry
    for (const path of paths(product)) {
      const res = await shop.call('GET', path);
      expect(res.status).toBe(200);
      expect(expectSchema(ProductInsightsResponse, res.body)).toEqual({
        likes_count: 3,
        bag_count: 2,
        boost: { organic_impressions: 80, organic_clicks: 8 },
        offers: { awaiting_seller_review_count: 0, awaiting_buyer_review_count: 2 },
      });
    }
  });

  test('a boosted product also reports boosted clicks and impressions', async () => {
    const product = addProduct(shop.sim.world, shop.seller, { likes: [7], isBoosted: true });
    const res = await shop.call('GET', paths(product)[1]!);
    expect(res.body.boost).toEqual({
      organic_impressions: 20,
      organic_clicks: 2,
      boosted_impressions: 10,
      boosted_clicks: 1,
    });
  });

  test('products_read → likes, bags, boost; offers_read → offers', async () => {
    const product = addProduct(shop.sim.world, shop.seller, { likes: [1] });
    const [bySku] = paths(product);
    const pr = await shop.call('GET', bySku!, undefined, { token: tokenWith('products_read') });
    expect(Object.keys(expectSchema(ProductInsightsResponse, pr.body)).sort()).toEqual([
      'bag_count',
      'boost',
      'likes_count',
    ]);
    const or = await shop.call('GET', bySku!, undefined, { token: tokenWith('offers_read') });
    expect(or.body).toEqual({ offers: { awaiting_seller_review_count: 0, awaiting_buyer_review_count: 0 } });
    expectError(
      await shop.call('GET', bySku!, undefined, { token: tokenWith('shop_read', 'orders_read') }),
      403,
      'insufficient_scope',
    );
  });

  test('missing, another seller’s, removed or not yet visible → 404 product_not_found', async () => {
    for (const path of [
      '/api/v1/insights/products/by-sku/NOPE/live/',
      '/api/v1/insights/products/by-product-id/123/live/',
      '/api/v1/insights/products/by-product-id/abc/live/',
      '/api/v1/insights/products/by-slug/no-such-slug/live/',
    ])
      expectError(await shop.call('GET', path), 404, 'product_not_found');
    const other = otherShop(shop);
    const foreign = addProduct(shop.sim.world, other.seller);
    for (const path of paths(foreign)) expectError(await shop.call('GET', path), 404, 'product_not_found');
    const removed = addProduct(shop.sim.world, shop.seller, { state: 'removed' });
    for (const path of paths(removed)) expectError(await shop.call('GET', path), 404, 'product_not_found');
    const hidden = addProduct(shop.sim.world, shop.seller, {
      visibleAt: shop.sim.world.clock.now() + 60_000,
    });
    expectError(await shop.call('GET', paths(hidden)[0]!), 404, 'product_not_found');
    shop.sim.world.clock.advance(60_000);
    expect((await shop.call('GET', paths(hidden)[0]!)).status).toBe(200);
  });

  test('a sold product still has insights', async () => {
    const order = newOrder(shop, { likes: [9] });
    const product = shop.seller.products.get(order.lineItems[0]!.product_id)!;
    expect(product.state).toBe('sold');
    expect((await shop.call('GET', paths(product)[2]!)).body.likes_count).toBe(1);
  });
});
