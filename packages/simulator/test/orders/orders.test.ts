import { Order, OrderNewData, OrdersPage } from '@selling-kit/api-client/core';
import { adminCall } from '../helpers.ts';
import { createOrder, orderToWire, type SimOrderRecord } from '../../src/domain/orders.ts';
import { formatCents } from '../../src/domain/money.ts';
import { parcelSizeCost } from '../../src/domain/shipping.ts';
import { addAddress } from '../../src/world.ts';
import { ApiError } from '../../src/errors.ts';
import {
  addProduct,
  expectError,
  expectSchema,
  newOrder,
  oauthToken,
  otherShop,
  purchase,
  testShopPerFile,
  platformShipping,
} from '../fixtures.ts';

const shop = testShopPerFile({}, ({ seller, sim }) => {
  seller.orders.clear();
  seller.products.clear();
  sim.webhooks.reset();
});

describe('createOrder (admin surface, staging purchase)', () => {
  test('manual shipping: amounts, fee breakdown, one parcel, SHIPPING_PENDING', () => {
    const order = newOrder(shop);
    const wire = expectSchema(Order, orderToWire(order));
    expect(wire).toMatchObject({
      seller_id: shop.seller.id,
      purchase_id: order.purchaseId,
      status: 'SHIPPING_PENDING',
      currency: 'GBP',
      buyer_pays_amount: '28.50',
      buyer_shipping_price: '3.50',
      // 25.00 + 3.50 − DEPOP 2.50 − PAYMENT (3.3% of 28.50 = 0.94, + 0.45)
      seller_receives_amount: '24.61',
    });
    expect(wire.seller_fee_breakdown).toEqual([
      { fee_type: 'PAYMENT_FEE', amount: '1.39', currency: 'GBP' },
      { fee_type: 'DEPOP_FEE', amount: '2.50', currency: 'GBP' },
    ]);
    expect(wire.depop_shipping).toBeUndefined();
    expect(wire.refund_summary).toBeUndefined();
    expect(wire.buyer_address).toMatchObject({ country_code: 'GB', city: 'London' });
    expect(wire.line_items).toHaveLength(1);
    expect(wire.line_items[0]).toMatchObject({
      sold_price: '25.00',
      original_price: '25.00',
      sold_via_offers: false,
    });
    expect(order.parcels.size).toBe(1);
  });

  test('several products share one parcel; quantity decrements and reaching 0 sells the product', () => {
    const a = addProduct(shop.sim.world, shop.seller, { quantity: 3 });
    const b = addProduct(shop.sim.world, shop.seller, {
      quantity: 1,
      fields: { national_shipping_cost: '5.00' },
    });
    const order = purchase(shop, [a.productId, a.productId, b.productId]);
    const wire = orderToWire(order);
    expect(wire.line_items.map((li) => li.product_id)).toEqual([a.productId, a.productId, b.productId]);
    expect(new Set(wire.line_items.map((li) => li.parcel_id)).size).toBe(1);
    expect(new Set(wire.line_items.map((li) => li.purchase_item_id)).size).toBe(3);
    expect(wire.buyer_shipping_price).toBe('5.00'); // highest shipping price of the bundle
    expect(wire.buyer_pays_amount).toBe('80.00');
    expect(a.quantity).toBe(1);
    expect(a.state).toBe('selling');
    expect(b.quantity).toBe(0);
    expect(b.state).toBe('sold');
  });

  test('emits v1:order.new with OrderNewData (address country, fee_amount)', () => {
    const order = newOrder(shop);
    const event = shop.sim.webhooks.events.find((e) => e.eventType === 'v1:order.new');
    expect(event?.sellerId).toBe(shop.seller.id);
    const data = expectSchema(OrderNewData, event?.data);
    expect(data.purchase_id).toBe(order.purchaseId);
    expect(data.buyer_address.country).toBe('GB');
    expect(data.buyer_address).not.toHaveProperty('country_code');
    expect(data.fee_amount).toBe('3.89');
    expect(data).not.toHaveProperty('seller_fee_breakdown');
    expect(data).not.toHaveProperty('created_at');
  });

  test('platform shipping paid by the buyer: label is the buyer shipping price, SHIPPING_FEE 0.00', () => {
    const order = newOrder(shop, {
      fields: platformShipping(shop.addressId, 'buyer'),
    });
    const wire = orderToWire(order);
    expect(wire.depop_shipping).toEqual({ shipping_provider_id: 'ROYAL_MAIL' });
    expect(wire.buyer_shipping_price).toBe('3.35');
    expect(wire.seller_fee_breakdown).toContainEqual({
      fee_type: 'SHIPPING_FEE',
      amount: '0.00',
      currency: 'GBP',
    });
    // the label money goes to the platform: 25.00 − 2.50 − (0.94 + 0.45)
    expect(wire.seller_receives_amount).toBe('21.11');
  });

  test('a label is booked in the order’s currency: a USD order shipped with a GBP-priced carrier', () => {
    const order = newOrder(shop, {
      fields: {
        price_currency: 'USD',
        ...platformShipping(shop.addressId, 'seller'),
      },
    });
    const wire = orderToWire(order);
    expect(wire.currency).toBe('USD');
    const label = wire.seller_fee_breakdown.find((f) => f.fee_type === 'SHIPPING_FEE')!;
    expect(label.currency).toBe('USD');
    expect(label.amount).not.toBe('3.35'); // the GBP price converted, not relabelled
    expect(label.amount).toBe(formatCents(parcelSizeCost('ROYAL_MAIL', 'SMALL', 'GBP', 'USD')!.cents));
  });

  test('a record without fees fixed at purchase books its label in the order’s currency too', () => {
    const order = newOrder(shop, {
      fields: {
        price_currency: 'USD',
        ...platformShipping(shop.addressId, 'seller'),
      },
    }) as SimOrderRecord;
    const fixed = orderToWire(order).seller_fee_breakdown;
    delete order.fees;
    delete order.labelCostCents;
    const recomputed = orderToWire(order).seller_fee_breakdown.find((f) => f.fee_type === 'SHIPPING_FEE');
    expect(recomputed).toEqual(fixed.find((f) => f.fee_type === 'SHIPPING_FEE'));
    expect(recomputed).toEqual({
      fee_type: 'SHIPPING_FEE',
      amount: formatCents(parcelSizeCost('ROYAL_MAIL', 'SMALL', 'GBP', 'USD')!.cents),
      currency: 'USD',
    });
  });

  test('a USD order through the admin surface: label, fees and the label refunded on a full refund, all in USD', async () => {
    const us = otherShop(shop, undefined, { username: 'orders-us', countryCode: 'US' });
    const usAddress = addAddress(shop.sim.world, us.seller, { city: 'Austin', state: 'TX' });
    const p = addProduct(shop.sim.world, us.seller, {
      fields: {
        price_currency: 'USD',
        ...platformShipping(usAddress.id, 'seller', 'USPS', 'MEDIUM'),
      },
    });
    const res = await adminCall(shop.sim, 'POST', '/admin/orders', {
      sellerId: us.seller.id,
      productIds: [p.productId],
    });
    expect(res.status).toBe(201);
    const path = `/api/v1/orders/${res.body.purchaseId}/`;
    const wire = expectSchema(Order, (await shop.call('GET', path, undefined, { token: us.apiKey })).body);
    const label = formatCents(parcelSizeCost('USPS', 'MEDIUM', 'USD')!.cents);
    expect(label).toBe('7.65');
    expect(wire.currency).toBe('USD');
    expect(wire.seller_fee_breakdown.map((f) => f.currency)).toEqual(
      wire.seller_fee_breakdown.map(() => 'USD'),
    );
    expect(wire.seller_fee_breakdown).toContainEqual({
      fee_type: 'SHIPPING_FEE',
      amount: label,
      currency: 'USD',
    });
    const refunded = await shop.call(
      'POST',
      `${path}refund/`,
      { items_refund_amount: wire.line_items[0]!.sold_price },
      { token: us.apiKey },
    );
    expect(refunded.status).toBe(200);
    const after = expectSchema(Order, (await shop.call('GET', path, undefined, { token: us.apiKey })).body);
    expect(after.refund_summary!.breakdown.refunded_to_seller.shipping_refund_amount).toBe(label);
  });

  test('platform shipping paid by the seller: buyer pays no shipping, SHIPPING_FEE is the label', () => {
    const order = newOrder(shop, {
      fields: platformShipping(shop.addressId, 'seller', 'EVRI', 'medium'),
    });
    const wire = orderToWire(order);
    expect(wire.buyer_shipping_price).toBe('0.00');
    expect(wire.seller_fee_breakdown).toContainEqual({
      fee_type: 'SHIPPING_FEE',
      amount: '3.49',
      currency: 'GBP',
    });
  });

  test('boosted items add BOOSTED_FEE; a discount price is the sold price', () => {
    const order = newOrder(shop, {
      isBoosted: true,
      fields: { price_amount: '40.00', discount_price: '30.00' },
    });
    const wire = orderToWire(order);
    expect(wire.line_items[0]).toMatchObject({ original_price: '40.00', sold_price: '30.00' });
    expect(wire.seller_fee_breakdown).toContainEqual({
      fee_type: 'BOOSTED_FEE',
      amount: '2.40',
      currency: 'GBP',
    });
  });

  test('a product not on sale → 422 product_not_on_sale, and nothing changes', () => {
    const onSale = addProduct(shop.sim.world, shop.seller);
    const sold = addProduct(shop.sim.world, shop.seller, { state: 'sold', quantity: 0 });
    const banned = addProduct(shop.sim.world, shop.seller, { state: 'banned' });
    for (const p of [sold, banned]) {
      let error: unknown;
      try {
        purchase(shop, [onSale.productId, p.productId]);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 422, code: 'product_not_on_sale' });
    }
    expect(onSale.quantity).toBe(1);
    expect(shop.seller.orders.size).toBe(0);
    expect(shop.sim.webhooks.events).toHaveLength(0);
  });

  test('more units than the quantity → 422 product_not_on_sale; unknown product → 404 product_not_found', () => {
    const p = addProduct(shop.sim.world, shop.seller, { quantity: 1 });
    expect(() => purchase(shop, [p.productId, p.productId])).toThrow(
      expect.objectContaining({ status: 422, code: 'product_not_on_sale' }),
    );
    expect(() => purchase(shop, [123])).toThrow(
      expect.objectContaining({ status: 404, code: 'product_not_found' }),
    );
    const other = otherShop(shop);
    const foreign = addProduct(shop.sim.world, other.seller);
    expect(() =>
      createOrder(shop.sim.world, shop.seller, [foreign.productId], { now: 0, events: shop.sim.webhooks }),
    ).toThrow(expect.objectContaining({ code: 'product_not_found' }));
  });

  test('products in different currencies → 422 validation', () => {
    const gbp = addProduct(shop.sim.world, shop.seller);
    const usd = addProduct(shop.sim.world, shop.seller, { fields: { price_currency: 'USD' } });
    expect(() => purchase(shop, [gbp.productId, usd.productId])).toThrow(
      expect.objectContaining({ status: 422, code: 'validation' }),
    );
    expect(gbp.quantity).toBe(1);
  });

  test('selling out cancels the product’s active offers', () => {
    const p = addProduct(shop.sim.world, shop.seller);
    const now = shop.sim.world.clock.now();
    shop.seller.offers.push({
      id: 'offer-x',
      productId: p.productId,
      recipientId: 77,
      value: 20,
      currency: 'GBP',
      createdAt: now,
      expiresAt: now + 86_400_000,
      state: 'active',
    });
    purchase(shop, [p.productId]);
    expect(shop.seller.offers.find((o) => o.id === 'offer-x')?.state).toBe('cancelled');
  });

  test('POST /admin/orders creates an order through the domain bridge', async () => {
    const p = addProduct(shop.sim.world, shop.seller);
    const res = await adminCall(shop.sim, 'POST', '/admin/orders', {
      sellerId: shop.seller.id,
      productIds: [p.productId],
      buyerId: 4242,
    });
    expect(res.status).toBe(201);
    const got = await shop.call('GET', `/api/v1/orders/${res.body.purchaseId}/`);
    expect(got.status).toBe(200);
    expect(got.body.buyer_address.name).toBe('Test Buyer 4242');
  });
});

