import fc from 'fast-check';
import {
  parseMoney,
  formatMoney,
  checkProductWrite,
  checkProductPatch,
  checkOffer,
  checkRefund,
  checkHashtags,
  KNOWN_BRANDS,
  hashtagsOf,
  countHashtags,
  checkProductCreate,
  checkProductPut,
  MAX_PICTURES,
  MAX_HASHTAGS,
  DEFAULT_MIN_PERCENT_OFF,
} from '../src/core/index.ts';

const listing = (over: Record<string, unknown> = {}) => ({
  sku: 'SKU-1',
  address: { country_code: 'GB' },
  description: 'Vintage Nike tee #nike',
  price_currency: 'GBP',
  price_amount: '20.00',
  national_shipping_cost: '3.50',
  quantity: 1,
  pictures: [{ url: 'https://img.example/1.jpg' }],
  department: 'menswear',
  product_type: 'tshirts',
  condition: 'used_good',
  brand_name: 'Nike',
  ...over,
});
const codes = (v: { code: string }[]) => v.map((x) => x.code);
const fields = (v: { field: string }[]) => v.map((x) => x.field);

describe('money', () => {
  it('round-trips every cent amount', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1e12 }), (c) => parseMoney(formatMoney(c)) === c));
  });
  it('parses one- and two-decimal strings and whole numbers', () => {
    expect(parseMoney('5')).toBe(500);
    expect(parseMoney('5.0')).toBe(500);
    expect(parseMoney('25.99')).toBe(2599);
    expect(parseMoney('0.01')).toBe(1);
  });
  it('rejects anything that is not a ≤2-decimal non-negative decimal string', () => {
    for (const bad of ['', '1.234', '-1.00', '1e3', ' 1.00', '1,00', '01.00', '.5', '1.', 'NaN', '0x10'])
      expect(parseMoney(bad)).toBeNull();
    expect(parseMoney(12 as unknown as string)).toBeNull();
    fc.assert(
      fc.property(fc.string(), (s) => {
        const v = parseMoney(s);
        return (
          v === null ||
          (Number.isSafeInteger(v) &&
            v >= 0 &&
            formatMoney(v) === (s.includes('.') ? s.padEnd(s.indexOf('.') + 3, '0') : `${s}.00`))
        );
      }),
    );
  });
});

