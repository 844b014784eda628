import { randomUUID } from 'node:crypto';
import { Order } from '@selling-kit/api-client/core';
import type { OrderRecord } from '../../src/state.ts';
import {
  expectError,
  expectSchema,
  newOrder,
  oauthToken,
  otherShop,
  testShopPerFile,
  platformShipping,
} from '../fixtures.ts';

const shop = testShopPerFile();

const parcelOf = (order: OrderRecord) => [...order.parcels.keys()][0]!;
const shipPath = (purchaseId: string, parcelId: string) =>
  `/api/v1/orders/${purchaseId}/parcels/${parcelId}/mark-as-shipped/`;
const tracking = { tracking_number: 'GB1234567890GB', carrier: 'Royal Mail' };

describe('POST /api/v1/orders/{purchase_id}/parcels/{parcel_id}/mark-as-shipped/', () => {
  test('marks the parcel shipped: empty 200, order SHIPPED, tracking kept', async () => {
    const order = newOrder(shop);
    const res = await shop.call('POST', shipPath(order.purchaseId, parcelOf(order)), tracking);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(order.parcels.get(parcelOf(order))).toEqual({
      shipped: true,
      trackingNumber: 'GB1234567890GB',
      carrier: 'Royal Mail',
    });
    const got = await shop.call('GET', `/api/v1/orders/${order.purchaseId}/`);
    expect(expectSchema(Order, got.body).status).toBe('SHIPPED');
  });

  test('several tracking numbers, comma-separated without spaces, are accepted', async () => {
    const order = newOrder(shop);
    const res = await shop.call('POST', shipPath(order.purchaseId, parcelOf(order)), {
      tracking_number: 'GB1234567890GB,GB0987654321GB',
      carrier: 'Royal Mail',
    });
    expect(res.status).toBe(200);
    expect(order.parcels.get(parcelOf(order))?.trackingNumber).toBe('GB1234567890GB,GB0987654321GB');
  });

  test('tracking numbers with spaces or a missing carrier → 422 validation naming the field; no body → 400', async () => {
    const order = newOrder(shop);
    const path = shipPath(order.purchaseId, parcelOf(order));
    const spaced = await shop.call('POST', path, { tracking_number: 'GB1, GB2', carrier: 'Royal Mail' });
    expect(expectError(spaced, 422, 'validation')).toContain('tracking_number');
    const noCarrier = await shop.call('POST', path, { tracking_number: 'GB1' });
    expect(expectError(noCarrier, 422, 'validation')).toMatch(/carrier.*required/);
    expectError(await shop.call('POST', path), 400, 'bad-request');
    expect(order.status).toBe('SHIPPING_PENDING');
  });

  test('unknown parcel → 404 parcel_id_not_found', async () => {
    const order = newOrder(shop);
    expectError(
      await shop.call('POST', shipPath(order.purchaseId, randomUUID()), tracking),
      404,
      'parcel_id_not_found',
    );
  });

  test('unknown purchase, or another seller’s → 404 purchase_id_not_found', async () => {
    const order = newOrder(shop);
    expectError(
      await shop.call('POST', shipPath('12345', parcelOf(order)), tracking),
      404,
      'purchase_id_not_found',
    );
    const other = otherShop(shop);
    const foreign = newOrder(shop, {}, other.seller);
    expectError(
      await shop.call('POST', shipPath(foreign.purchaseId, parcelOf(foreign)), tracking),
      404,
      'purchase_id_not_found',
    );
    expect(foreign.parcels.get(parcelOf(foreign))?.shipped).toBe(false);
  });

  test('the same tracking again is an idempotent 200; a different tracking → 409 generic_error', async () => {
    const order = newOrder(shop);
    const path = shipPath(order.purchaseId, parcelOf(order));
    expect((await shop.call('POST', path, tracking)).status).toBe(200);
    expect((await shop.call('POST', path, tracking)).status).toBe(200);
    const msg = expectError(
      await shop.call('POST', path, { ...tracking, tracking_number: 'OTHER1' }),
      409,
      'generic_error',
    );
    expect(msg).toContain('already marked as shipped');
    expect(order.parcels.get(parcelOf(order))?.trackingNumber).toBe('GB1234567890GB');
  });

  test('a refunded order → 422 validation', async () => {
    const order = newOrder(shop);
    const refund = await shop.call('POST', `/api/v1/orders/${order.purchaseId}/refund/`, {
      items_refund_amount: '25.00',
    });
    expect(refund.status).toBe(200);
    expect(order.status).toBe('REFUNDED');
    const msg = expectError(
      await shop.call('POST', shipPath(order.purchaseId, parcelOf(order)), tracking),
      422,
      'validation',
    );
    expect(msg).toContain('REFUNDED');
  });

  test('a cancelled order → 422 validation', async () => {
    const order = newOrder(shop);
    order.status = 'CANCELLED';
    expectError(
      await shop.call('POST', shipPath(order.purchaseId, parcelOf(order)), tracking),
      422,
      'validation',
    );
  });

  test('a partially refunded order can still be shipped', async () => {
    const order = newOrder(shop);
    await shop.call('POST', `/api/v1/orders/${order.purchaseId}/refund/`, { items_refund_amount: '5.00' });
    expect((await shop.call('POST', shipPath(order.purchaseId, parcelOf(order)), tracking)).status).toBe(200);
    expect(order.status).toBe('SHIPPED');
  });

  test('orders with platform shipping may be marked shipped', async () => {
    const order = newOrder(shop, {
      fields: platformShipping(shop.addressId, 'buyer', 'EVRI', 'SMALL'),
    });
    expect((await shop.call('POST', shipPath(order.purchaseId, parcelOf(order)), tracking)).status).toBe(200);
    expect(order.status).toBe('SHIPPED');
  });

  test('the order is SHIPPED only once every parcel is shipped', async () => {
    const order = newOrder(shop);
    const second = randomUUID();
    order.parcels.set(second, { shipped: false });
    await shop.call('POST', shipPath(order.purchaseId, parcelOf(order)), tracking);
    expect(order.status).toBe('SHIPPING_PENDING');
    await shop.call('POST', shipPath(order.purchaseId, second), { tracking_number: 'X2', carrier: 'Evri' });
    expect(order.status).toBe('SHIPPED');
  });

  test('an OAuth token without orders_write → 403 insufficient_scope', async () => {
    const order = newOrder(shop);
    const token = oauthToken(shop, ['orders_read']);
    expectError(
      await shop.call('POST', shipPath(order.purchaseId, parcelOf(order)), tracking, { token }),
      403,
      'insufficient_scope',
    );
  });
});