describe('GET /api/v1/orders/{purchase_id}/', () => {
  test('returns the order, parsing with the core Order schema', async () => {
    const order = newOrder(shop);
    const res = await shop.call('GET', `/api/v1/orders/${order.purchaseId}/`);
    expect(res.status).toBe(200);
    expect(expectSchema(Order, res.body)).toEqual(orderToWire(order));
  });

  test('unknown purchase id → 404 purchase_id_not_found', async () => {
    expectError(await shop.call('GET', '/api/v1/orders/999/'), 404, 'purchase_id_not_found');
  });

  test("another seller's order → 404 purchase_id_not_found", async () => {
    const other = otherShop(shop);
    const order = newOrder(shop, {}, other.seller);
    expectError(await shop.call('GET', `/api/v1/orders/${order.purchaseId}/`), 404, 'purchase_id_not_found');
    const own = await shop.call('GET', `/api/v1/orders/${order.purchaseId}/`, undefined, {
      token: other.apiKey,
    });
    expect(own.status).toBe(200);
  });

  test('an OAuth token without orders_read → 403 insufficient_scope', async () => {
    const order = newOrder(shop);
    const token = oauthToken(shop, ['orders_write']);
    const msg = expectError(
      await shop.call('GET', `/api/v1/orders/${order.purchaseId}/`, undefined, { token }),
      403,
      'insufficient_scope',
    );
    expect(msg).toContain('orders_read');
  });
});

