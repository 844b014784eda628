// Product events: v1:product.updated on every change (create, PUT, PATCH, delete, mark-as-sold), none
// for no-ops; v1:product.like / unlike with the slug from the staging like endpoints and the domain.
import {
  ProductLikeData,
  ProductStatus,
  ProductUpdatedData,
  WebhookEvent,
} from '@selling-kit/api-client/core';
import { adminCall } from '../helpers.ts';
import { likeProduct, unlikeProduct } from '../../src/domain/products.ts';
import { addShop } from '../../src/testing.ts';
import { createProduct, putBody, testShopPerTest } from '../fixtures.ts';

const shop = testShopPerTest();

/** The events emitted since `from`, as [type, data]. */
const eventsSince = (from: number) =>
  shop.sim.webhooks.events.slice(from).map((e) => ({ type: e.eventType, seller: e.sellerId, data: e.data }));

describe('v1:product.updated', () => {
  it('fires on create, PUT, PATCH, mark-as-sold and delete with keys, status and changed fields', async () => {
    const start = shop.sim.webhooks.events.length;
    const { product_id, slug } = await createProduct(shop);
    await shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody({ price_amount: '25.00' }));
    await shop.call('PATCH', `/api/v1/products/by-product-id/${product_id}/`, { quantity: 2 });
    await shop.call('POST', `/api/v1/products/by-slug/${slug}/mark-as-sold/`);
    await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/');
    const events = eventsSince(start);
    expect(events.map((e) => e.type)).toEqual(Array(5).fill('v1:product.updated'));
    for (const e of events) {
      const data = ProductUpdatedData.parse(e.data);
      expect(data).toMatchObject({ seller_id: shop.seller.id, product_id, slug, sku: 'TEE-1' });
      expect(ProductStatus.options).toContain(data.status);
      expect(e.seller).toBe(shop.seller.id);
    }
    expect(events.map((e) => [e.data.status, e.data.changed_fields])).toEqual([
      ['STATUS_ONSALE', ['created']],
      ['STATUS_ONSALE', ['price_amount']],
      ['STATUS_ONSALE', ['quantity']],
      ['STATUS_MARKED_AS_SOLD', ['status']],
      ['STATUS_DELETED_MARKED_AS_SOLD', ['status']],
    ]);
  });

  it('fires when purchases change a listing (quantity, then sold out) and when it is banned', async () => {
    const { product_id } = await createProduct(shop);
    await shop.call('PATCH', `/api/v1/products/by-product-id/${product_id}/`, { quantity: 2 });
    const start = shop.sim.webhooks.events.length;
    expect((await shop.call('POST', '/api/v1/products/by-sku/TEE-1/purchase/')).status).toBe(200);
    expect((await shop.call('POST', '/api/v1/products/by-sku/TEE-1/purchase/')).status).toBe(200);
    const updates = eventsSince(start).filter((e) => e.type === 'v1:product.updated');
    expect(updates.map((e) => [e.data.status, e.data.changed_fields])).toEqual([
      ['STATUS_ONSALE', ['quantity']],
      ['STATUS_PURCHASED', ['quantity', 'status']],
    ]);

    const other = await createProduct(shop, { sku: 'TEE-2' });
    const beforeBan = shop.sim.webhooks.events.length;
    expect((await adminCall(shop.sim, 'POST', `/admin/products/${other.product_id}/ban`)).status).toBe(200);
    expect((await adminCall(shop.sim, 'POST', `/admin/products/${other.product_id}/ban`)).status).toBe(200);
    const banned = eventsSince(beforeBan);
    expect(banned).toHaveLength(1); // a second ban changes nothing
    expect(banned[0]).toMatchObject({ type: 'v1:product.updated', seller: shop.seller.id });
    expect(ProductUpdatedData.parse(banned[0]!.data)).toMatchObject({
      product_id: other.product_id,
      changed_fields: ['status'],
    });
    expect(banned[0]!.data.status).toMatch(/BANNED/);
  });

  it('an order through the admin surface: order.new, then one product.updated per listing; a refused order emits nothing', async () => {
    const a = await createProduct(shop, { sku: 'TEE-A' });
    const b = await createProduct(shop, { sku: 'TEE-B' });
    await shop.call('PATCH', `/api/v1/products/by-product-id/${a.product_id}/`, { quantity: 3 });
    const start = shop.sim.webhooks.events.length;
    const order = await adminCall(shop.sim, 'POST', '/admin/orders', {
      sellerId: shop.seller.id,
      productIds: [a.product_id, a.product_id, b.product_id], // two units of A, B sells out
    });
    expect(order.status).toBe(201);
    const events = eventsSince(start);
    expect(events.map((e) => [e.type, e.data.product_id ?? e.data.purchase_id])).toEqual([
      ['v1:order.new', order.body.purchaseId],
      ['v1:product.updated', a.product_id],
      ['v1:product.updated', b.product_id],
    ]);
    expect(events.slice(1).map((e) => [e.data.status, e.data.changed_fields])).toEqual([
      ['STATUS_ONSALE', ['quantity']],
      ['STATUS_PURCHASED', ['quantity', 'status']],
    ]);
    for (const e of events.slice(1)) ProductUpdatedData.parse(e.data);

    const before = shop.sim.webhooks.events.length;
    const refused = await adminCall(shop.sim, 'POST', '/admin/orders', {
      sellerId: shop.seller.id,
      productIds: [a.product_id, b.product_id], // B is sold out: nothing is bought, nothing changes
    });
    expect(refused.status).toBe(422);
    expect(eventsSince(before)).toEqual([]);
  });

  it('the event envelope parses with the core WebhookEvent schema', async () => {
    await createProduct(shop);
    const e = shop.sim.webhooks.events.at(-1)!;
    const envelope = WebhookEvent.parse({
      id: e.id,
      event_type: e.eventType,
      created_at: e.createdAt,
      data: e.data,
    });
    expect(envelope.event_type).toBe('v1:product.updated');
  });

  it('no event for no-ops: mark-as-sold of a sold product, delete of a removed one, an unchanged PATCH or PUT', async () => {
    await createProduct(shop);
    await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { price_amount: '20.00' });
    await shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody());
    const afterNoChange = shop.sim.webhooks.events.length;
    expect(afterNoChange).toBe(1); // only the create
    await shop.call('POST', '/api/v1/products/by-sku/TEE-1/mark-as-sold/');
    const sold = shop.sim.webhooks.events.length;
    expect((await shop.call('POST', '/api/v1/products/by-sku/TEE-1/mark-as-sold/')).status).toBe(200);
    expect(shop.sim.webhooks.events.length).toBe(sold);
    await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/');
    const removed = shop.sim.webhooks.events.length;
    expect((await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/')).status).toBe(200);
    expect(shop.sim.webhooks.events.length).toBe(removed);
  });

  it('a restock by PATCH names quantity and status, whether sold out by PATCH or by mark-as-sold', async () => {
    await createProduct(shop); // quantity 1
    await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { quantity: 0 });
    const start = shop.sim.webhooks.events.length;
    expect((await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { quantity: 1 })).status).toBe(200);
    await shop.call('POST', '/api/v1/products/by-sku/TEE-1/mark-as-sold/');
    // Marked as sold with quantity 1 still on record: restocking with 1 is still a change of quantity.
    expect((await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { quantity: 1 })).status).toBe(200);
    const events = eventsSince(start).map((e) => [e.data.status, e.data.changed_fields]);
    expect(events).toEqual([
      ['STATUS_ONSALE', ['quantity', 'status']],
      ['STATUS_MARKED_AS_SOLD', ['status']],
      ['STATUS_ONSALE', ['quantity', 'status']],
    ]);
  });

  it('a failed write emits nothing', async () => {
    await createProduct(shop);
    const before = shop.sim.webhooks.events.length;
    expect(
      (await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { discount_price: '99.00' })).status,
    ).toBe(422);
    expect((await shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody({ size_id: 20 }))).status).toBe(
      422,
    );
    expect(shop.sim.webhooks.events.length).toBe(before);
  });
});

