// The stateful product rules beyond the spec's numbered list: brands, sizes and variants, shipping
// from the seller's addresses, seller profiles, scopes, keys and the states reached through each key.
import { Product } from '@selling-kit/api-client/core';
import { type CallResult } from '../helpers.ts';
import { addShop } from '../../src/testing.ts';
import { createProduct, listing, putBody, codeOf, oauthToken, testShopPerTest } from '../fixtures.ts';

const shop = testShopPerTest();

const get = (path: string, token?: string) => shop.call('GET', path, undefined, token ? { token } : {});
const post = (body: Record<string, unknown>) => shop.call('POST', '/api/v1/products/', body);
async function expectError(res: Promise<CallResult>, status: number, code: string) {
  const r = await res;
  expect([r.status, r.body?.errors?.[0]?.code]).toEqual([status, code]);
  return r.body.errors[0].message as string;
}
const platform = (over: Record<string, unknown> = {}) => ({
  national_shipping_cost: undefined,
  depop_shipping: {
    address_id: shop.addressId,
    shipping_provider_id: 'ROYAL_MAIL',
    parcel_size_id: 'SMALL',
    payer: 'buyer',
    ...over,
  },
});

describe('brands', () => {
  it.each([
    ['NIKE', 'Nike'],
    ['levis', "Levi's"],
    ['Dr Martens', 'Dr. Martens'],
    ['the-north-face', 'The North Face'],
    ['Addidas', 'Adidas'], // one typo forgiven for brands of 5+ characters
    ['Nikey', 'unbranded'],
    ['Acme Garments', 'unbranded'],
    ['unbranded', 'unbranded'],
  ])('brand_name %p is matched to %p', async (name, brand) => {
    await createProduct(shop, { brand_name: name, description: 'plain tee' });
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.brand).toBe(brand);
  });
  it('a known brand_id wins over brand_name; empty or punctuation-only brand_name → invalid_brand', async () => {
    await createProduct(shop, { brand_id: 2, brand_name: 'whatever', description: 'plain tee' });
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.brand).toBe('Adidas');
    await expectError(post(listing({ sku: 'B2', brand_name: '' })), 422, 'invalid_brand');
    const msg = await expectError(post(listing({ sku: 'B3', brand_name: '---' })), 422, 'invalid_brand');
    expect(msg).toMatch(/unbranded/);
    await expectError(post(listing({ sku: 'B4', brand_id: 0 })), 422, 'invalid_brand');
  });
  it('hashtags: the matched brand and generic tags pass; a tag of another known brand fails', async () => {
    await createProduct(shop, {
      brand_name: "Levi's",
      description: 'Jeans #LEVIS #levis #vintage',
      product_type: 'jeans',
      size_set_id: 46,
      size_id: 32,
    });
    expect(
      (await post(listing({ sku: 'T3', description: 'Vintage cotton tee #vintage #y2k #nike' }))).status,
    ).toBe(200);
    // Tags are checked against the matched brand: "Addidas" is Adidas, so #adidas is its own.
    expect(
      (await post(listing({ sku: 'T4', brand_name: 'Addidas', description: 'Track top #adidas #90s' })))
        .status,
    ).toBe(200);
    const msg = await expectError(
      post(listing({ sku: 'T2', description: 'tee #nike #StoneIsland' })),
      422,
      'invalid_description',
    );
    expect(msg).toMatch(/#StoneIsland/);
    expect(msg).not.toMatch(/#nike/);
  });
});