describe('product rules', () => {
  it('accepts a valid listing', () => {
    expect(checkProductWrite('create', listing())).toEqual([]);
  });
  it('rule 1: quantity at least 1 on create', () => {
    const v = checkProductWrite('create', listing({ quantity: 0 }));
    expect(fields(v)).toEqual(['quantity']);
    expect(codes(v)).toEqual(['validation']);
  });
  it('rule 2: platform shipping or a national cost, exactly one', () => {
    expect(fields(checkProductWrite('create', listing({ national_shipping_cost: undefined })))).toEqual([
      'national_shipping_cost',
    ]);
    const both = listing({
      depop_shipping: {
        address_id: 1,
        shipping_provider_id: 'EVRI',
        parcel_size_id: 'SMALL',
        payer: 'buyer',
      },
    });
    expect(checkProductWrite('create', both)[0]?.message).toMatch(/not both/);
  });
  it('rule 6: discount and auto-send below the price', () => {
    const v = checkProductWrite(
      'create',
      listing({ discount_price: '20.00', auto_send_offer_price: '25.00' }),
    );
    expect(fields(v)).toEqual(['discount_price', 'auto_send_offer_price']);
  });
  it('rule 7: auto-negotiate at most price minus the minimum percentage', () => {
    expect(checkProductWrite('create', listing({ auto_negotiate_offer_price: '19.00' }))).toEqual([]);
    expect(fields(checkProductWrite('create', listing({ auto_negotiate_offer_price: '19.01' })))).toEqual([
      'auto_negotiate_offer_price',
    ]);
    expect(
      checkProductWrite('create', listing({ auto_negotiate_offer_price: '19.00' }), { minPercentOff: 10 })[0]
        ?.rule,
    ).toMatch(/10%/);
  });
  it('limits: 8 pictures, 5 hashtags, brand-only tags, SKU 50, 2-decimal money, department', () => {
    const pics = Array.from({ length: 9 }, (_, i) => ({ url: `https://img.example/${i}.jpg` }));
    expect(codes(checkProductWrite('create', listing({ pictures: pics })))).toEqual(['too_many_pictures']);
    expect(
      codes(checkProductWrite('create', listing({ description: '#nike #nike #nike #nike #nike #nike' }))),
    ).toEqual(['invalid_description']);
    expect(checkProductWrite('create', listing({ description: 'tee #adidas' }))[0]?.message).toMatch(
      /#adidas/,
    );
    expect(codes(checkProductWrite('create', listing({ sku: 'x'.repeat(51) })))).toEqual(['validation']);
    expect(fields(checkProductWrite('create', listing({ price_amount: '20.001' })))).toEqual([
      'price_amount',
    ]);
    expect(codes(checkProductWrite('create', listing({ department: 'pets' })))).toEqual([
      'invalid_department',
    ]);
    expect(codes(checkProductWrite('create', listing({ price_amount: '0.50' })))).toEqual(['validation']);
  });
  it('status by class: a wrong JSON type is 400 bad-request; a missing field or a broken rule is 422', () => {
    const { description: _d, ...noDescription } = listing();
    expect(checkProductWrite('create', noDescription).map((v) => [v.field, v.code])).toEqual([
      ['description', 'validation'],
    ]);
    expect(codes(checkProductWrite('create', listing({ price_amount: 20 as never })))).toEqual([
      'bad-request',
    ]);
    expect(codes(checkProductWrite('create', listing({ condition: 'mint' as never })))).toEqual([
      'validation',
    ]);
  });
  it('hashtags compare brands without case or punctuation', () => {
    expect(checkHashtags("Levi's jeans #levis #LEVIS", "Levi's")).toEqual([]);
    expect(hashtagsOf('a #b c #d-e')).toEqual(['b', 'd-e']);
  });
  it('generic hashtags pass; only a tag naming another known brand is invalid_description', () => {
    expect(checkHashtags('Vintage cotton tee #vintage #y2k #nike', 'Nike')).toEqual([]);
    expect(checkHashtags('tee #nikeshoes #streetwear #90s', 'Nike')).toEqual([]);
    expect(checkHashtags('jacket #StoneIsland #archive', 'Stone Island')).toEqual([]);
    const foreign = checkHashtags('tee #vintage #StoneIsland', 'Nike');
    expect(foreign.map((v) => v.code)).toEqual(['invalid_description']);
    expect(foreign[0]?.message).toMatch(/#StoneIsland.*Stone Island/);
    // Lenient where the item's brand is written differently: a tag within the brand name is its own.
    expect(checkHashtags('fleece #nike', 'Nike ACG')).toEqual([]);
    // …or with the typo the service forgives when it matches brand_name ("Addidas" is Adidas there).
    expect(checkHashtags('tee #adidas', 'Addidas')).toEqual([]);
    expect(codes(checkHashtags('tee #adidas', 'Nikey'))).toEqual(['invalid_description']);
    expect(KNOWN_BRANDS).toContain('Stone Island');
  });
  it('PUT requires attributes and quantity ≥ 1', () => {
    expect(fields(checkProductWrite('put', listing()))).toEqual(['attributes']);
    expect(checkProductWrite('put', listing({ attributes: {} }))).toEqual([]);
  });
  it('PATCH: quantity 0 sells out, negative fails, prices checked against the current price', () => {
    expect(checkProductPatch({ quantity: 0 })).toEqual([]);
    expect(codes(checkProductPatch({ quantity: -1 }))).toEqual(['validation']);
    expect(fields(checkProductPatch({ discount_price: '30.00' }, { price_amount: '20.00' }))).toEqual([
      'discount_price',
    ]);
    expect(
      checkProductPatch({ discount_price: '30.00', price_amount: '40.00' }, { price_amount: '20.00' }),
    ).toEqual([]);
    expect(codes(checkProductPatch({}))).toEqual(['validation']);
  });
  it('never throws and always names a field, whatever the body', () => {
    fc.assert(
      fc.property(fc.anything(), (body) => {
        for (const v of [
          ...checkProductWrite('create', body),
          ...checkProductPatch(body),
          ...checkOffer(body),
          ...checkRefund(body),
        ]) {
          if (!v.field || !v.rule || !v.code || !v.message) return false;
        }
        return true;
      }),
    );
  });
  it('price rules hold for any price: a valid auto-negotiate price is never rejected', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 10_000_000 }),
        fc.integer({ min: 0, max: 100 }),
        (price, pct) => {
          const max = Math.floor((price * (100 - 5)) / 100);
          const ok = Math.floor((max * pct) / 100);
          const good = checkProductWrite(
            'create',
            listing({ price_amount: formatMoney(price), auto_negotiate_offer_price: formatMoney(ok) }),
          );
          const bad = checkProductWrite(
            'create',
            listing({ price_amount: formatMoney(price), auto_negotiate_offer_price: formatMoney(max + 1) }),
          );
          return good.length === 0 && bad.some((v) => v.field === 'auto_negotiate_offer_price');
        },
      ),
    );
  });
});

