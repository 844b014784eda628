// The Marketplace node, one operation after another, through a mocked IExecuteFunctions whose HTTP
// helper reaches a real simulator: the requests the node makes, what it returns, and its errors.
import type { NodeApiError } from 'n8n-workflow';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { Marketplace } from '../nodes/Marketplace/Marketplace.node.ts';
import { jsonOf, mockExecute, type MockOptions } from './helpers/mockExecute.mts';
import { nikeTeeListing, teeInspiration } from './helpers/parameters.mts';

let sim: RunningSimulator;
let opts: MockOptions;
const KEY = 'pak_demo_selling_kit';
const node = new Marketplace();

beforeAll(async () => {
  sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
  opts = { baseUrl: sim.url, apiKey: KEY };
});
afterAll(() => sim.close());

const run = (items: Record<string, unknown>[], extra: Partial<MockOptions> = {}) => {
  const m = mockExecute(items, { ...opts, ...extra });
  return { m, out: node.execute.call(m.fns) };
};

const listing = (sku: string) => ({
  resource: 'products',
  operation: 'create',
  newSku: sku,
  description: 'Vintage Nike tee, boxy fit #nike',
  priceAmount: '25.00',
  priceCurrency: 'GBP',
  quantity: 2,
  pictureUrls: 'https://img.example/a.png, https://img.example/b.png',
  ...nikeTeeListing,
  additionalFields: '{"colour": ["black"]}',
});
const bySku = (sku: string, extra: Record<string, unknown> = {}) => ({ productKey: 'sku', sku, ...extra });
const seller = () => sim.world.sellers.get(1001)!;
const product = (sku: string) => seller().products.get(seller().skus.get(sku)!)!;