describe('sizes and variants', () => {
  it('a size set of the type is needed when a size is given, and the size must be in it', async () => {
    await expectError(post(listing({ size_set_id: undefined })), 422, 'invalid_size');
    await expectError(post(listing({ size_id: undefined })), 422, 'invalid_size');
    await expectError(post(listing({ size_set_id: 999 })), 422, 'invalid_size');
    const msg = await expectError(post(listing({ size_set_id: 45, size_id: 18 })), 422, 'invalid_size');
    expect(msg).toMatch(/size set 45/);
    expect((await post(listing({ size_set_id: 45, size_id: 3 }))).status).toBe(200);
  });
  it('a type without sizes accepts no size; with none given it is fine', async () => {
    await expectError(post(listing({ product_type: 'bags', size_id: undefined })), 422, 'invalid_size');
    expect(
      (await post(listing({ product_type: 'bags', size_set_id: undefined, size_id: undefined }))).status,
    ).toBe(200);
  });
  it('multi-size (variants): quantity is the sum; one variant is 422, an unreadable list 400; size and variants together → validation', async () => {
    const variants = [
      { size_id: 16, quantity: 2 },
      { size_id: 18, quantity: 1 },
    ];
    const ok = await post(listing({ size_id: undefined, variants }));
    expect(ok.status).toBe(200);
    const p = Product.parse((await get('/api/v1/products/by-sku/TEE-1/')).body);
    expect(p.quantity).toBe(3);
    expect(p.variants).toEqual(variants);
    await expectError(
      post(listing({ sku: 'V2', size_id: undefined, variants: [{ size_id: 16, quantity: 1 }] })),
      422,
      'validation',
    );
    await expectError(
      post(listing({ sku: 'V5', size_id: undefined, variants: [{ size_id: '16', quantity: 1 }] as never })),
      400,
      'bad-request',
    );
    await expectError(post(listing({ sku: 'V3', variants })), 422, 'validation');
    await expectError(
      post(listing({ sku: 'V4', size_id: undefined, variants: [...variants, { size_id: 99, quantity: 1 }] })),
      422,
      'invalid_size',
    );
  });
  it('PUT keeps the variants of a multi-size product; changing them or dropping to one size fails', async () => {
    const variants = [
      { size_id: 16, quantity: 2 },
      { size_id: 18, quantity: 1 },
    ];
    await post(listing({ size_id: undefined, variants }));
    const same = await shop.call(
      'PUT',
      '/api/v1/products/by-sku/TEE-1/',
      putBody({ size_id: undefined, variants: [variants[0], { size_id: 18, quantity: 4 }] }),
    );
    expect(same.status).toBe(200);
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.quantity).toBe(6);
    await expectError(
      shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody({ size_id: 16 })),
      422,
      'validation',
    );
    await expectError(
      shop.call(
        'PUT',
        '/api/v1/products/by-sku/TEE-1/',
        putBody({ size_id: undefined, variants: [variants[0], { size_id: 20, quantity: 1 }] }),
      ),
      422,
      'validation',
    );
  });
  it('PUT changing size_set_id is a size change too (rule 3)', async () => {
    await createProduct(shop);
    const msg = await expectError(
      shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody({ size_set_id: 45, size_id: 3 })),
      422,
      'validation',
    );
    expect(msg).toMatch(/delete/);
  });
});

describe('shipping', () => {
  it('platform shipping needs a provider and parcel size offered for the seller’s address', async () => {
    expect((await post(listing(platform({ parcel_size_id: 'medium' })))).status).toBe(200);
    const provider = await expectError(
      post(listing({ sku: 'S2', ...platform({ shipping_provider_id: 'USPS' }) })),
      422,
      'validation',
    );
    expect(provider).toMatch(/ROYAL_MAIL, EVRI/);
    await expectError(
      post(listing({ sku: 'S3', ...platform({ parcel_size_id: 'PALLET' }) })),
      422,
      'validation',
    );
  });
  it('rule 5: another seller’s address → generic_error 422; rule 2: both shipping kinds → validation', async () => {
    const other = addShop(shop.sim);
    const msg = await expectError(
      post(listing(platform({ address_id: other.address.id }))),
      422,
      'generic_error',
    );
    expect(msg).toMatch(/does not belong/);
    const both = await expectError(
      post(listing({ ...platform(), national_shipping_cost: '3.00' })),
      422,
      'validation',
    );
    expect(both).toMatch(/not both/);
  });
  it('manual shipping barred: national cost refused, platform shipping still fine', async () => {
    shop.seller.profile.manualShippingAllowed = false;
    await expectError(post(listing()), 422, 'manual_shipping_not_allowed');
    expect((await post(listing(platform()))).status).toBe(200);
  });
  it('an address without providers offers only manual shipping: platform shipping from it → validation', async () => {
    const { addAddress } = await import('../../src/world.ts');
    const bare = addAddress(shop.sim.world, shop.seller, {}, []);
    await expectError(post(listing(platform({ address_id: bare.id }))), 422, 'validation');
  });
});

describe('seller profiles', () => {
  it('unsupported_country for a seller country outside the supported ones, listing them', async () => {
    const other = addShop(shop.sim, { username: 'brazil' });
    other.seller.countryCode = 'BR';
    const res = await shop.call('POST', '/api/v1/products/', listing(), { token: other.apiKey });
    expect([res.status, codeOf(res)]).toEqual([422, 'unsupported_country']);
    expect(res.body.errors[0].message).toMatch(/GB, US/);
  });
  it('onboarding incomplete: create, PUT, PATCH and offers refused; delete and mark-as-sold allowed', async () => {
    const { product_id } = await createProduct(shop);
    shop.seller.products.get(product_id)!.likes.add(77);
    await createProduct(shop, { sku: 'T2' });
    shop.seller.profile.onboardingIncomplete = true;
    await expectError(post(listing({ sku: 'T3' })), 422, 'seller_onboarding_incomplete');
    await expectError(
      shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody()),
      422,
      'seller_onboarding_incomplete',
    );
    await expectError(
      shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { quantity: 2 }),
      422,
      'seller_onboarding_incomplete',
    );
    await expectError(
      shop.call('POST', '/api/v1/products/by-sku/TEE-1/offer/', {
        offer_recipient_id: 77,
        offer_value: 15,
        offer_currency: 'GBP',
      }),
      422,
      'seller_onboarding_incomplete',
    );
    expect((await shop.call('POST', '/api/v1/products/by-sku/TEE-1/mark-as-sold/')).status).toBe(200);
    expect((await shop.call('DELETE', '/api/v1/products/by-sku/T2/')).status).toBe(200);
  });
});

