import { Product, ProductCreateOrUpdateResponse } from '@selling-kit/api-client/core';
import { createSeller, createApiKey, addAddress } from '../../src/world.ts';
import { listing, putBody, createProduct, codeOf, testShopPerTest, platformShipping } from '../fixtures.ts';

const shop = testShopPerTest();

const get = (path: string) => shop.call('GET', path);

describe('create and read', () => {
  it('creates a listing readable by SKU, product ID and slug with the Product schema', async () => {
    const created = await shop.call('POST', '/api/v1/products/', listing());
    expect(created.status).toBe(200);
    const ids = ProductCreateOrUpdateResponse.parse(created.body);
    expect(ids.sku).toBe('TEE-1');
    expect(ids.slug).toMatch(/^vintage-nike-tee-boxy-fit-\d+$/);
    for (const path of [`by-sku/TEE-1`, `by-product-id/${ids.product_id}`, `by-slug/${ids.slug}`]) {
      const res = await get(`/api/v1/products/${path}/`);
      expect(res.status).toBe(200);
      const p = Product.parse(res.body);
      expect(p).toMatchObject({
        product_id: ids.product_id,
        status: 'STATUS_ONSALE',
        brand: 'Nike',
        quantity: 1,
        current_price: '20.00',
      });
    }
  });
  it('product_not_found for unknown keys and for another seller’s product (isolation)', async () => {
    const { product_id } = await createProduct(shop);
    const other = createSeller(shop.sim.world, { username: 'other' });
    const { key } = createApiKey(shop.sim.world, 'partner-2', other.id);
    const res = await shop.call('GET', `/api/v1/products/by-product-id/${product_id}/`, undefined, {
      token: key,
    });
    expect([res.status, codeOf(res)]).toEqual([404, 'product_not_found']);
    expect(codeOf(await get('/api/v1/products/by-sku/NOPE/'))).toBe('product_not_found');
    expect(codeOf(await get('/api/v1/products/by-product-id/abc/'))).toBe('product_not_found');
  });
  it('read-after-create delay: product_not_found until the delay has passed', async () => {
    shop.sim.config.readAfterCreateDelayMs = 2_000;
    await createProduct(shop);
    expect(codeOf(await get('/api/v1/products/by-sku/TEE-1/'))).toBe('product_not_found');
    shop.sim.world.clock.advance(2_001);
    expect((await get('/api/v1/products/by-sku/TEE-1/')).status).toBe(200);
  });
  it('keeps a discount as current price; an API key (every scope) sees the auto-offer prices', async () => {
    await createProduct(shop, { discount_price: '18.00', auto_negotiate_offer_price: '15.00' });
    const p = (await get('/api/v1/products/by-sku/TEE-1/')).body;
    expect(p.current_price).toBe('18.00');
    expect(p.auto_negotiate_offer_price).toBe('15.00'); // API keys hold every scope
  });
});

