import { Order, OrderRefundData, RefundSummary } from '@selling-kit/api-client/core';
import { orderToWire } from '../../src/domain/orders.ts';
import type { OrderRecord } from '../../src/state.ts';
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

const shop = testShopPerFile({}, ({ sim }) => sim.webhooks.reset());

const refund = (order: OrderRecord | string, body: unknown, token?: string) =>
  shop.call(
    'POST',
    `/api/v1/orders/${typeof order === 'string' ? order : order.purchaseId}/refund/`,
    body,
    token ? { token } : {},
  );

/** 25.00 item, 3.50 manual shipping (buyer pays 28.50; fees: PAYMENT 1.39, DEPOP 2.50). */
const manualOrder = () => newOrder(shop);
const platformOrder = (payer: 'buyer' | 'seller') =>
  newOrder(shop, {
    fields: platformShipping(shop.addressId, payer),
  });

describe('POST /api/v1/orders/{purchase_id}/refund/ — rule 10', () => {
  test('a partial items refund: empty 200, refund_summary with breakdown, status unchanged, v1:order.refund', async () => {
    const order = manualOrder();
    const res = await refund(order, {
      items_refund_amount: '10.00',
      send_buyer_message: 'Sorry about the stain',
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(order.refunds).toHaveLength(1);
    expect(order.refunds[0]).toMatchObject({
      itemsAmountCents: 1000,
      shippingAmountCents: 0,
      message: 'Sorry about the stain',
    });

    const wire = expectSchema(Order, (await shop.call('GET', `/api/v1/orders/${order.purchaseId}/`)).body);
    expect(wire.status).toBe('SHIPPING_PENDING');
    const summary = expectSchema(RefundSummary, wire.refund_summary);
    expect(summary).toMatchObject({
      buyer_refund_amount: '10.00',
      refunded_by: 'PARTNER',
      breakdown: {
        refunded_to_buyer: {
          item_refund_amount: '10.00',
          shipping_refund_amount: '0.00',
          depop_fee_refund_amount: '0.00',
          tax_refund_amount: '0.00',
        },
        // fees back in proportion: DEPOP 2.50 × 10/25, PAYMENT 1.39 × 10/28.50
        refunded_to_seller: {
          ads_fee_refund_amount: '0.00',
          payment_fee_refund_amount: '0.49',
          depop_fee_refund_amount: '1.00',
          shipping_refund_amount: '0.00',
        },
      },
    });
    expect(Date.parse(summary.refund_date)).toBe(order.refunds[0]!.at);
    expect(wire.seller_receives_amount).toBe('16.10'); // 24.61 − 10.00 + 1.00 + 0.49

    const events = shop.sim.webhooks.events.filter((e) => e.eventType === 'v1:order.refund');
    expect(events).toHaveLength(1);
    expect(expectSchema(OrderRefundData, events[0]!.data)).toEqual({
      purchase_id: order.purchaseId,
      refunded_by: 'PARTNER',
    });
  });

  test('partial then over-refund: the second refund may not exceed what is left → 422 validation', async () => {
    const order = manualOrder();
    expect((await refund(order, { items_refund_amount: '20.00' })).status).toBe(200);
    const msg = expectError(await refund(order, { items_refund_amount: '5.01' }), 422, 'validation');
    expect(msg).toContain('rule 10');
    expect(msg).toContain('5.00');
    expect(msg).toContain('already refunded');
    expect(order.refunds).toHaveLength(1);
    expect((await refund(order, { items_refund_amount: '5.00' })).status).toBe(200);
    expect(order.status).toBe('REFUNDED');
    expectError(await refund(order, { items_refund_amount: '0.01' }), 422, 'validation');
  });

  test('a full refund of items and shipping → REFUNDED, whole amounts in the summary', async () => {
    const order = manualOrder();
    expect(
      (await refund(order, { items_refund_amount: '25.00', shipping_refund_amount: '3.50' })).status,
    ).toBe(200);
    const wire = orderToWire(order);
    expect(wire.status).toBe('REFUNDED');
    expect(wire.refund_summary?.buyer_refund_amount).toBe('28.50');
    expect(wire.refund_summary?.breakdown.refunded_to_seller).toMatchObject({
      payment_fee_refund_amount: '1.39',
      depop_fee_refund_amount: '2.50',
    });
    expect(wire.seller_receives_amount).toBe('0.00');
  });

  test('no amount → 422 validation (at least one positive amount)', async () => {
    const order = manualOrder();
    const msg = expectError(await refund(order, {}), 422, 'validation');
    expect(msg).toContain('rule 10');
    expectError(await refund(order, { send_buyer_message: 'hi' }), 422, 'validation');
  });

  test('zero or negative amounts → 422 validation (each given amount must be positive)', async () => {
    const order = manualOrder();
    for (const body of [
      { items_refund_amount: '0.00' },
      { items_refund_amount: '0' },
      { shipping_refund_amount: '-1.00' },
      { items_refund_amount: '5.00', shipping_refund_amount: '0.00' },
    ]) {
      const msg = expectError(await refund(order, body), 422, 'validation');
      expect(msg).toMatch(/must be positive/);
    }
    expect(order.refunds).toHaveLength(0);
  });

  test('items amount above the product price → 422 validation', async () => {
    const order = manualOrder();
    const msg = expectError(await refund(order, { items_refund_amount: '25.01' }), 422, 'validation');
    expect(msg).toContain('exceeds the product price 25.00');
  });

  test('an order of several products: the items limit is each product’s price, summed, and the answer names them', async () => {
    const a = addProduct(shop.sim.world, shop.seller);
    const b = addProduct(shop.sim.world, shop.seller);
    const order = purchase(shop, [a.productId, b.productId]);
    // Above one product's price but within both: accepted.
    expect((await refund(order, { items_refund_amount: '40.00' })).status).toBe(200);
    const msg = expectError(await refund(order, { items_refund_amount: '10.01' }), 422, 'validation');
    expect(msg).toContain(`product ${a.productId} 25.00`);
    expect(msg).toContain(`product ${b.productId} 25.00`);
    expect(msg).toContain('40.00 already refunded');
    expect((await refund(order, { items_refund_amount: '10.00' })).status).toBe(200);
  });

  test('the product price is what each product sold for: a discounted product, and one bought twice', async () => {
    const discounted = addProduct(shop.sim.world, shop.seller, { fields: { discount_price: '20.00' } });
    const order = purchase(shop, [discounted.productId]);
    expect(order.lineItems[0]).toMatchObject({ original_price: '25.00', sold_price: '20.00' });
    const msg = expectError(await refund(order, { items_refund_amount: '20.01' }), 422, 'validation');
    expect(msg).toContain('exceeds the product price 20.00');
    expect((await refund(order, { items_refund_amount: '20.00' })).status).toBe(200);

    const two = addProduct(shop.sim.world, shop.seller, { quantity: 2 });
    const twice = purchase(shop, [two.productId, two.productId]);
    expect(twice.lineItems).toHaveLength(2);
    expectError(await refund(twice, { items_refund_amount: '50.01' }), 422, 'validation');
    expect((await refund(twice, { items_refund_amount: '50.00' })).status).toBe(200);
    expect(twice.status).toBe('REFUNDED');
  });

  test('shipping amount above the shipping price → 422 validation', async () => {
    const order = manualOrder();
    const msg = expectError(await refund(order, { shipping_refund_amount: '3.51' }), 422, 'validation');
    expect(msg).toContain('exceeds the shipping price 3.50');
  });

  test('manual shipping: shipping may be refunded partly, on its own', async () => {
    const order = manualOrder();
    expect((await refund(order, { shipping_refund_amount: '1.50' })).status).toBe(200);
    expect(order.status).toBe('SHIPPING_PENDING');
    expect(orderToWire(order).refund_summary?.breakdown.refunded_to_buyer.shipping_refund_amount).toBe(
      '1.50',
    );
  });

  test('platform shipping: shipping only within a full refund → 422 validation otherwise', async () => {
    const order = platformOrder('buyer'); // buyer paid the 3.35 label
    const partialShipping = await refund(order, {
      items_refund_amount: '25.00',
      shipping_refund_amount: '1.00',
    });
    expect(expectError(partialShipping, 422, 'validation')).toContain('platform shipping');
    const shippingOnly = await refund(order, { shipping_refund_amount: '3.35' });
    expect(expectError(shippingOnly, 422, 'validation')).toContain('only within a full refund');
    const partialItems = await refund(order, {
      items_refund_amount: '10.00',
      shipping_refund_amount: '3.35',
    });
    expectError(partialItems, 422, 'validation');
    expect(order.refunds).toHaveLength(0);
    expect(
      (await refund(order, { items_refund_amount: '25.00', shipping_refund_amount: '3.35' })).status,
    ).toBe(200);
    expect(order.status).toBe('REFUNDED');
  });

  test('platform shipping: a partial items refund without shipping is fine', async () => {
    const order = platformOrder('buyer');
    expect((await refund(order, { items_refund_amount: '5.00' })).status).toBe(200);
    expect(order.status).toBe('SHIPPING_PENDING');
  });

  test('platform label paid by the seller: the label cost comes back to the seller on a full refund only', async () => {
    const order = platformOrder('seller');
    expectError(await refund(order, { shipping_refund_amount: '1.00' }), 422, 'validation'); // buyer paid no shipping
    await refund(order, { items_refund_amount: '10.00' });
    expect(orderToWire(order).refund_summary?.breakdown.refunded_to_seller.shipping_refund_amount).toBe(
      '0.00',
    );
    await refund(order, { items_refund_amount: '15.00' });
    expect(orderToWire(order).refund_summary?.breakdown.refunded_to_seller.shipping_refund_amount).toBe(
      '3.35',
    );
  });

  test('malformed amounts → 422 validation, a wrong JSON type or body → 400 bad-request, naming the field', async () => {
    const order = manualOrder();
    const malformed: [unknown, string][] = [
      [{ items_refund_amount: '12.345' }, 'items_refund_amount'],
      [{ shipping_refund_amount: 'ten' }, 'shipping_refund_amount'],
    ];
    for (const [body, field] of malformed)
      expect(expectError(await refund(order, body), 422, 'validation')).toContain(field);
    const unreadable: [unknown, string][] = [
      [{ items_refund_amount: 12.5 }, 'items_refund_amount'],
      [{ items_refund_amount: '5.00', send_buyer_message: 42 }, 'send_buyer_message'],
      [[1, 2], 'JSON object'],
    ];
    for (const [body, field] of unreadable)
      expect(expectError(await refund(order, body), 400, 'bad-request')).toContain(field);
    expectError(await refund(order, undefined), 400, 'bad-request');
    expectError(await refund(order, '{"items_refund_amount":'), 400, 'bad-request');
    expect(order.refunds).toHaveLength(0);
  });

  test('unknown purchase, or another seller’s → 404 purchase_id_not_found', async () => {
    expectError(await refund('777', { items_refund_amount: '1.00' }), 404, 'purchase_id_not_found');
    const other = otherShop(shop);
    const foreign = newOrder(shop, {}, other.seller);
    expectError(await refund(foreign, { items_refund_amount: '1.00' }), 404, 'purchase_id_not_found');
    expect(foreign.refunds).toHaveLength(0);
  });

  test('a cancelled order → 422 validation', async () => {
    const order = manualOrder();
    order.status = 'CANCELLED';
    expect(expectError(await refund(order, { items_refund_amount: '1.00' }), 422, 'validation')).toContain(
      'CANCELLED',
    );
  });

  test('an OAuth token without orders_write → 403 insufficient_scope', async () => {
    const order = manualOrder();
    const token = oauthToken(shop, ['orders_read']);
    expectError(await refund(order, { items_refund_amount: '1.00' }, token), 403, 'insufficient_scope');
  });
});