describe('products', () => {
  it('create sends one POST with the wire body and returns the id and slug, paired with its item', async () => {
    const { m, out } = run([listing('N8N-1'), listing('N8N-2')]);
    const result = await out;
    expect(jsonOf(result)).toEqual([
      expect.objectContaining({ product_id: expect.any(Number), slug: expect.any(String) }),
      expect.objectContaining({ product_id: expect.any(Number) }),
    ]);
    expect(result[0]!.map((r) => r.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
    expect(m.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      'POST /api/v1/products/',
      'POST /api/v1/products/',
    ]);
    // n8n's credential authenticates: the client's own Authorization placeholder never leaves.
    expect(m.requests.every((r) => !('authorization' in r.headers))).toBe(true);
    expect(product('N8N-1')).toMatchObject({ sku: 'N8N-1', state: 'selling' });
  });

  it('get by SKU, product ID and slug return the same listing', async () => {
    const p = product('N8N-1');
    const { out } = run([
      { resource: 'products', operation: 'get', ...bySku('N8N-1') },
      { resource: 'products', operation: 'get', productKey: 'productId', productId: p.productId },
      { resource: 'products', operation: 'get', productKey: 'slug', slug: p.slug },
    ]);
    const got = jsonOf(await out);
    expect(got.map((g) => g.sku)).toEqual(['N8N-1', 'N8N-1', 'N8N-1']);
  });

  it('patch, boost, unboost and restock change only what they name', async () => {
    const { m, out } = run([
      {
        resource: 'products',
        operation: 'patch',
        ...bySku('N8N-1'),
        updateFields: { price_amount: '22.00', description: '' },
        additionalFields: '{}',
      },
      { resource: 'products', operation: 'boost', ...bySku('N8N-1') },
      { resource: 'products', operation: 'restock', ...bySku('N8N-1'), quantity: 5 },
    ]);
    expect(jsonOf(await out)).toEqual([
      { sku: 'N8N-1', patched: ['price_amount'] },
      { sku: 'N8N-1', boosted: true },
      { sku: 'N8N-1', quantity: 5 },
    ]);
    expect(m.requests.map((r) => r.method)).toEqual(['PATCH', 'PATCH', 'PATCH']);
    expect(product('N8N-1')).toMatchObject({ quantity: 5 });
    expect(
      jsonOf(await run([{ resource: 'products', operation: 'get', ...bySku('N8N-1') }]).out)[0],
    ).toMatchObject({
      price_amount: '22.00',
      is_boosted: true,
    });
    await run([{ resource: 'products', operation: 'unboost', ...bySku('N8N-1') }]).out;
    expect(
      jsonOf(await run([{ resource: 'products', operation: 'get', ...bySku('N8N-1') }]).out)[0],
    ).toMatchObject({ is_boosted: false });
  });

  it('full update by SKU replaces the listing (PUT)', async () => {
    const { m, out } = run([
      { ...listing('N8N-2'), operation: 'update', ...bySku('N8N-2'), priceAmount: '30.00' },
    ]);
    await out;
    expect(m.requests[0]).toMatchObject({ method: 'PUT', url: expect.stringContaining('/by-sku/N8N-2/') });
    expect(
      jsonOf(await run([{ resource: 'products', operation: 'get', ...bySku('N8N-2') }]).out)[0],
    ).toMatchObject({ price_amount: '30.00' });
  });

  it('full update by product ID and by slug: PUT on their paths', async () => {
    const p = product('N8N-2');
    const { m, out } = run([
      {
        ...listing('N8N-2'),
        operation: 'update',
        productKey: 'productId',
        productId: p.productId,
        priceAmount: '31.00',
      },
      { ...listing('N8N-2'), operation: 'update', productKey: 'slug', slug: p.slug, priceAmount: '32.00' },
    ]);
    expect((await out)[0]!.map((r) => r.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
    expect(m.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      `PUT /api/v1/products/by-product-id/${p.productId}/`,
      `PUT /api/v1/products/by-slug/${p.slug}/`,
    ]);
    expect(product('N8N-2').fields).toMatchObject({ price_amount: '32.00' });
  });

  it('get many: a limit, or every page (and it ends)', async () => {
    const limited = jsonOf(
      await run([{ resource: 'products', operation: 'getAll', returnAll: false, limit: 2, filters: {} }]).out,
    );
    expect(limited).toHaveLength(2);
    const all = jsonOf(
      await run([
        {
          resource: 'products',
          operation: 'getAll',
          returnAll: true,
          filters: { state: 'all', sort_by: 'id_asc' },
        },
      ]).out,
    );
    expect(all.length).toBe([...seller().products.values()].filter((p) => p.state !== 'removed').length);
    expect(all.map((p) => p.id ?? p.product_id)).toEqual(
      [...all.map((p) => p.id ?? p.product_id)].sort((a, b) => Number(a) - Number(b)),
    );
  });

  it('mark as sold, then delete with the active-offers flag', async () => {
    await run([{ resource: 'products', operation: 'markSold', ...bySku('N8N-2') }]).out;
    expect(product('N8N-2').state).toBe('sold');
    const { m, out } = run([
      { resource: 'products', operation: 'delete', ...bySku('N8N-2'), failIfActiveOffers: true },
    ]);
    expect(jsonOf(await out)).toEqual([{ sku: 'N8N-2', deleted: true }]);
    expect(m.requests[0]!.url).toContain('fail_if_active_offers=true');
    expect(product('N8N-2').state).toBe('removed');
  });
});

describe('errors', () => {
  it('a local rule: NodeOperationError naming the field and rule, and no request', async () => {
    const { m, out } = run([{ ...listing('N8N-BAD'), quantity: 0 }]);
    const error = await out.catch((e: unknown) => e);
    expect((error as Error).constructor.name).toBe('NodeOperationError');
    expect((error as Error).message).toMatch(/quantity/);
    expect(m.requests).toHaveLength(0);
  });

  it('hashtags as sellers write them are sent; a tag of another brand is refused locally', async () => {
    const tagged = { ...listing('N8N-TAGS'), description: 'Vintage cotton tee #vintage #y2k #nike' };
    const { m, out } = run([tagged]);
    expect(jsonOf(await out)).toEqual([expect.objectContaining({ product_id: expect.any(Number) })]);
    expect(m.requests).toHaveLength(1);
    expect(product('N8N-TAGS').state).toBe('selling');

    const other = run([{ ...listing('N8N-TAGS-2'), description: 'Tee #vintage #adidas' }]);
    const error = await other.out.catch((e: unknown) => e);
    expect((error as Error).constructor.name).toBe('NodeOperationError');
    expect((error as Error).message).toMatch(/#adidas/);
    expect(other.m.requests).toHaveLength(0);
  });

  it('an API error: NodeApiError with the code and the error id', async () => {
    const error = await run([{ resource: 'products', operation: 'get', ...bySku('NO-SUCH-SKU') }]).out.catch(
      (e: unknown) => e,
    );
    expect((error as Error).constructor.name).toBe('NodeApiError');
    expect((error as NodeApiError).message).toMatch(/^product_not_found/);
    expect((error as NodeApiError).description).toMatch(/Error id [0-9a-f-]{36}/);
    expect((error as NodeApiError).httpCode).toBe('404');
  });

  it('continue on fail: the failed item carries code and error id, the others go on, all paired', async () => {
    const { out } = run(
      [
        { resource: 'products', operation: 'get', ...bySku('NO-SUCH-SKU') },
        { resource: 'shop', operation: 'get' },
        { ...listing('N8N-BAD'), quantity: 0 },
      ],
      { continueOnFail: true },
    );
    const result = await out;
    expect(result[0]!.map((r) => r.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
    const [missing, shop, invalid] = jsonOf(result);
    expect(missing).toMatchObject({ code: 'product_not_found', errorId: expect.any(String), status: 404 });
    expect(shop).toMatchObject({ id: 1001 });
    expect(invalid).toMatchObject({
      code: 'validation',
      violations: [expect.objectContaining({ field: 'quantity' })],
    });
  });

  it('a 429 is waited out (Retry-After, n8n sleep) and the call goes through', async () => {
    const started = Date.now();
    const { m, out } = run([{ resource: 'shop', operation: 'get' }], {
      intercept: (call) =>
        call === 1
          ? {
              statusCode: 429,
              headers: { 'retry-after': '1', 'content-type': 'application/json' },
              body: JSON.stringify({
                message: 'slow down',
                code: 'too_many_requests',
                group: 'general',
                retry_after_ms: 400,
              }),
            }
          : undefined,
    });
    expect(jsonOf(await out)[0]).toMatchObject({ id: 1001 });
    expect(m.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  });

  it('an unknown Product ID is refused locally', async () => {
    const error = await run([
      { resource: 'products', operation: 'get', productKey: 'productId', productId: -3 },
    ]).out.catch((e: unknown) => e);
    expect((error as Error).constructor.name).toBe('NodeOperationError');
    expect((error as Error).message).toMatch(/Product ID/);
  });
});

describe('offers, orders, refunds, shipping, shop, insights, pricing', () => {
  it('offers: a manual offer to a buyer who liked the item; automatic offers and a discount', async () => {
    await run([listing('N8N-OFFER')]).out;
    const like = await fetch(`${sim.url}/api/v1/products/by-sku/N8N-OFFER/like/?liker_id=4242`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(like.status).toBeLessThan(300);
    const { out } = run([
      {
        resource: 'offers',
        operation: 'send',
        ...bySku('N8N-OFFER'),
        recipientId: 4242,
        offerValue: 20,
        offerCurrency: 'GBP',
        sizeId: 0,
      },
      {
        resource: 'offers',
        operation: 'setAutomatic',
        ...bySku('N8N-OFFER'),
        prices: {
          auto_send_offer_price: '21.00',
          auto_negotiate_offer_price: '22.00',
          discount_price: '24.00',
        },
      },
    ]);
    expect(jsonOf(await out)).toEqual([
      expect.objectContaining({ sent: true, offer_recipient_id: 4242 }),
      expect.objectContaining({ auto_send_offer_price: '21.00', discount_price: '24.00' }),
    ]);
    expect(seller().offers.some((o) => o.recipientId === 4242)).toBe(true);
    const empty = await run([
      { resource: 'offers', operation: 'setAutomatic', ...bySku('N8N-OFFER'), prices: {} },
    ]).out.catch((e: unknown) => e);
    expect((empty as Error).message).toMatch(/Prices/);
  });

  it('orders: list, get, mark a parcel shipped; refunds: create', async () => {
    await run([listing('N8N-SALE')]).out;
    const purchase = await fetch(`${sim.url}/api/v1/products/by-sku/N8N-SALE/purchase/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(purchase.status).toBeLessThan(300);
    const orders = jsonOf(
      await run([{ resource: 'orders', operation: 'getAll', returnAll: true, filters: {} }]).out,
    );
    const order = orders.find((o) => JSON.stringify(o).includes('N8N-SALE'))!;
    expect(order).toBeDefined();
    const purchaseId = String(order.purchase_id);
    const lineItems = order.line_items as { parcel_id: string }[];
    const { out } = run([
      { resource: 'orders', operation: 'get', purchaseId },
      {
        resource: 'orders',
        operation: 'markShipped',
        purchaseId,
        parcelId: lineItems[0]!.parcel_id,
        trackingNumber: 'GB1,GB2',
        carrier: 'Royal Mail',
      },
      {
        resource: 'refunds',
        operation: 'create',
        purchaseId,
        refund: { items_refund_amount: '5.00', send_buyer_message: 'Sorry' },
      },
    ]);
    const [got, shipped, refunded] = jsonOf(await out);
    expect(got).toMatchObject({ purchase_id: purchaseId });
    expect(shipped).toMatchObject({ shipped: true, carrier: 'Royal Mail' });
    expect(refunded).toMatchObject({ refunded: true, items_refund_amount: '5.00' });
    const after = jsonOf(await run([{ resource: 'orders', operation: 'get', purchaseId }]).out)[0]!;
    expect(after.status).toBe('SHIPPED');
    expect(JSON.stringify(after.refund_summary)).toContain('5.00');
  });

  it('shipping addresses and providers, shop, insights, pricing', async () => {
    const addresses = jsonOf(await run([{ resource: 'shipping', operation: 'listAddresses' }]).out);
    expect(addresses.length).toBeGreaterThan(0);
    const { out } = run([
      { resource: 'shipping', operation: 'listProviders', addressId: addresses[0]!.id },
      { resource: 'shop', operation: 'get' },
      { resource: 'insights', operation: 'get', scope: 'shop' },
      { resource: 'insights', operation: 'get', scope: 'product', ...bySku('N8N-1') },
      teeInspiration('GBP'),
    ]);
    const result = await out;
    const json = jsonOf(result);
    expect(json.some((j) => 'parcel_sizes' in j)).toBe(true);
    expect(json).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 1001 }),
        expect.objectContaining({ price_prediction: expect.any(Object) }),
      ]),
    );
    expect(new Set(result[0]!.map((r) => (r.pairedItem as { item: number }).item))).toEqual(
      new Set([0, 1, 2, 3, 4]),
    );
  });
});
