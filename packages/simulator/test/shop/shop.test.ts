import { SellerAddressesPage, SellerDetails } from '@selling-kit/api-client/core';
import { addAddress } from '../../src/world.ts';
import { expectError, expectSchema, oauthToken, otherShop, testShopPerFile } from '../fixtures.ts';

const shop = testShopPerFile();

describe('GET /api/v1/shop/', () => {
  test('returns the seller details of the credential’s shop', async () => {
    const res = await shop.call('GET', '/api/v1/shop/');
    expect(res.status).toBe(200);
    expect(expectSchema(SellerDetails, res.body)).toEqual({
      id: shop.seller.id,
      username: 'test-shop',
      country_code: 'GB',
    });
  });

  test('another shop’s key sees that shop', async () => {
    const other = otherShop(shop, undefined, { username: 'us-shop', countryCode: 'US' });
    const res = await shop.call('GET', '/api/v1/shop/', undefined, { token: other.apiKey });
    expect(res.body).toEqual({ id: other.seller.id, username: 'us-shop', country_code: 'US' });
  });

  test('an OAuth token with shop_read works; without it → 403 insufficient_scope', async () => {
    const ok = oauthToken(shop, ['shop_read']);
    expect((await shop.call('GET', '/api/v1/shop/', undefined, { token: ok })).status).toBe(200);
    const no = oauthToken(shop, ['products_read']);
    expect(
      expectError(
        await shop.call('GET', '/api/v1/shop/', undefined, { token: no }),
        403,
        'insufficient_scope',
      ),
    ).toContain('shop_read');
  });
});

describe('GET /api/v1/shop/seller-addresses/', () => {
  test('lists the seller’s addresses in one page (cursor null, has_more false)', async () => {
    const second = addAddress(shop.sim.world, shop.seller, { city: 'Manchester', postal_code: 'M1 1AA' });
    const res = await shop.call('GET', '/api/v1/shop/seller-addresses/');
    expect(res.status).toBe(200);
    const page = expectSchema(SellerAddressesPage, res.body);
    expect(page.meta).toEqual({ cursor: null, has_more: false });
    expect(page.data.map((a) => a.id)).toEqual([shop.addressId, second.id]);
    expect(page.data[1]).toMatchObject({ city: 'Manchester', postal_code: 'M1 1AA', country: 'GB' });
  });

  test('a shop without addresses gets an empty page; other shops’ addresses never show', async () => {
    const other = otherShop(shop);
    const res = await shop.call('GET', '/api/v1/shop/seller-addresses/', undefined, { token: other.apiKey });
    expect(res.body).toEqual({ meta: { cursor: null, has_more: false }, data: [] });
  });
});