describe('validation rules and codes', () => {
  const expectCode = async (
    body: Record<string, unknown>,
    status: number,
    code: string,
    message?: RegExp,
  ) => {
    const res = await shop.call('POST', '/api/v1/products/', body);
    expect([res.status, codeOf(res)]).toEqual([status, code]);
    if (message) expect(res.body.errors[0].message).toMatch(message);
    return res;
  };
  it('rule 1: quantity at least 1 on create', () =>
    expectCode(listing({ quantity: 0 }), 422, 'validation', /quantity/));
  it('rule 2: platform shipping or national cost', () =>
    expectCode(listing({ national_shipping_cost: undefined }), 422, 'validation', /shipping/));
  it('rule 4: duplicate SKU fails, including sold and deleted products', async () => {
    await createProduct(shop);
    await expectCode(listing(), 422, 'validation', /already exists/);
    await shop.call('POST', '/api/v1/products/by-sku/TEE-1/mark-as-sold/');
    await expectCode(listing(), 422, 'validation', /already exists/);
    await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/');
    await expectCode(listing(), 422, 'validation', /already exists/);
  });
  it('rule 5: an address that is not the seller’s → generic_error (4xx)', () =>
    expectCode(
      listing({
        national_shipping_cost: undefined,
        ...platformShipping(999999, 'buyer'),
      }),
      422,
      'generic_error',
      /999999/,
    ));
  it('platform shipping from the seller’s own address is accepted', async () => {
    const body = listing({
      national_shipping_cost: undefined,
      ...platformShipping(shop.addressId, 'buyer', 'ROYAL_MAIL', 'small'),
    });
    expect((await shop.call('POST', '/api/v1/products/', body)).status).toBe(200);
  });
  it('rule 6: discount and auto-send below the price', async () => {
    await expectCode(listing({ discount_price: '20.00' }), 422, 'validation', /discount_price/);
    await expectCode(listing({ auto_send_offer_price: '21.00' }), 422, 'validation', /auto_send_offer_price/);
  });
  it('rule 7: auto-negotiate at most price minus the configured minimum percentage', async () => {
    await expectCode(listing({ auto_negotiate_offer_price: '19.01' }), 422, 'validation', /5%/);
    shop.sim.config.minPercentOff = 10;
    await expectCode(listing({ auto_negotiate_offer_price: '18.01' }), 422, 'validation', /10%/);
  });
  it('too_many_pictures above 8', () =>
    expectCode(
      listing({ pictures: Array.from({ length: 9 }, (_, i) => ({ url: `https://img.example/${i}.jpg` })) }),
      422,
      'too_many_pictures',
    ));
  it('invalid_description: more than 5 hashtags, or another brand tagged', async () => {
    await expectCode(
      listing({ description: 'tee #nike #nike #nike #nike #nike #nike' }),
      422,
      'invalid_description',
      /6 hashtags/,
    );
    await expectCode(listing({ description: 'tee #adidas' }), 422, 'invalid_description', /#adidas/);
  });
  it('invalid_brand for an unknown brand_id; unknown brand_name becomes unbranded', async () => {
    await expectCode(listing({ brand_id: 9999 }), 422, 'invalid_brand');
    await createProduct(shop, { brand_name: 'No Such Label', description: 'plain tee' });
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.brand).toBe('unbranded');
  });
  it('invalid_size: size not in the type’s size sets, or a size on a sizeless type', async () => {
    await expectCode(listing({ size_id: 99 }), 422, 'invalid_size');
    await expectCode(listing({ size_set_id: 47 }), 422, 'invalid_size');
    await expectCode(listing({ product_type: 'bags' }), 422, 'invalid_size');
  });
  it('invalid_department: missing, unknown, or category not resolvable', async () => {
    await expectCode(listing({ department: undefined }), 422, 'invalid_department');
    await expectCode(listing({ department: 'pets' }), 422, 'invalid_department');
    await expectCode(listing({ product_type: 'dresses' }), 422, 'invalid_department');
    await expectCode(listing({ category_id: 12 }), 422, 'invalid_department', /legacy/);
  });
  it('seller profiles: onboarding, country, manual shipping', async () => {
    shop.seller.profile.manualShippingAllowed = false;
    await expectCode(listing(), 422, 'manual_shipping_not_allowed');
    shop.seller.profile.unsupportedCountry = true;
    await expectCode(listing(), 422, 'unsupported_country', /GB/);
    shop.seller.profile.onboardingIncomplete = true;
    await expectCode(listing(), 422, 'seller_onboarding_incomplete');
  });
  it('400 only for what cannot be parsed (bad JSON, a wrong JSON type); a missing field is 422 validation', async () => {
    await expectCode(listing({ price_amount: 20 }), 400, 'bad-request', /price_amount/);
    const { description: _d, ...noDescription } = listing();
    await expectCode(noDescription, 422, 'validation', /description/);
    await expectCode(listing({ condition: 'mint' as never }), 422, 'validation', /condition/);
    const res = await shop.call('POST', '/api/v1/products/', '{"sku": ');
    expect([res.status, codeOf(res)]).toEqual([400, 'bad-request']);
  });
  it('SKU longer than 50 characters fails validation', () =>
    expectCode(listing({ sku: 'x'.repeat(51) }), 422, 'validation'));
  it('PUT by a new SKU (the upsert) applies every create rule, the 50-character SKU too', async () => {
    const long = 'x'.repeat(51);
    const res = await shop.call('PUT', `/api/v1/products/by-sku/${long}/`, putBody());
    expect([res.status, codeOf(res)]).toEqual([422, 'validation']);
    expect(res.body.errors[0].message).toMatch(/sku/);
    // Exactly what POST create answers for the same SKU.
    const posted = await shop.call('POST', '/api/v1/products/', listing({ sku: long }));
    expect(res.body.errors).toEqual(posted.body.errors);
    expect(shop.seller.skus.has(long)).toBe(false);
    const zero = await shop.call('PUT', '/api/v1/products/by-sku/NEW-0/', putBody({ quantity: 0 }));
    expect([zero.status, codeOf(zero)]).toEqual([422, 'validation']);
    expect((await shop.call('PUT', `/api/v1/products/by-sku/${'y'.repeat(50)}/`, putBody())).status).toBe(
      200,
    );
  });
});

