// Local pre-validation: a request breaking one of the spec's rules or limits fails with
// LocalValidationError naming the field and the rule, before anything is sent (the scripted transport
// sees no request). The rules themselves live in src/core/rules (tested in rules.test.ts); this file
// checks that the client applies them to the right operations, with the right context.
import fc from 'fast-check';
import { LocalValidationError, formatMoney, parseMoney } from '../src/client/index.ts';
import { CREATE_BODY, json, scriptedClient } from './helpers/scripted.ts';

type T = ReturnType<typeof scriptedClient>;

async function rejected(fn: (t: T) => Promise<unknown>): Promise<LocalValidationError> {
  const t = scriptedClient([], {}, json(200, { product_id: 1, slug: 's', sku: 'x' }));
  const err = await fn(t).catch((e: unknown) => e);
  expect(t.transport.requests).toHaveLength(0);
  expect(err).toBeInstanceOf(LocalValidationError);
  return err as LocalValidationError;
}

async function sent(fn: (t: T) => Promise<unknown>): Promise<void> {
  const t = scriptedClient([], {}, json(200, { product_id: 1, slug: 's', sku: 'x' }));
  await fn(t);
  expect(t.transport.requests).toHaveLength(1);
}

const fields = (e: LocalValidationError) => e.violations.map((v) => v.field);
const { sku: _sku, ...PUT_BASE } = CREATE_BODY;
const PUT_BODY = { ...PUT_BASE, attributes: {} };

describe('limits', () => {
  it('SKU of at most 50 characters, in a body or a path', async () => {
    const err = await rejected((t) => t.client.products.create({ ...CREATE_BODY, sku: 'X'.repeat(51) }));
    expect(err).toMatchObject({ field: 'sku', status: undefined, operationId: 'products.create' });
    expect(err.rule).toMatch(/50/);
    expect(fields(await rejected((t) => t.client.products.getBySku('Y'.repeat(51))))).toEqual(['sku']);
    // The upsert creates a listing: its path SKU is refused as create refuses a body's (same rule, same code).
    const put = await rejected((t) => t.client.products.updateBySku('Z'.repeat(51), PUT_BODY));
    expect(put).toMatchObject({ field: 'sku', code: err.code, rule: err.rule });
    await sent((t) => t.client.products.upsertBySku('Z'.repeat(50), PUT_BODY));
  });

  it('at most 8 pictures (too_many_pictures)', async () => {
    const pictures = Array.from({ length: 9 }, (_, i) => ({ url: `https://img.test/${i}.jpg` }));
    const err = await rejected((t) => t.client.products.create({ ...CREATE_BODY, pictures }));
    expect(err).toMatchObject({ field: 'pictures', code: 'too_many_pictures' });
    await sent((t) => t.client.products.create({ ...CREATE_BODY, pictures: pictures.slice(0, 8) }));
  });

  it('at most 5 hashtags, and no tag of another known brand (invalid_description)', async () => {
    const six = await rejected((t) =>
      t.client.products.create({ ...CREATE_BODY, description: 'Tee #nike #nike #nike #nike #nike #nike' }),
    );
    expect(six).toMatchObject({ field: 'description', code: 'invalid_description' });
    const foreign = await rejected((t) =>
      t.client.products.updateBySku('A', { ...PUT_BODY, description: 'Tee #adidas' }),
    );
    expect(foreign).toMatchObject({ field: 'description', code: 'invalid_description' });
    // What real sellers write is sent: generic tags are the service's to judge, never refused locally.
    await sent((t) =>
      t.client.products.create({ ...CREATE_BODY, description: 'Vintage cotton tee #vintage #y2k #nike' }),
    );
  });

  it('money strings with at most 2 decimals', async () => {
    expect(
      fields(await rejected((t) => t.client.products.create({ ...CREATE_BODY, price_amount: '12.345' }))),
    ).toEqual(['price_amount']);
    expect(
      fields(await rejected((t) => t.client.products.patchBySku('A', { discount_price: '1e3' }))),
    ).toEqual(['discount_price']);
  });

  it('page sizes: ≤ 100 products, ≤ 200 orders', () => {
    const t = scriptedClient([]);
    expect(() => t.client.products.list({ limit: 101 })).toThrow(LocalValidationError);
    expect(() => t.client.orders.list({ limit: 201 })).toThrow(LocalValidationError);
    expect(t.transport.requests).toHaveLength(0);
  });
});

