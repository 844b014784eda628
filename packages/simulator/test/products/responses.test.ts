// Contract: every products.* and offers.* operation of the core table answers 200 with a body that
// parses with the operation's response schema (or an empty body where the table declares none), and
// its errors parse with the service's error envelope.
import { ErrorEnvelope, OPERATIONS, type Operation } from '@selling-kit/api-client/core';
import { createProduct, listing, putBody, codeOf, testShopPerFile } from '../fixtures.ts';

const shop = testShopPerFile();

const OPS = OPERATIONS.filter((op) => op.id.startsWith('products.') || op.id.startsWith('offers.'));

const BODIES: Record<string, (sku: string) => unknown> = {
  create: (sku) => listing({ sku }),
  update: () => putBody({ price_amount: '22.00' }),
  patch: () => ({ price_amount: '21.00', discount_price: '19.50' }),
  submit: () => ({ offer_recipient_id: 77, offer_value: 15, offer_currency: 'GBP' }),
};

function verbOf(op: Operation): string {
  return op.id.split('.')[1]!.replace(/By(Sku|ProductId|Slug)$/, '');
}

let n = 0;
async function pathFor(op: Operation): Promise<{ path: string; sku: string }> {
  const sku = `RESP-${++n}`;
  if (op.id === 'products.create' || op.id === 'products.list') return { path: op.path, sku };
  const ids = await createProduct(shop, { sku });
  shop.seller.products.get(ids.product_id)!.likes.add(77);
  const path = op.path
    .replace('{sku}', encodeURIComponent(sku))
    .replace('{productId}', String(ids.product_id))
    .replace('{slug}', ids.slug);
  return { path, sku };
}

describe('response bodies match the core schemas', () => {
  it('covers every products.* and offers.* operation of the table', () => {
    expect(OPS.map((o) => o.id).sort()).toEqual(
      [
        'products.create',
        'products.list',
        ...['get', 'update', 'patch', 'delete', 'markAsSold'].flatMap((v) =>
          ['BySku', 'ByProductId', 'BySlug'].map((k) => `products.${v}${k}`),
        ),
        ...['simulatePurchase', 'simulateLike'].flatMap((v) =>
          ['BySku', 'ByProductId'].map((k) => `products.${v}${k}`),
        ),
        ...['BySku', 'ByProductId', 'BySlug'].map((k) => `offers.submit${k}`),
      ].sort(),
    );
  });

  it.each(OPS.map((op) => [op.id, op] as const))('%s → 200 with its response schema', async (_id, op) => {
    const { path, sku } = await pathFor(op);
    const body = BODIES[verbOf(op)]?.(sku);
    if (op.body) expect(op.body.safeParse(body).success).toBe(true); // the request itself is valid
    const res = await shop.call(op.method, path, body);
    expect([op.id, res.status]).toEqual([op.id, 200]);
    if (op.response) {
      const parsed = op.response.safeParse(res.body);
      expect(parsed.error?.issues ?? []).toEqual([]);
    } else {
      expect(res.text).toBe('');
    }
  });

  it('errors use the envelope { id, errors: [{ code, message }] }', async () => {
    const failures = [
      await shop.call('GET', '/api/v1/products/by-sku/NOPE/'),
      await shop.call('POST', '/api/v1/products/', listing({ quantity: 0 })),
      await shop.call('GET', '/api/v1/products/?limit=500'),
      await shop.call('POST', '/api/v1/products/by-sku/NOPE/offer/', BODIES.submit!('x')),
    ];
    expect(failures.map(codeOf)).toEqual([
      'product_not_found',
      'validation',
      'bad-request',
      'product_not_found',
    ]);
    for (const res of failures) {
      expect(ErrorEnvelope.safeParse(res.body).success).toBe(true);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
    }
  });
});
