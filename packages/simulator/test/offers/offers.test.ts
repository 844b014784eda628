import { startTestShop, type TestShop } from '../helpers.ts';
import { createProduct, codeOf } from '../products/fixtures.ts';

let shop: TestShop;
let productId: number;
beforeEach(async () => {
  shop = await startTestShop();
  productId = (await createProduct(shop)).product_id;
  shop.seller.products.get(productId)!.likes.add(77);
});
afterEach(() => shop.sim.close());

const offer = (over: Record<string, unknown> = {}) => ({
  offer_recipient_id: 77,
  offer_value: 19,
  offer_currency: 'GBP',
  ...over,
});
const submit = (body: unknown, path = '/api/v1/products/by-sku/TEE-1/offer/') =>
  shop.call('POST', path, body);

describe('manual offers', () => {
  it('accepts an offer by SKU, product ID and slug; it lasts 24 hours on the simulator clock', async () => {
    const slug = shop.seller.products.get(productId)!.slug;
    for (const path of ['by-sku/TEE-1', `by-product-id/${productId}`, `by-slug/${slug}`]) {
      expect((await submit(offer(), `/api/v1/products/${path}/offer/`)).status).toBe(200);
    }
    const [first] = shop.seller.offers;
    expect(first!.expiresAt - first!.createdAt).toBe(24 * 3600 * 1000);
  });
  it('rule 8: product currency and the minimum percentage below the price', async () => {
    const currency = await submit(offer({ offer_currency: 'USD' }));
    expect([currency.status, codeOf(currency)]).toEqual([422, 'validation-error']);
    expect(currency.body.errors[0].message).toMatch(/GBP/);
    expect(codeOf(await submit(offer({ offer_value: 19.5 })))).toBe('validation-error');
    shop.sim.config.minPercentOff = 20;
    expect(codeOf(await submit(offer({ offer_value: 17 })))).toBe('validation-error');
    expect((await submit(offer({ offer_value: 16 }))).status).toBe(200);
  });
  it('rule 9: size required for multi-size products, forbidden for single-size ones', async () => {
    expect(codeOf(await submit(offer({ size_id: 18 })))).toBe('validation-error');
    const multi = await shop.call('POST', '/api/v1/products/', {
      ...(await import('../products/fixtures.ts')).listing({
        sku: 'MULTI',
        size_id: undefined,
        variants: [
          { size_id: 18, quantity: 1 },
          { size_id: 20, quantity: 2 },
        ],
      }),
    });
    expect(multi.status).toBe(200);
    shop.seller.products.get(multi.body.product_id)!.likes.add(77);
    expect((await shop.call('GET', '/api/v1/products/by-sku/MULTI/')).body.quantity).toBe(3);
    const path = '/api/v1/products/by-sku/MULTI/offer/';
    expect(codeOf(await submit(offer(), path))).toBe('validation-error');
    expect(codeOf(await submit(offer({ size_id: 22 }), path))).toBe('validation-error');
    expect((await submit(offer({ size_id: 20 }), path)).status).toBe(200);
  });
  it('the recipient must have shown interest; the product must be on sale', async () => {
    expect(codeOf(await submit(offer({ offer_recipient_id: 5 })))).toBe('validation-error');
    await shop.call('POST', '/api/v1/products/by-sku/TEE-1/mark-as-sold/');
    const res = await submit(offer());
    expect([res.status, codeOf(res)]).toEqual([422, 'product_not_on_sale']);
  });
  it('schema errors name the field; unknown product → product_not_found', async () => {
    const res = await submit({ offer_value: 10 });
    expect([res.status, codeOf(res)]).toEqual([400, 'bad-request']);
    expect(res.body.errors[0].message).toMatch(/offer_recipient_id/);
    expect(codeOf(await submit(offer(), '/api/v1/products/by-sku/NOPE/offer/'))).toBe('product_not_found');
  });
});