describe('named validators and brand names', () => {
  it('checkProductCreate / checkProductPut are the create and PUT checks', () => {
    expect(checkProductCreate(listing())).toEqual([]);
    expect(fields(checkProductPut(listing()))).toEqual(['attributes']);
    expect(checkProductPut(listing({ attributes: {} }))).toEqual([]);
    expect(codes(checkProductPut(listing({ attributes: {}, quantity: 0 })))).toEqual(['validation']);
  });
  it('countHashtags returns the tags found', () => {
    expect(countHashtags('no tags here')).toEqual([]);
    expect(countHashtags('#Nike tee #y2k, #90s-style')).toEqual(['Nike', 'y2k', '90s-style']);
  });
  it('an empty or punctuation-only brand_name → invalid_brand (SPEC GAP)', () => {
    expect(codes(checkProductCreate(listing({ brand_name: '' })))).toEqual(['invalid_brand']);
    const v = checkProductCreate(listing({ brand_name: '?!', description: 'plain tee' }));
    expect(v).toEqual([expect.objectContaining({ field: 'brand_name', code: 'invalid_brand' })]);
    expect(checkProductCreate(listing({ brand_name: 'unbranded', description: 'plain tee' }))).toEqual([]);
  });
  it('department missing → invalid_department; SKU of 50 is fine, 51 is not', () => {
    expect(codes(checkProductCreate(listing({ department: undefined })))).toEqual(['invalid_department']);
    expect(checkProductCreate(listing({ sku: 'x'.repeat(50) }))).toEqual([]);
    expect(checkProductCreate(listing({ sku: 'x'.repeat(51) }))[0]).toMatchObject({
      field: 'sku',
      code: 'validation',
      rule: 'at most 50 characters',
    });
  });
  it('property: too_many_pictures exactly when there are more than 8', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), (n) => {
        const pictures = Array.from({ length: n }, (_, i) => ({ url: `https://img.example/${i}.jpg` }));
        const got = codes(checkProductCreate(listing({ pictures })));
        return n > MAX_PICTURES ? got.includes('too_many_pictures') : got.length === 0;
      }),
    );
  });
  it('property: invalid_description exactly when there are more than 5 hashtags of the brand', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), fc.constantFrom('#nike', '#NIKE', '#Nike'), (n, tag) => {
        const description = `Tee ${Array.from({ length: n }, () => tag).join(' ')}`;
        expect(countHashtags(description)).toHaveLength(n);
        const got = codes(checkProductCreate(listing({ description })));
        return n > MAX_HASHTAGS ? got.join() === 'invalid_description' : got.length === 0;
      }),
    );
  });
  it('property: discount and auto-send prices pass exactly when below the price', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 1_000_000 }),
        fc.integer({ min: 0, max: 2_000_000 }),
        (price, other) => {
          const v = checkProductCreate(
            listing({
              price_amount: formatMoney(price),
              discount_price: formatMoney(other),
              auto_send_offer_price: formatMoney(other),
            }),
          );
          return other < price ? v.length === 0 : fields(v).join() === 'discount_price,auto_send_offer_price';
        },
      ),
    );
  });
});