describe('GET /api/v1/orders/ (list)', () => {
  const makeOrders = (n: number) => Array.from({ length: n }, () => newOrder(shop));

  test('default page: 20 newest first, envelope parses with OrdersPage', async () => {
    const orders = makeOrders(23);
    const res = await shop.call('GET', '/api/v1/orders/');
    expect(res.status).toBe(200);
    const page = expectSchema(OrdersPage, res.body);
    expect(page.data).toHaveLength(20);
    expect(page.meta.has_more).toBe(true);
    expect(typeof page.meta.cursor).toBe('string');
    expect(page.data.map((o) => o.purchase_id)).toEqual(
      orders
        .map((o) => o.purchaseId)
        .reverse()
        .slice(0, 20),
    );
  });

  test('walking the cursor with limit 2 visits every order once; the last page has cursor null', async () => {
    const orders = makeOrders(5);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const q = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await shop.call('GET', `/api/v1/orders/${q}`);
      expect(res.status).toBe(200);
      const page = expectSchema(OrdersPage, res.body);
      pages++;
      seen.push(...page.data.map((o) => o.purchase_id));
      if (!page.meta.has_more) {
        expect(page.meta.cursor).toBeNull();
        break;
      }
      cursor = page.meta.cursor!;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(orders.map((o) => o.purchaseId).reverse());
  });

  test('the cursor is the base64 of the last purchase id', async () => {
    const orders = makeOrders(2);
    const res = await shop.call('GET', '/api/v1/orders/?limit=1');
    expect(Buffer.from(res.body.meta.cursor, 'base64').toString()).toBe(orders[1]!.purchaseId);
  });

  test('limit 1 and 200 are accepted; 0, 201, -1, 1.5 and abc → 400 naming the range', async () => {
    makeOrders(3);
    expect((await shop.call('GET', '/api/v1/orders/?limit=1')).body.data).toHaveLength(1);
    const all = await shop.call('GET', '/api/v1/orders/?limit=200');
    expect(all.body.data).toHaveLength(3);
    expect(all.body.meta).toEqual({ cursor: null, has_more: false });
    for (const bad of ['0', '201', '-1', '1.5', 'abc', '']) {
      const msg = expectError(await shop.call('GET', `/api/v1/orders/?limit=${bad}`), 400, 'bad-request');
      expect(msg).toContain('between 1 and 200');
    }
  });

  test('an invalid cursor → 400 bad-request naming the cursor', async () => {
    for (const bad of ['not-base64!', Buffer.from('abc').toString('base64'), '%%%']) {
      const msg = expectError(
        await shop.call('GET', `/api/v1/orders/?cursor=${encodeURIComponent(bad)}`),
        400,
        'bad-request',
      );
      expect(msg).toContain('cursor');
    }
  });

  test('from/to filter on created_at (inclusive); malformed → 400 naming the parameter; from > to → 422', async () => {
    const early = newOrder(shop);
    shop.sim.world.clock.advance(3_600_000);
    const late = newOrder(shop);
    const lateIso = new Date(late.createdAt).toISOString();
    const earlyIso = new Date(early.createdAt).toISOString();
    const fromRes = await shop.call('GET', `/api/v1/orders/?from=${encodeURIComponent(lateIso)}`);
    expect(fromRes.body.data.map((o: { purchase_id: string }) => o.purchase_id)).toEqual([late.purchaseId]);
    const toRes = await shop.call('GET', `/api/v1/orders/?to=${encodeURIComponent(earlyIso)}`);
    expect(toRes.body.data.map((o: { purchase_id: string }) => o.purchase_id)).toEqual([early.purchaseId]);
    const both = await shop.call(
      'GET',
      `/api/v1/orders/?from=${encodeURIComponent(earlyIso)}&to=${encodeURIComponent(lateIso)}`,
    );
    expect(both.body.data).toHaveLength(2);

    expect(
      expectError(await shop.call('GET', '/api/v1/orders/?from=yesterday'), 400, 'bad-request'),
    ).toContain('"from"');
    expect(
      expectError(await shop.call('GET', '/api/v1/orders/?to=2026-13-01T00:00:00Z'), 400, 'bad-request'),
    ).toContain('"to"');
    expectError(
      await shop.call(
        'GET',
        `/api/v1/orders/?from=${encodeURIComponent(lateIso)}&to=${encodeURIComponent(earlyIso)}`,
      ),
      422,
      'validation',
    );
  });

  test('a repeated parameter → 400', async () => {
    expectError(await shop.call('GET', '/api/v1/orders/?limit=1&limit=2'), 400, 'bad-request');
  });

  test("only the caller's orders are listed", async () => {
    const mine = newOrder(shop);
    const other = otherShop(shop);
    newOrder(shop, {}, other.seller);
    const res = await shop.call('GET', '/api/v1/orders/');
    expect(res.body.data.map((o: { purchase_id: string }) => o.purchase_id)).toEqual([mine.purchaseId]);
  });

  test('an empty shop lists nothing', async () => {
    const res = await shop.call('GET', '/api/v1/orders/');
    expect(res.body).toEqual({ meta: { cursor: null, has_more: false }, data: [] });
  });
});