describe('scopes', () => {
  it('without offers_read the auto-offer prices are omitted from GET and list; with it they are returned', async () => {
    await createProduct(shop, { auto_send_offer_price: '18.00', auto_negotiate_offer_price: '15.00' });
    const readOnly = oauthToken(shop, ['products_read']);
    const withOffers = oauthToken(shop, ['products_read', 'offers_read']);
    const bare = (await get('/api/v1/products/by-sku/TEE-1/', readOnly)).body;
    expect(bare).not.toHaveProperty('auto_send_offer_price');
    expect(bare).not.toHaveProperty('auto_negotiate_offer_price');
    expect((await get('/api/v1/products/', readOnly)).body.data[0]).not.toHaveProperty(
      'auto_send_offer_price',
    );
    expect((await get('/api/v1/products/by-sku/TEE-1/', withOffers)).body).toMatchObject({
      auto_send_offer_price: '18.00',
      auto_negotiate_offer_price: '15.00',
    });
  });
  it('offers_write is needed for auto-offer prices on PUT; products_write alone suffices otherwise', async () => {
    await createProduct(shop);
    const token = oauthToken(shop, ['products_write']);
    const res = await shop.call(
      'PUT',
      '/api/v1/products/by-sku/TEE-1/',
      putBody({ auto_negotiate_offer_price: '10.00' }),
      { token },
    );
    expect([res.status, codeOf(res)]).toEqual([403, 'insufficient_scope']);
    expect(res.body.errors[0].message).toMatch(/offers_write/);
    expect((await shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody(), { token })).status).toBe(200);
    const both = oauthToken(shop, ['products_write', 'offers_write']);
    expect(
      (
        await shop.call(
          'PATCH',
          '/api/v1/products/by-sku/TEE-1/',
          { auto_send_offer_price: '12.00' },
          {
            token: both,
          },
        )
      ).status,
    ).toBe(200);
  });
});

describe('keys, ids and slugs', () => {
  it('product ids increment from the world counter; slugs are description words plus the id', async () => {
    const start = shop.sim.world.ids.product;
    const a = await createProduct(shop, { description: 'Vintage  Nike T-Shirt! - #nike' });
    const b = await createProduct(shop, { sku: 'T2', description: '#nike' });
    expect([a.product_id, b.product_id]).toEqual([start + 1, start + 2]);
    expect(a.slug).toBe(`vintage-nike-t-shirt-${start + 1}`);
    expect(b.slug).toBe(String(start + 2));
  });
  it('a create without SKU is managed by product ID and slug (sku null)', async () => {
    const res = await post(listing({ sku: undefined }));
    expect(res.body.sku).toBeNull();
    const p = (await get(`/api/v1/products/by-product-id/${res.body.product_id}/`)).body;
    expect(p.sku).toBeNull();
    expect(
      (await shop.call('PUT', `/api/v1/products/by-slug/${res.body.slug}/`, putBody())).body.sku,
    ).toBeNull();
  });
  it('PUT by an unknown slug → 404; a removed product: GET 404, PATCH / PUT / purchase product_not_on_sale, mark-as-sold a no-op', async () => {
    await expectError(
      shop.call('PUT', '/api/v1/products/by-slug/no-such-slug-1/', putBody()),
      404,
      'product_not_found',
    );
    const { product_id, slug } = await createProduct(shop);
    await shop.call('DELETE', `/api/v1/products/by-product-id/${product_id}/`);
    expect((await get(`/api/v1/products/by-slug/${slug}/`)).status).toBe(404);
    expect((await get(`/api/v1/products/by-product-id/${product_id}/`)).status).toBe(404);
    await expectError(
      shop.call('PATCH', `/api/v1/products/by-slug/${slug}/`, { quantity: 2 }),
      422,
      'product_not_on_sale',
    );
    await expectError(
      shop.call('PUT', `/api/v1/products/by-product-id/${product_id}/`, putBody()),
      422,
      'product_not_on_sale',
    );
    await expectError(
      shop.call('PUT', `/api/v1/products/by-slug/${slug}/`, putBody()),
      422,
      'product_not_on_sale',
    );
    await expectError(
      shop.call('POST', `/api/v1/products/by-product-id/${product_id}/purchase/`),
      422,
      'product_not_on_sale',
    );
    const marked = await shop.call('POST', `/api/v1/products/by-product-id/${product_id}/mark-as-sold/`);
    expect(marked.status).toBe(200);
    const record = shop.seller.products.get(product_id)!;
    expect(record.state).toBe('removed');
    expect(record.quantity).toBe(1);
    expect(shop.seller.orders.size).toBe(0);
  });
  it('another seller’s product: PUT by product ID, PATCH, DELETE and mark-as-sold leave it untouched', async () => {
    const { product_id } = await createProduct(shop);
    const other = addShop(shop.sim);
    const as = { token: other.apiKey };
    const path = `/api/v1/products/by-product-id/${product_id}/`;
    expect(codeOf(await shop.call('PUT', path, putBody(), as))).toBe('product_not_found');
    expect(codeOf(await shop.call('PATCH', path, { quantity: 5 }, as))).toBe('product_not_found');
    expect(codeOf(await shop.call('POST', `${path}mark-as-sold/`, undefined, as))).toBe('product_not_found');
    expect((await shop.call('DELETE', path, undefined, as)).status).toBe(200); // idempotent: nothing there for them
    // PUT by SKU from the other seller creates *their own* listing with that SKU
    expect(
      (await shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody(), as)).body.product_id,
    ).not.toBe(product_id);
    expect((await get(path)).body).toMatchObject({ status: 'STATUS_ONSALE', quantity: 1 });
  });
});