describe('offer rules (8, 9)', () => {
  const product = { price_amount: '20.00', price_currency: 'GBP' };
  const offer = { offer_recipient_id: 7, offer_value: 19, offer_currency: 'GBP' };
  it('accepts an offer 5% below in the product currency', () => {
    expect(checkOffer(offer, product)).toEqual([]);
  });
  it('rule 8: currency and minimum percentage', () => {
    expect(fields(checkOffer({ ...offer, offer_currency: 'USD' }, product))).toEqual(['offer_currency']);
    expect(codes(checkOffer({ ...offer, offer_value: 19.01 }, product))).toEqual(['validation']);
  });
  it('rule 9: size required for multi-size, forbidden otherwise', () => {
    expect(fields(checkOffer(offer, { ...product, sizeIds: [1, 2] }))).toEqual(['size_id']);
    expect(checkOffer({ ...offer, size_id: 2 }, { ...product, sizeIds: [1, 2] })).toEqual([]);
    expect(fields(checkOffer({ ...offer, size_id: 3 }, { ...product, sizeIds: [1, 2] }))).toEqual([
      'size_id',
    ]);
    expect(fields(checkOffer({ ...offer, size_id: 1 }, { ...product, sizeIds: [1] }))).toEqual(['size_id']);
  });
  it('rule 9 with hasSizes / multiSize flags', () => {
    const multi = { ...product, hasSizes: true, multiSize: true };
    expect(checkOffer(offer, multi)[0]).toMatchObject({
      field: 'size_id',
      rule: expect.stringMatching(/required/),
    });
    expect(checkOffer({ ...offer, size_id: 9 }, multi)).toEqual([]); // sizes unknown: any id
    expect(fields(checkOffer({ ...offer, size_id: 9 }, { ...multi, sizeIds: [1, 2] }))).toEqual(['size_id']);
    const single = { ...product, hasSizes: true, multiSize: false, sizeIds: [4] };
    expect(checkOffer(offer, single)).toEqual([]);
    expect(checkOffer({ ...offer, size_id: 4 }, single)[0]?.message).toMatch(/single size/);
    const none = { ...product, hasSizes: false, multiSize: false };
    expect(checkOffer(offer, none)).toEqual([]);
    expect(checkOffer({ ...offer, size_id: 4 }, none)[0]?.message).toMatch(/no sizes/);
  });
  it('schema failures name the field; no product → only the stateless checks', () => {
    expect(fields(checkOffer({ offer_value: 10, offer_currency: 'GBP' }))).toEqual(['offer_recipient_id']);
    expect(checkOffer({ ...offer, offer_currency: 'USD', offer_value: 1000 })).toEqual([]);
    expect(fields(checkOffer({ ...offer, offer_value: 10.005 }))).toEqual(['offer_value']);
  });
  it('property: an offer passes exactly when at least the minimum percentage below the price', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 1_000_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 50 }),
        (price, value, pct) => {
          const v = checkOffer(
            { ...offer, offer_value: value / 100 },
            { price_amount: formatMoney(price), price_currency: 'GBP' },
            { minPercentOff: pct },
          );
          const ok = value * 100 <= price * (100 - pct);
          return ok ? v.length === 0 : fields(v).join() === 'offer_value';
        },
      ),
    );
    expect(DEFAULT_MIN_PERCENT_OFF).toBe(5);
  });
});

describe('refund rule (10)', () => {
  const order = { itemPriceCents: 2000, shippingPriceCents: 350 };
  it('needs a positive amount, within price and shipping', () => {
    expect(checkRefund({ items_refund_amount: '20.00', shipping_refund_amount: '3.50' }, order)).toEqual([]);
    expect(fields(checkRefund({}, order))).toEqual(['items_refund_amount']);
    expect(fields(checkRefund({ items_refund_amount: '0.00' }, order))).toEqual(['items_refund_amount']);
    expect(fields(checkRefund({ items_refund_amount: '20.01' }, order))).toEqual(['items_refund_amount']);
    expect(fields(checkRefund({ shipping_refund_amount: '3.51' }, order))).toEqual([
      'shipping_refund_amount',
    ]);
    expect(codes(checkRefund({ items_refund_amount: '-1' }, order))).toEqual(['validation']);
    expect(codes(checkRefund({ items_refund_amount: 'ten' }, order))).toEqual(['validation']); // well-formed JSON, malformed money: 422
    expect(codes(checkRefund({ items_refund_amount: 10 }, order))).toEqual(['bad-request']); // wrong JSON type
  });
  it('without the order’s facts only the stateless checks run: no limit is guessed', () => {
    expect(checkRefund({ items_refund_amount: '99999.99', shipping_refund_amount: '999.99' })).toEqual([]);
    expect(fields(checkRefund({}))).toEqual(['items_refund_amount']);
    expect(fields(checkRefund({ items_refund_amount: '5.00', shipping_refund_amount: '0.00' }))).toEqual([
      'shipping_refund_amount',
    ]);
    expect(codes(checkRefund({ shipping_refund_amount: '-0.50' }))).toEqual(['validation']);
  });
});
