import { MANUAL_SHIPPING_PROVIDER_ID, ShippingProviders } from '@selling-kit/api-client/core';
import { call, startTestShop } from '../helpers.ts';
import { addAddress } from '../../src/world.ts';
import { defaultProvidersFor, parcelSizeCost, SHIPPING_PROVIDER_CATALOG } from '../../src/domain/shipping.ts';
import { DEMO } from '../../src/demo.ts';
import { expectError, expectSchema, oauthToken, otherShop, testShopPerFile } from '../fixtures.ts';

const shop = testShopPerFile();

const providersPath = (id: number | string) => `/api/v1/shop/seller-addresses/${id}/shipping-providers/`;

describe('GET /api/v1/shop/seller-addresses/{address_id}/shipping-providers/', () => {
  test('the default GB address offers ROYAL_MAIL and EVRI with priced parcel sizes', async () => {
    const res = await shop.call('GET', providersPath(shop.addressId));
    expect(res.status).toBe(200);
    const providers = expectSchema(ShippingProviders, res.body);
    expect(providers.map((p) => p.id)).toEqual(['ROYAL_MAIL', 'EVRI']);
    const small = providers[0]!.parcel_sizes.find((s) => s.id === 'SMALL');
    expect(small).toMatchObject({
      cost: { original_amount: '3.35', original_currency: 'GBP', amount: '3.35', currency: 'GBP' },
      courier_service: 'DROP_OFF',
    });
    expect(providers[1]!.parcel_sizes.map((s) => s.id)).toEqual(['SMALL', 'MEDIUM', 'LARGE']);
  });

  test('a US address with USPS is priced in USD', async () => {
    const us = otherShop(shop, undefined, { countryCode: 'US' });
    const address = addAddress(
      shop.sim.world,
      us.seller,
      { city: 'New York', state: 'NY', postal_code: '10001' },
      ['USPS'],
    );
    const res = await shop.call('GET', providersPath(address.id), undefined, { token: us.apiKey });
    const providers = expectSchema(ShippingProviders, res.body);
    expect(providers).toHaveLength(1);
    expect(providers[0]!.id).toBe('USPS');
    expect(providers[0]!.parcel_sizes.every((s) => s.cost.currency === 'USD')).toBe(true);
  });

  test('providers follow the address’s country: a US address never gets GB carriers', async () => {
    const us = otherShop(shop, undefined, { username: 'ship-us', countryCode: 'US' });
    // Seeded by default for its country…
    const plain = addAddress(shop.sim.world, us.seller, {
      city: 'Austin',
      state: 'TX',
      postal_code: '73301',
    });
    const seeded = expectSchema(
      ShippingProviders,
      (await shop.call('GET', providersPath(plain.id), undefined, { token: us.apiKey })).body,
    );
    expect(seeded.map((p) => p.id)).toEqual(['USPS', 'UPS']);
    // …and a GB carrier configured on a US address is not offered there.
    const mixed = addAddress(shop.sim.world, us.seller, { city: 'Boston', state: 'MA' }, [
      'ROYAL_MAIL',
      'USPS',
    ]);
    const offered = expectSchema(
      ShippingProviders,
      (await shop.call('GET', providersPath(mixed.id), undefined, { token: us.apiKey })).body,
    );
    expect(offered.map((p) => p.id)).toEqual(['USPS']);
  });

  test('the ADDRESS’s country decides, not the seller’s: each country gets its own carriers in its currency', async () => {
    const gbSeller = otherShop(shop, undefined, { username: 'ship-gb-abroad', countryCode: 'GB' });
    const usSeller = otherShop(shop, undefined, { username: 'ship-us-abroad', countryCode: 'US' });
    const cases = [
      { who: gbSeller, country: 'US', carriers: ['USPS', 'UPS'], currency: 'USD' },
      { who: gbSeller, country: 'GB', carriers: ['ROYAL_MAIL', 'EVRI'], currency: 'GBP' },
      { who: usSeller, country: 'GB', carriers: ['ROYAL_MAIL', 'EVRI'], currency: 'GBP' },
      { who: usSeller, country: 'US', carriers: ['USPS', 'UPS'], currency: 'USD' },
    ];
    for (const c of cases) {
      const address = addAddress(shop.sim.world, c.who.seller, { country: c.country });
      expect(address.country).toBe(c.country);
      const providers = expectSchema(
        ShippingProviders,
        (await shop.call('GET', providersPath(address.id), undefined, { token: c.who.apiKey })).body,
      );
      expect({ country: c.country, ids: providers.map((p) => p.id) }).toEqual({
        country: c.country,
        ids: c.carriers,
      });
      for (const p of providers) {
        expect(p.parcel_sizes.length).toBeGreaterThan(0);
        expect(p.parcel_sizes.every((s) => s.cost.currency === c.currency)).toBe(true);
      }
    }
  });

  test('the carrier lists have one home: the catalogue’s defaults per country, used by the demo world too', async () => {
    expect(defaultProvidersFor('GB')).toEqual(['ROYAL_MAIL', 'EVRI']);
    expect(defaultProvidersFor('US')).toEqual(['USPS', 'UPS']);
    expect(defaultProvidersFor('FR')).toEqual([]);
    for (const id of [...defaultProvidersFor('GB'), ...defaultProvidersFor('US')])
      expect(SHIPPING_PROVIDER_CATALOG[id]).toBeDefined();
    const demo = await startTestShop({ demo: true });
    try {
      for (const [addressId, apiKey, country] of [
        [DEMO.addressId, DEMO.apiKey, 'GB'],
        [DEMO.usAddressId, DEMO.usApiKey, 'US'],
      ] as const) {
        const res = await call(demo.sim.url, 'GET', providersPath(addressId), undefined, { token: apiKey });
        expect(expectSchema(ShippingProviders, res.body).map((p) => p.id)).toEqual(
          defaultProvidersFor(country),
        );
      }
    } finally {
      await demo.sim.close();
    }
  });

  test('a label is booked in the order’s currency, whatever the carrier’s home currency', () => {
    expect(parcelSizeCost('ROYAL_MAIL', 'SMALL', 'GBP')).toEqual({ cents: 335, currency: 'GBP' });
    const inUsd = parcelSizeCost('ROYAL_MAIL', 'SMALL', 'GBP', 'USD');
    expect(inUsd?.currency).toBe('USD');
    expect(inUsd!.cents).not.toBe(335);
  });

  test('an address without providers answers the single manual-shipping provider', async () => {
    const address = addAddress(shop.sim.world, shop.seller, {}, []);
    const res = await shop.call('GET', providersPath(address.id));
    expect(res.status).toBe(200);
    expect(expectSchema(ShippingProviders, res.body)).toEqual([
      { id: MANUAL_SHIPPING_PROVIDER_ID, parcel_sizes: [] },
    ]);
  });

  test('a provider outside the catalogue gets generic sizes in the seller’s currency (courier OTHER)', async () => {
    const address = addAddress(shop.sim.world, shop.seller, {}, ['PARCEL_PIGEON']);
    const providers = expectSchema(
      ShippingProviders,
      (await shop.call('GET', providersPath(address.id))).body,
    );
    expect(providers[0]!.id).toBe('PARCEL_PIGEON');
    expect(
      providers[0]!.parcel_sizes.every((s) => s.courier_service === 'OTHER' && s.cost.currency === 'GBP'),
    ).toBe(true);
  });

  test('another seller’s address, an unknown id or a non-numeric id → 404 address_not_found', async () => {
    const other = otherShop(shop);
    const foreign = addAddress(shop.sim.world, other.seller);
    expectError(await shop.call('GET', providersPath(foreign.id)), 404, 'address_not_found');
    expectError(await shop.call('GET', providersPath(999999)), 404, 'address_not_found');
    expectError(await shop.call('GET', providersPath('abc')), 404, 'address_not_found');
  });

  test('needs shop_read', async () => {
    const token = oauthToken(shop, ['orders_read']);
    expectError(
      await shop.call('GET', providersPath(shop.addressId), undefined, { token }),
      403,
      'insufficient_scope',
    );
  });

  test('parcel sizes are looked up case-insensitively; unknown sizes are undefined', () => {
    expect(parcelSizeCost('ROYAL_MAIL', 'small', 'GBP')).toEqual({ cents: 335, currency: 'GBP' });
    expect(parcelSizeCost('MY_HERMES', 'LARGE', 'GBP')).toEqual({ cents: 599, currency: 'GBP' });
    expect(parcelSizeCost('ROYAL_MAIL', 'HUGE', 'GBP')).toBeUndefined();
  });
});
