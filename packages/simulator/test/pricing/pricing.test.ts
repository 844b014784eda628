import { PricingInspirationResponse } from '@selling-kit/api-client/core';
import { addProduct, expectError, expectSchema, newOrder, otherShop, testShopPerFile } from '../fixtures.ts';

const shop = testShopPerFile();

const PATH = '/api/v1/pricing/inspiration/';
const request = (overrides: Record<string, unknown> = {}) => ({
  description: 'Vintage Nike tee, small logo',
  country: 'GB',
  currency: 'GBP',
  product_type: 't-shirts',
  department: 'menswear',
  condition: 'used_good',
  brand_name: 'Nike',
  ...overrides,
});
const inspire = async (overrides: Record<string, unknown> = {}) => {
  const res = await shop.call('POST', PATH, request(overrides));
  expect(res.status).toBe(200);
  return expectSchema(PricingInspirationResponse, res.body);
};

describe('POST /api/v1/pricing/inspiration/', () => {
  test('GB: the documented formula (12.00 × Nike 1.3 × used_good 0.6 → 9.50; bounds ×0.75 / ×1.30)', async () => {
    const body = await inspire();
    expect(body.price_prediction).toEqual({
      balanced: '9.50',
      prediction: '9.50',
      lower_bound: '7.13',
      upper_bound: '12.35',
    });
  });

  test('US: the same item in USD is 1.25× before rounding', async () => {
    const body = await inspire({ country: 'US', currency: 'USD' });
    expect(body.price_prediction.balanced).toBe('11.50');
  });

  test('deterministic, and sensitive to condition, brand, department and source', async () => {
    const base = (await inspire()).price_prediction.balanced;
    expect((await inspire()).price_prediction.balanced).toBe(base);
    expect(Number((await inspire({ condition: 'brand_new' })).price_prediction.balanced)).toBeGreaterThan(
      Number(base),
    );
    expect(Number((await inspire({ brand_name: 'Gucci' })).price_prediction.balanced)).toBeGreaterThan(
      Number(base),
    );
    expect(Number((await inspire({ department: 'kidswear' })).price_prediction.balanced)).toBeLessThan(
      Number(base),
    );
    expect((await inspire({ source: ['vintage'] })).price_prediction.balanced).toBe('11.00'); // 9.36 × 1.15 = 10.76
  });

  test("unsupported_country follows the seller's country (spec: “Seller's country unsupported”), listing the supported ones", async () => {
    const french = otherShop(shop, undefined, { username: 'pricing-fr', countryCode: 'FR' });
    const res = await shop.call('POST', PATH, request(), { token: french.apiKey });
    const msg = expectError(res, 422, 'unsupported_country');
    expect(msg).toContain('GB, US');
    expect(msg).toContain('FR');
    // A GB seller asking about another market is not refused for it: the seller's market is used.
    const gb = await shop.call('POST', PATH, request({ country: 'FR', currency: 'GBP' }));
    expect(gb.status).toBe(200);
    expect(expectSchema(PricingInspirationResponse, gb.body).price_prediction.balanced).toBe('9.50');
  });

  test('a currency that is not the country’s → 422 validation', async () => {
    const msg = expectError(await shop.call('POST', PATH, request({ currency: 'USD' })), 422, 'validation');
    expect(msg).toContain('GBP');
  });

  test('unbranded or an unknown brand → 404 price_prediction_not_available', async () => {
    expectError(
      await shop.call('POST', PATH, request({ brand_name: 'unbranded' })),
      404,
      'price_prediction_not_available',
    );
    expectError(
      await shop.call('POST', PATH, request({ brand_name: 'Other' })),
      404,
      'price_prediction_not_available',
    );
    expectError(
      await shop.call('POST', PATH, request({ brand_name: 'Zzyzx Atelier' })),
      404,
      'price_prediction_not_available',
    );
  });

  test('a brand known only from a product in the world gets a prediction (brand factor 1)', async () => {
    addProduct(shop.sim.world, shop.seller, { brand: 'Tiny Local Label' });
    const body = await inspire({ brand_name: 'tiny local label' });
    expect(body.price_prediction.balanced).toBe('7.00'); // 12.00 × 1 × 0.6 = 7.20 → nearest 0.50
  });

  test('missing or invalid fields → 422 validation, a wrong type → 400, naming the field', async () => {
    const { brand_name: _omit, ...noBrand } = request();
    expect(expectError(await shop.call('POST', PATH, noBrand), 422, 'validation')).toMatch(
      /brand_name.*required/,
    );
    expect(
      expectError(await shop.call('POST', PATH, request({ condition: 'mint' })), 422, 'validation'),
    ).toContain('condition');
    expect(
      expectError(
        await shop.call('POST', PATH, request({ colour: ['red', 'blue', 'green'] })),
        422,
        'validation',
      ),
    ).toContain('colour');
    expect(
      expectError(await shop.call('POST', PATH, request({ colour: 'red' })), 400, 'bad-request'),
    ).toContain('colour');
    expectError(await shop.call('POST', PATH), 400, 'bad-request');
  });

  test('similar_sold_items: items sold in the world with the same brand, type and currency, newest first', async () => {
    const none = await inspire({ brand_name: 'Carhartt', product_type: 'jackets' });
    expect(none.similar_sold_items).toEqual([]);

    const other = otherShop(shop);
    const picture = { url: 'https://media.example.test/carhartt.jpg', width: 640, height: 800 };
    newOrder(
      shop,
      {
        brand: 'Carhartt',
        pictures: [picture],
        fields: { product_type: 'jackets', price_amount: '60.00', condition: 'used_excellent' },
      },
      other.seller,
    );
    shop.sim.world.clock.advance(1000);
    addProduct(shop.sim.world, shop.seller, {
      brand: 'carhartt',
      state: 'sold',
      quantity: 0,
      fields: { product_type: 'Jackets', price_amount: '80.00', discount_price: '70.00' },
    });
    addProduct(shop.sim.world, shop.seller, { brand: 'Carhartt', fields: { product_type: 'jackets' } }); // on sale: not sold
    addProduct(shop.sim.world, shop.seller, { brand: 'Carhartt', state: 'sold', quantity: 0 }); // t-shirt: other type

    const body = await inspire({ brand_name: 'Carhartt', product_type: 'jackets' });
    expect(body.similar_sold_items).toEqual([
      expect.objectContaining({
        sold_price_amount: '70.00',
        sold_price_currency: 'GBP',
        brand_name: 'carhartt',
      }),
      {
        picture: { url: picture.url, height: 800, width: 640 },
        sold_price_amount: '60.00',
        sold_price_currency: 'GBP',
        condition: 'used_excellent',
        brand_name: 'Carhartt',
      },
    ]);
    const us = await inspire({
      brand_name: 'Carhartt',
      product_type: 'jackets',
      country: 'US',
      currency: 'USD',
    });
    expect(us.similar_sold_items).toEqual([]);
  });
});