describe('v1:product.like and v1:product.unlike', () => {
  it('staging like by SKU and by product ID fires v1:product.like with the slug and the liker', async () => {
    const { product_id, slug } = await createProduct(shop);
    const start = shop.sim.webhooks.events.length;
    expect((await shop.call('POST', '/api/v1/products/by-sku/TEE-1/like/?liker_id=501')).status).toBe(200);
    expect((await shop.call('POST', `/api/v1/products/by-product-id/${product_id}/like/`)).status).toBe(200);
    const likes = eventsSince(start);
    expect(likes.map((e) => e.type)).toEqual(['v1:product.like', 'v1:product.like']);
    expect(ProductLikeData.parse(likes[0]!.data)).toEqual({
      seller_id: shop.seller.id,
      product_id,
      sku: 'TEE-1',
      slug,
      liker_id: 501,
    });
    expect(likes[1]!.data.liker_id).toEqual(expect.any(Number));
    expect(shop.seller.products.get(product_id)!.likes.size).toBe(2);
  });

  it('staging like: bad liker_id → 400; unknown product → 404', async () => {
    await createProduct(shop);
    const bad = await shop.call('POST', '/api/v1/products/by-sku/TEE-1/like/?liker_id=abc');
    expect([bad.status, bad.body.errors[0].code]).toEqual([400, 'bad-request']);
    const missing = await shop.call('POST', '/api/v1/products/by-sku/NOPE/like/');
    expect([missing.status, missing.body.errors[0].code]).toEqual([404, 'product_not_found']);
  });

  it('likeProduct / unlikeProduct fire once per change with the slug', async () => {
    const { product_id, slug } = await createProduct(shop);
    const start = shop.sim.webhooks.events.length;
    const sink = shop.sim.webhooks;
    likeProduct(shop.seller, product_id, 9, sink);
    likeProduct(shop.seller, product_id, 9, sink);
    unlikeProduct(shop.seller, product_id, 9, sink);
    unlikeProduct(shop.seller, product_id, 9, sink);
    const events = eventsSince(start);
    expect(events.map((e) => e.type)).toEqual(['v1:product.like', 'v1:product.unlike']);
    expect(ProductLikeData.parse(events[1]!.data)).toMatchObject({ slug, liker_id: 9 });
  });

  it('another seller’s product cannot be liked through the staging endpoint (404)', async () => {
    const { product_id } = await createProduct(shop);
    const other = addShop(shop.sim);
    const res = await shop.call('POST', `/api/v1/products/by-product-id/${product_id}/like/`, undefined, {
      token: other.apiKey,
    });
    expect([res.status, res.body.errors[0].code]).toEqual([404, 'product_not_found']);
  });
});