describe('full update (PUT)', () => {
  it('PUT by SKU creates when the SKU is new (upsert) and updates otherwise', async () => {
    const first = await shop.call('PUT', '/api/v1/products/by-sku/NEW-1/', putBody());
    expect(first.status).toBe(200);
    expect(first.body.sku).toBe('NEW-1');
    const second = await shop.call(
      'PUT',
      '/api/v1/products/by-sku/NEW-1/',
      putBody({ price_amount: '30.00' }),
    );
    expect(second.body.product_id).toBe(first.body.product_id);
    expect((await get('/api/v1/products/by-sku/NEW-1/')).body.price_amount).toBe('30.00');
  });
  it('PUT by product ID or slug updates existing products only', async () => {
    const { product_id, slug } = await createProduct(shop);
    expect(
      (
        await shop.call(
          'PUT',
          `/api/v1/products/by-product-id/${product_id}/`,
          putBody({ price_amount: '25.00' }),
        )
      ).status,
    ).toBe(200);
    expect(
      (await shop.call('PUT', `/api/v1/products/by-slug/${slug}/`, putBody({ price_amount: '26.00' })))
        .status,
    ).toBe(200);
    expect(codeOf(await shop.call('PUT', '/api/v1/products/by-product-id/123/', putBody()))).toBe(
      'product_not_found',
    );
  });
  it('rule 3: size cannot change; no non-variant → variant conversion', async () => {
    await createProduct(shop);
    const size = await shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody({ size_id: 20 }));
    expect([size.status, codeOf(size)]).toEqual([422, 'validation']);
    expect(size.body.errors[0].message).toMatch(/delete/);
    const variants = await shop.call(
      'PUT',
      '/api/v1/products/by-sku/TEE-1/',
      putBody({
        size_id: undefined,
        variants: [
          { size_id: 18, quantity: 1 },
          { size_id: 20, quantity: 1 },
        ],
      }),
    );
    expect([variants.status, codeOf(variants)]).toEqual([422, 'validation']);
  });
  it('is_boosted: kept when omitted, changed when sent', async () => {
    await createProduct(shop, { is_boosted: true });
    await shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody());
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.is_boosted).toBe(true);
    await shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody({ is_boosted: false }));
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.is_boosted).toBe(false);
  });
  it('offers_write is needed for auto-offer prices (OAuth token without it → 403 naming the scope)', async () => {
    const token = 'pat_test_products_only';
    shop.sim.world.oauthClients.set('c1', {
      clientId: 'c1',
      clientSecret: 's',
      partnerId: 'p-oauth',
      redirectUris: [],
    });
    shop.sim.world.partners.set('p-oauth', { id: 'p-oauth', accessDenied: false });
    shop.sim.world.accessTokens.set(token, {
      token,
      clientId: 'c1',
      sellerId: shop.seller.id,
      scopes: ['products_write', 'products_read'],
      expiresAt: Date.now() + 3_600_000,
    });
    const res = await shop.call('POST', '/api/v1/products/', listing({ auto_send_offer_price: '15.00' }), {
      token,
    });
    expect([res.status, codeOf(res)]).toEqual([403, 'insufficient_scope']);
    expect(res.body.errors[0].message).toMatch(/offers_write/);
    const got = await shop.call('POST', '/api/v1/products/', listing({ sku: 'T2' }), { token });
    expect(got.status).toBe(200);
    await shop
      .call('PATCH', '/api/v1/products/by-sku/T2/', { auto_negotiate_offer_price: '10.00' }, { token })
      .then((r) => expect(codeOf(r)).toBe('insufficient_scope'));
  });
});