describe('the spec’s validation rules', () => {
  it('rule 1: quantity of at least 1 on create (and restock); 0 through PATCH sells out', async () => {
    expect(await rejected((t) => t.client.products.create({ ...CREATE_BODY, quantity: 0 }))).toMatchObject({
      field: 'quantity',
      code: 'validation',
    });
    expect((await rejected((t) => t.client.products.restock({ sku: 'A' }, 0))).field).toBe('quantity');
    await sent((t) => t.client.products.sellOut({ sku: 'A' }));
    expect((await rejected((t) => t.client.products.patchBySku('A', { quantity: -1 }))).field).toBe(
      'quantity',
    );
  });

  it('rule 2: platform shipping or a national shipping cost', async () => {
    const { national_shipping_cost: _n, ...noShipping } = CREATE_BODY;
    expect((await rejected((t) => t.client.products.create(noShipping))).field).toBe(
      'national_shipping_cost',
    );
  });

  it('rule 6: discount and auto-send prices below the price (create, and PATCH with the current price)', async () => {
    const err = await rejected((t) => t.client.products.create({ ...CREATE_BODY, discount_price: '20.00' }));
    expect(err).toMatchObject({ field: 'discount_price', code: 'validation' });
    const patch = await rejected((t) =>
      t.client.offers.setDiscount({ sku: 'A' }, '25.00', { current: { price_amount: '20.00' } }),
    );
    expect(patch.field).toBe('discount_price');
    // Without the current price the rule cannot be checked locally: the service decides.
    await sent((t) => t.client.offers.setDiscount({ sku: 'A' }, '25.00'));
  });

  it('rule 7: auto-negotiate price at most price minus the minimum percentage', async () => {
    const err = await rejected((t) =>
      t.client.offers.setAutoOffers(
        { sku: 'A' },
        { auto_negotiate_offer_price: '19.50' },
        { current: { price_amount: '20.00' } },
      ),
    );
    expect(err.field).toBe('auto_negotiate_offer_price');
    await sent((t) =>
      t.client.offers.setAutoOffers(
        { sku: 'A' },
        { auto_negotiate_offer_price: '19.00' },
        { current: { price_amount: '20.00' } },
      ),
    );
  });

  it('rules 8 and 9: offers in the product currency, far enough below the price, with the right size', async () => {
    const product = { price_amount: '20.00', price_currency: 'GBP', sizeIds: [3, 4] };
    const offer = { offer_recipient_id: 9, offer_value: 15, offer_currency: 'GBP', size_id: 3 };
    await sent((t) => t.client.offers.submitBySku('A', offer, { product }));
    const currency = await rejected((t) =>
      t.client.offers.submitBySku('A', { ...offer, offer_currency: 'USD' }, { product }),
    );
    expect(currency).toMatchObject({ field: 'offer_currency', code: 'validation' });
    expect(
      (await rejected((t) => t.client.offers.submitBySku('A', { ...offer, offer_value: 19.5 }, { product })))
        .field,
    ).toBe('offer_value');
    const { size_id: _s, ...noSize } = offer;
    expect((await rejected((t) => t.client.offers.submitBySku('A', noSize, { product }))).field).toBe(
      'size_id',
    );
    expect(
      (
        await rejected((t) =>
          t.client.offers.submitBySku('A', offer, { product: { ...product, sizeIds: [3] } }),
        )
      ).field,
    ).toBe('size_id');
  });

  it('rule 10: a positive refund amount, not above the prices', async () => {
    expect((await rejected((t) => t.client.refunds.create('P1', {}))).field).toBe('items_refund_amount');
    expect(
      (await rejected((t) => t.client.refunds.create('P1', { shipping_refund_amount: '0.00' }))).field,
    ).toBe('shipping_refund_amount');
    const order = { itemPriceCents: 2000, shippingPriceCents: 350 };
    expect(
      (await rejected((t) => t.client.refunds.create('P1', { items_refund_amount: '20.01' }, { order })))
        .field,
    ).toBe('items_refund_amount');
    await sent((t) =>
      t.client.refunds.create(
        'P1',
        { items_refund_amount: '20.00', shipping_refund_amount: '3.50' },
        { order },
      ),
    );
  });

  it('the minimum percentage is a client option', async () => {
    const t = scriptedClient([], { minPercentOff: 20 }, json(200, undefined));
    const product = { price_amount: '20.00', price_currency: 'GBP' };
    const err = await t.client.offers
      .submitBySku('A', { offer_recipient_id: 9, offer_value: 17, offer_currency: 'GBP' }, { product })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LocalValidationError);
  });

  it('lists every violation; validate: false sends anyway', async () => {
    const err = await rejected((t) =>
      t.client.products.create({
        ...CREATE_BODY,
        quantity: 0,
        discount_price: '99.00',
        description: '#a #b #c #d #e #f',
      }),
    );
    expect(new Set(fields(err))).toEqual(new Set(['quantity', 'discount_price', 'description']));
    expect(err.message).toMatch(/\(\+\d+ more\)/);
    await sent((t) => t.client.products.create({ ...CREATE_BODY, quantity: 0 }, { validate: false }));
  });
});