describe('more transitions', () => {
  it('PATCH: is_boosted toggles; prices above the price rejected against the merged prices; empty body → 422', async () => {
    await createProduct(shop);
    await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { is_boosted: true });
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.is_boosted).toBe(true);
    await expectError(shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', {}), 422, 'validation');
    await expectError(
      shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { auto_negotiate_offer_price: '19.50' }),
      422,
      'validation',
    );
    await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { discount_price: '18.00' });
    await expectError(
      shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { price_amount: '17.00' }),
      422,
      'validation',
    );
  });
  it('a purchased product is STATUS_PURCHASED and not on sale; deleting it gives STATUS_DELETED_PURCHASED', async () => {
    const { product_id } = await createProduct(shop);
    await shop.call('POST', `/api/v1/products/by-product-id/${product_id}/purchase/`);
    const p = (await get('/api/v1/products/by-sku/TEE-1/')).body;
    expect(p.status).toBe('STATUS_PURCHASED');
    await expectError(
      shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { price_amount: '30.00' }),
      422,
      'product_not_on_sale',
    );
    await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/');
    const { wireStatus } = await import('../../src/domain/product-wire.ts');
    expect(wireStatus(shop.seller.products.get(product_id)!)).toBe('STATUS_DELETED_PURCHASED');
  });
  it('a removed on-sale product is STATUS_DELETED_ONSALE; a banned sold one STATUS_PRODUCT_BANNED_PURCHASED', async () => {
    const { wireStatus } = await import('../../src/domain/product-wire.ts');
    const a = await createProduct(shop);
    await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/');
    expect(wireStatus(shop.seller.products.get(a.product_id)!)).toBe('STATUS_DELETED_ONSALE');
    const b = await createProduct(shop, { sku: 'T2' });
    await shop.call('POST', '/api/v1/products/by-sku/T2/purchase/');
    const record = shop.seller.products.get(b.product_id)!;
    record.previousState = record.state;
    record.state = 'banned';
    expect((await get('/api/v1/products/by-sku/T2/')).body.status).toBe('STATUS_PRODUCT_BANNED_PURCHASED');
  });
  it('the staging purchase of a product not on sale → 422 product_not_on_sale; unknown → 404', async () => {
    await createProduct(shop);
    await shop.call('POST', '/api/v1/products/by-sku/TEE-1/mark-as-sold/');
    await expectError(
      shop.call('POST', '/api/v1/products/by-sku/TEE-1/purchase/'),
      422,
      'product_not_on_sale',
    );
    await expectError(shop.call('POST', '/api/v1/products/by-sku/NOPE/purchase/'), 404, 'product_not_found');
  });
  it('a multi-quantity listing stays on sale after one purchase and sells out at 0', async () => {
    await createProduct(shop, { quantity: 2 });
    await shop.call('POST', '/api/v1/products/by-sku/TEE-1/purchase/');
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body).toMatchObject({
      status: 'STATUS_ONSALE',
      quantity: 1,
    });
    await shop.call('POST', '/api/v1/products/by-sku/TEE-1/purchase/');
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body).toMatchObject({
      status: 'STATUS_PURCHASED',
      quantity: 0,
    });
  });
});