describe('states and transitions', () => {
  it('mark-as-sold: selling → sold; again is a no-op; missing → 404', async () => {
    await createProduct(shop);
    expect((await shop.call('POST', '/api/v1/products/by-sku/TEE-1/mark-as-sold/')).status).toBe(200);
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.status).toBe('STATUS_MARKED_AS_SOLD');
    expect((await shop.call('POST', '/api/v1/products/by-sku/TEE-1/mark-as-sold/')).status).toBe(200);
    expect(codeOf(await shop.call('POST', '/api/v1/products/by-sku/NOPE/mark-as-sold/'))).toBe(
      'product_not_found',
    );
  });
  it('PATCH quantity 0 sells out; PATCH quantity ≥ 1 restocks (spec: restocking by PATCH); other PATCHes of a sold product → product_not_on_sale; PUT restocks', async () => {
    await createProduct(shop);
    expect((await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { quantity: 0 })).status).toBe(200);
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.status).toBe('STATUS_MARKED_AS_SOLD');
    const res = await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { price_amount: '10.00' });
    expect([res.status, codeOf(res)]).toEqual([422, 'product_not_on_sale']);
    const restock = await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', {
      quantity: 2,
      price_amount: '21.00',
    });
    expect(restock.status).toBe(200);
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body).toMatchObject({
      status: 'STATUS_ONSALE',
      quantity: 2,
      price_amount: '21.00',
    });
    // Sold out by purchases, then restocked the same way.
    for (let i = 0; i < 2; i++)
      expect((await shop.call('POST', '/api/v1/products/by-sku/TEE-1/purchase/')).status).toBe(200);
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.status).toBe('STATUS_PURCHASED');
    expect((await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { quantity: 1 })).status).toBe(200);
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.status).toBe('STATUS_ONSALE');
    await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { quantity: 0 });
    await shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody({ quantity: 3 }));
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body).toMatchObject({
      status: 'STATUS_ONSALE',
      quantity: 3,
    });
  });
  it('PATCH checks prices against the current price and rejects negative quantity', async () => {
    await createProduct(shop);
    expect(
      codeOf(await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { discount_price: '25.00' })),
    ).toBe('validation');
    expect(codeOf(await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { quantity: -1 }))).toBe(
      'validation',
    );
    expect(
      (
        await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', {
          price_amount: '30.00',
          discount_price: '25.00',
        })
      ).status,
    ).toBe(200);
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.current_price).toBe('25.00');
  });
  it('delete → removed; idempotent; the SKU stays reserved; PUT of a removed SKU is refused', async () => {
    await createProduct(shop);
    expect((await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/')).status).toBe(200);
    expect(codeOf(await get('/api/v1/products/by-sku/TEE-1/'))).toBe('product_not_found');
    expect((await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/')).status).toBe(200);
    expect((await shop.call('DELETE', '/api/v1/products/by-sku/NEVER/')).status).toBe(200);
    expect(codeOf(await shop.call('PUT', '/api/v1/products/by-sku/TEE-1/', putBody()))).toBe(
      'product_not_on_sale',
    );
    // Restocking by PATCH is for sold listings only: a removed one stays removed.
    const restock = await shop.call('PATCH', '/api/v1/products/by-sku/TEE-1/', { quantity: 2 });
    expect([restock.status, codeOf(restock)]).toEqual([422, 'product_not_on_sale']);
    expect(shop.sim.world.sellers.get(shop.seller.id)!.products.values().next().value!.state).toBe('removed');
  });
  it('delete with fail_if_active_offers: 409 while offers are active; without the flag offers are cancelled', async () => {
    const { product_id } = await createProduct(shop);
    shop.seller.products.get(product_id)!.likes.add(77);
    expect(
      (
        await shop.call('POST', '/api/v1/products/by-sku/TEE-1/offer/', {
          offer_recipient_id: 77,
          offer_value: 15,
          offer_currency: 'GBP',
        })
      ).status,
    ).toBe(200);
    const refused = await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/?fail_if_active_offers=true');
    expect([refused.status, codeOf(refused)]).toEqual([409, 'product_has_active_offers']);
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.status).toBe('STATUS_ONSALE');
    expect(
      codeOf(await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/?fail_if_active_offers=maybe')),
    ).toBe('bad-request');
    expect((await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/')).status).toBe(200);
    expect(shop.seller.offers[0]!.state).toBe('cancelled');
  });
  it('expired offers no longer block delete with the flag', async () => {
    const { product_id } = await createProduct(shop);
    shop.seller.products.get(product_id)!.likes.add(77);
    await shop.call('POST', '/api/v1/products/by-sku/TEE-1/offer/', {
      offer_recipient_id: 77,
      offer_value: 15,
      offer_currency: 'GBP',
    });
    shop.sim.world.clock.advance(24 * 3600 * 1000 + 1);
    expect(
      (await shop.call('DELETE', '/api/v1/products/by-sku/TEE-1/?fail_if_active_offers=true')).status,
    ).toBe(200);
  });
  it('banned: every change fails with product_has_been_banned, reads still work', async () => {
    const { product_id } = await createProduct(shop);
    const record = shop.seller.products.get(product_id)!;
    record.previousState = record.state;
    record.state = 'banned';
    for (const [method, path, body] of [
      ['PUT', '/api/v1/products/by-sku/TEE-1/', putBody()],
      ['PATCH', '/api/v1/products/by-sku/TEE-1/', { price_amount: '10.00' }],
      ['PATCH', '/api/v1/products/by-sku/TEE-1/', { quantity: 2 }], // a restock does not lift a ban
      ['DELETE', '/api/v1/products/by-sku/TEE-1/', undefined],
      ['POST', '/api/v1/products/by-sku/TEE-1/mark-as-sold/', undefined],
      [
        'POST',
        '/api/v1/products/by-sku/TEE-1/offer/',
        { offer_recipient_id: 1, offer_value: 15, offer_currency: 'GBP' },
      ],
    ] as const) {
      const res = await shop.call(method, path, body);
      expect([method, res.status, codeOf(res)]).toEqual([method, 422, 'product_has_been_banned']);
    }
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.status).toBe('STATUS_PRODUCT_BANNED_ONSALE');
  });
  it('staging purchase creates an order and sells the last item; like fires for the liker', async () => {
    await createProduct(shop);
    expect((await shop.call('POST', '/api/v1/products/by-sku/TEE-1/like/?liker_id=55')).status).toBe(200);
    expect([...shop.seller.products.values()][0]!.likes.has(55)).toBe(true);
    expect((await shop.call('POST', '/api/v1/products/by-sku/TEE-1/purchase/')).status).toBe(200);
    expect((await get('/api/v1/products/by-sku/TEE-1/')).body.status).toBe('STATUS_PURCHASED');
    expect((await get('/api/v1/orders/')).body.data).toHaveLength(1);
  });
});

describe('a second seller', () => {
  it('can reuse an SKU of another seller (uniqueness is per seller)', async () => {
    await createProduct(shop);
    const other = createSeller(shop.sim.world, { username: 'other' });
    addAddress(shop.sim.world, other);
    const { key } = createApiKey(shop.sim.world, 'partner-2', other.id);
    expect((await shop.call('POST', '/api/v1/products/', listing(), { token: key })).status).toBe(200);
  });
});

describe('likes and their webhooks', () => {
  it('admin like and unlike fire v1:product.like / v1:product.unlike with the slug, once each', async () => {
    const emitted: { type: string; data: Record<string, unknown> }[] = [];
    const { likeProduct, unlikeProduct } = await import('../../src/domain/products.ts');
    const { product_id, slug } = await createProduct(shop);
    const events = {
      emit: (_seller: number, type: string, data: Record<string, unknown>) =>
        void emitted.push({ type, data }),
    };
    likeProduct(shop.seller, product_id, 42, events);
    likeProduct(shop.seller, product_id, 42, events); // already liked: no second event
    unlikeProduct(shop.seller, product_id, 42, events);
    unlikeProduct(shop.seller, product_id, 42, events);
    expect(emitted.map((e) => e.type)).toEqual(['v1:product.like', 'v1:product.unlike']);
    expect(emitted[1]!.data).toMatchObject({ product_id, slug, liker_id: 42, sku: 'TEE-1' });
    const over = await fetch(`${shop.sim.adminUrl}/admin/products/${product_id}/likes/42`, {
      method: 'DELETE',
    });
    expect(over.status).toBe(200);
  });
});