describe('validators through the client (property-based)', () => {
  it('any SKU of 1–50 characters is sent, any longer one is refused before sending', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 80 }), async (sku) => {
        const t = scriptedClient([], {}, json(200, { product_id: 1, slug: 's', sku }));
        const outcome = await t.client.products.create({ ...CREATE_BODY, sku }).then(
          () => 'sent',
          (e: unknown) => (e instanceof LocalValidationError ? 'refused' : 'other'),
        );
        expect(outcome).toBe(sku.length <= 50 ? 'sent' : 'refused');
        expect(t.transport.requests).toHaveLength(sku.length <= 50 ? 1 : 0);
      }),
      { numRuns: 60 },
    );
  });

  it('a discount is refused locally exactly when it is not below the price (money compared in cents)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 100, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        async (price, discount) => {
          const t = scriptedClient([], {}, json(200, { product_id: 1, slug: 's', sku: 'x' }));
          const body = {
            ...CREATE_BODY,
            price_amount: formatMoney(price),
            discount_price: formatMoney(discount),
          };
          const outcome = await t.client.products.create(body).then(
            () => 'sent',
            (e: unknown) =>
              e instanceof LocalValidationError && e.field === 'discount_price' ? 'refused' : String(e),
          );
          expect(outcome).toBe(discount < price ? 'sent' : 'refused');
        },
      ),
      { numRuns: 80 },
    );
  });

  it('the money parser round-trips every amount in cents and refuses 3+ decimals, signs and exponents', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (cents) => {
        const text = formatMoney(cents);
        expect(parseMoney(text)).toBe(cents);
        expect(parseMoney(`${text}0`)).toBeNull();
        expect(parseMoney(`-${text}`)).toBeNull();
        expect(parseMoney(`${text}e1`)).toBeNull();
      }),
    );
  });

  it('page sizes: 1–100 products and 1–200 orders pass, anything else is refused locally', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 400 }), (limit) => {
        const t = scriptedClient([]);
        const products = () => t.client.products.list({ limit });
        const orders = () => t.client.orders.list({ limit });
        if (limit >= 1 && limit <= 100) expect(products).not.toThrow();
        else expect(products).toThrow(LocalValidationError);
        if (limit >= 1 && limit <= 200) expect(orders).not.toThrow();
        else expect(orders).toThrow(LocalValidationError);
      }),
    );
  });
});
