// Version 2 of the Marketplace node as a no-code user meets it: the product picker (its modes, their
// validation, its search), full records out (URL, status as a word), Mark as Sold's visible no-op,
// Get Many's Simplify, the canvas subtitle and the dynamic options — descriptions checked as n8n reads
// them, operations and look-ups run through mocked n8n contexts over HTTP to a real simulator.
import type { INodeProperties, INodePropertyMode, INodePropertyOptions } from 'n8n-workflow';
import { ProductStatus } from '@selling-kit/api-client/core';
import { DEMO, startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { Marketplace } from '../nodes/Marketplace/Marketplace.node.ts';
import {
  PRODUCT_ID_PATTERN,
  PRODUCT_URL_PATTERN,
  parseProductLocator,
} from '../nodes/Marketplace/actions/common.ts';
import { statusWord } from '../nodes/Marketplace/actions/products/output.ts';
import { jsonOf, mockExecute, type MockOptions } from './helpers/mockExecute.mts';
import { mockLoadOptions } from './helpers/mockLoadOptions.mts';
import { nikeTeeListing, teeInspiration } from './helpers/parameters.mts';

const node = new Marketplace();
const { description } = node;

/** Evaluates the subtitle the way n8n does for this plain expression (test-only). */
function subtitleOf(parameters: Record<string, unknown>): unknown {
  const match = /^=\{\{([\s\S]*)\}\}$/.exec(String(description.subtitle));
  if (!match) throw new Error(`subtitle is not an expression: ${description.subtitle}`);
  return new Function('$parameter', `return (${match[1]});`)(parameters);
}

const shownFor = (p: INodeProperties, resource: string, operation: string) =>
  p.displayOptions?.show?.resource?.includes(resource) &&
  p.displayOptions?.show?.operation?.includes(operation);
const isV2Only = (p: INodeProperties) =>
  JSON.stringify(p.displayOptions?.show?.['@version']) === JSON.stringify([{ _cnd: { gte: 2 } }]);
const isV3Only = (p: INodeProperties) =>
  JSON.stringify(p.displayOptions?.show?.['@version']) === JSON.stringify([{ _cnd: { gte: 3 } }]);
const isV1Only = (p: INodeProperties) =>
  JSON.stringify(p.displayOptions?.show?.['@version']) === JSON.stringify([1]);

const PRODUCT_SCOPED: [string, string][] = [
  ['products', 'get'],
  ['products', 'update'],
  ['products', 'replace'],
  ['products', 'patch'],
  ['products', 'delete'],
  ['products', 'markSold'],
  ['products', 'boost'],
  ['products', 'unboost'],
  ['products', 'restock'],
  ['offers', 'send'],
  ['offers', 'setAutomatic'],
  ['insights', 'get'],
];

describe('the product picker (description)', () => {
  it('is version 3 by default; versions 1 and 2 stay loadable', () => {
    expect(description.version).toEqual([1, 2, 3]);
    // No defaultVersion (so n8n adds its Custom API Call): the editor then takes the last version.
    expect(description.defaultVersion).toBeUndefined();
  });

  it('every product operation uses the one picker in v2 and keeps its v1 key fields under v1', () => {
    for (const [resource, operation] of PRODUCT_SCOPED) {
      const fields = description.properties.filter((p) => shownFor(p, resource, operation));
      // Update's version-3 form has its own copy of the picker (update-v3.test.mts).
      const picker = fields.filter((p) => p.name === 'product' && isV2Only(p));
      expect([resource, operation, picker.length]).toEqual([resource, operation, 1]);
      expect(picker[0]).toMatchObject({ type: 'resourceLocator', required: true, displayName: 'Product' });
      expect(isV2Only(picker[0]!)).toBe(true);
      for (const name of ['productKey', 'sku', 'productId', 'slug']) {
        const old = fields.find((p) => p.name === name)!;
        expect([resource, operation, name, isV1Only(old)]).toEqual([resource, operation, name, true]);
      }
    }
    // Operations without a product have no picker.
    for (const [resource, operation] of [
      ['products', 'getAll'],
      ['shop', 'get'],
      ['orders', 'get'],
    ] as const)
      expect(
        description.properties.some((p) => p.name === 'product' && shownFor(p, resource, operation)),
      ).toBe(false);
  });

  it('offers four modes: From List (searchable, our search method), By SKU, By ID, By URL', () => {
    const picker = description.properties.find((p) => p.name === 'product')!;
    const modes = picker.modes as INodePropertyMode[];
    expect(modes.map((m) => [m.name, m.displayName, m.type])).toEqual([
      ['list', 'From List', 'list'],
      ['sku', 'By SKU', 'string'],
      ['id', 'By ID', 'string'],
      ['url', 'By URL', 'string'],
    ]);
    expect(modes[0]!.typeOptions).toMatchObject({ searchListMethod: 'searchProducts', searchable: true });
    expect(typeof node.methods.listSearch.searchProducts).toBe('function');
    expect(picker.default).toEqual({ mode: 'list', value: '' });
  });

  it('By ID and By URL validate with a regex and a message; By URL extracts the slug', () => {
    const modes = description.properties.find((p) => p.name === 'product')!.modes as INodePropertyMode[];
    const rule = (name: string) => {
      const v = modes.find((m) => m.name === name)!.validation![0] as {
        type: string;
        properties: { regex: string; errorMessage: string };
      };
      expect(v.type).toBe('regex');
      return { regex: new RegExp(v.properties.regex), message: v.properties.errorMessage };
    };
    const id = rule('id');
    expect(id.regex.source).toBe(new RegExp(PRODUCT_ID_PATTERN).source);
    for (const ok of ['7033001', '1', ' 42 ']) expect(id.regex.test(ok)).toBe(true);
    for (const bad of ['abc', '0', '-3', '12.5', '', 'https://www.depop.com/products/x/'])
      expect(id.regex.test(bad)).toBe(false);
    expect(id.message).toMatch(/whole number above 0/);

    const url = rule('url');
    expect(url.regex.source).toBe(new RegExp(PRODUCT_URL_PATTERN).source);
    const slugOf = (v: string) => url.regex.exec(v)?.[1];
    expect(slugOf('https://www.depop.com/products/vintage-nike-t-shirt-7033001/')).toBe(
      'vintage-nike-t-shirt-7033001',
    );
    expect(slugOf('www.depop.com/products/vintage-tee-5')).toBe('vintage-tee-5');
    expect(slugOf('https://depop.com/products/vintage-tee-5/?utm_source=x#top')).toBe('vintage-tee-5');
    expect(slugOf('vintage-tee-5')).toBe('vintage-tee-5');
    for (const bad of [
      'https://example.com/products/vintage-tee-5/',
      'https://www.depop.com/shop/demo/',
      'not a slug!',
      '',
    ])
      expect(slugOf(bad)).toBeUndefined();
    expect(url.message).toMatch(/https:\/\/www\.depop\.com\/products\/<slug>\//);
    const extract = modes.find((m) => m.name === 'url')!.extractValue as { type: string; regex: string };
    expect(extract).toEqual({ type: 'regex', regex: PRODUCT_URL_PATTERN });
  });

  it('reads every mode into a product reference, and names the mode and rule when a value is wrong', () => {
    expect(parseProductLocator({ __rl: true, mode: 'list', value: '17' })).toEqual({ productId: 17 });
    expect(parseProductLocator({ __rl: true, mode: 'sku', value: ' TEE-1 ' })).toEqual({ sku: 'TEE-1' });
    expect(parseProductLocator({ __rl: true, mode: 'id', value: '42' })).toEqual({ productId: 42 });
    expect(
      parseProductLocator({ __rl: true, mode: 'url', value: 'https://www.depop.com/products/tee-9/' }),
    ).toEqual({ slug: 'tee-9' });
    expect(parseProductLocator({ __rl: true, mode: 'id', value: 'abc' })).toMatch(
      /^Product \(By ID\): "abc" — a product ID is a whole number above 0/,
    );
    expect(parseProductLocator({ __rl: true, mode: 'url', value: 'https://example.com/x' })).toMatch(
      /^Product \(By URL\): "https:\/\/example.com\/x" — not a product URL or slug/,
    );
    expect(parseProductLocator({ __rl: true, mode: 'list', value: '' })).toMatch(
      /^Product: choose a product/,
    );
  });

  it('the canvas subtitle reads "Mark as Sold: Product", with display names for every operation', () => {
    expect(subtitleOf({ resource: 'products', operation: 'markSold' })).toBe('Mark as Sold: Product');
    expect(subtitleOf({ resource: 'orders', operation: 'markShipped' })).toBe('Mark Parcel Shipped: Order');
    for (const field of description.properties.filter((p) => p.name === 'operation'))
      for (const resource of field.displayOptions!.show!.resource as string[])
        for (const option of field.options as INodePropertyOptions[])
          expect(subtitleOf({ resource, operation: option.value })).toMatch(/^[A-Z][^:]*: [A-Z]\w+$/);
  });

  it('Get Many has a Simplify toggle in v2 only (n8n wording, on by default)', () => {
    // Version 3 has its own copy (its Simplify adds the main picture: update-v3.test.mts).
    const simplify = description.properties.filter((p) => p.name === 'simplify' && !isV3Only(p));
    expect(simplify).toHaveLength(1);
    expect(simplify[0]).toMatchObject({
      displayName: 'Simplify',
      type: 'boolean',
      default: true,
      description: 'Whether to return a simplified version of the response instead of the raw data',
    });
    expect(shownFor(simplify[0]!, 'products', 'getAll')).toBe(true);
    expect(simplify[0]!.displayOptions?.show?.['@version']).toEqual([2]);
  });

  it('dynamic options point at methods the node has; v1 keeps its plain fields', () => {
    const dynamic = description.properties.filter((p) => p.typeOptions?.loadOptionsMethod);
    expect(dynamic.map((p) => [p.name, p.typeOptions!.loadOptionsMethod]).sort()).toEqual(
      [
        ['addressId', 'getAddresses'],
        ['brandName', 'getBrands'],
        ['brandName', 'getBrands'],
        ['currency', 'getCurrencies'],
        ['offerCurrency', 'getCurrencies'],
        ['productType', 'getProductTypes'],
        ['productType', 'getProductTypes'],
        ['providerId', 'getShippingProviders'],
      ].sort(),
    );
    for (const p of dynamic) {
      expect(isV2Only(p) || ['brandName', 'productType'].includes(p.name)).toBe(true);
      expect(p.displayName).toMatch(/Name or ID$/);
      const methods: Record<string, unknown> = node.methods.loadOptions;
      expect(typeof methods[p.typeOptions!.loadOptionsMethod as string]).toBe('function');
    }
    for (const name of ['addressId', 'currency', 'offerCurrency'])
      expect(description.properties.filter((p) => p.name === name && isV1Only(p))).toHaveLength(1);
  });

  it("statuses read as words for every status of the core's ProductStatus", () => {
    const words = Object.fromEntries(ProductStatus.options.map((s) => [s, statusWord(s)]));
    // Every status, grouped by the word it reads as.
    const statusesOf: Record<string, string[]> = {
      'on sale': ['STATUS_ONSALE'],
      sold: ['STATUS_PURCHASED', 'STATUS_MARKED_AS_SOLD'],
      removed: [
        'STATUS_DELETED',
        'STATUS_DELETED_ONSALE',
        'STATUS_DELETED_PURCHASED',
        'STATUS_DELETED_MARKED_AS_SOLD',
      ],
      banned: [
        'STATUS_PRODUCT_BANNED_ONSALE',
        'STATUS_USER_BANNED_ONSALE',
        'STATUS_PRODUCT_BANNED_PURCHASED',
        'STATUS_USER_BANNED_PURCHASED',
      ],
    };
    expect(words).toEqual(
      Object.fromEntries(
        Object.entries(statusesOf).flatMap(([word, statuses]) => statuses.map((s) => [s, word])),
      ),
    );
    expect(statusWord('STATUS_SOMETHING_NEW')).toBe('something new');
  });
});

describe('version 2 against the simulator', () => {
  let sim: RunningSimulator;
  let opts: MockOptions;
  const seller = () => sim.world.sellers.get(DEMO.sellerId)!;
  const byKey = (sku: string) => seller().products.get(seller().skus.get(sku)!)!;
  const rl = (mode: string, value: string | number) => ({ __rl: true, mode, value: String(value) });

  const run = (items: Record<string, unknown>[], extra: Partial<MockOptions> = {}) => {
    const m = mockExecute(items, { ...opts, typeVersion: 2, ...extra });
    return { m, out: node.execute.call(m.fns) };
  };
  const BULK = 110;
  const lookup = (parameters: Record<string, unknown> = {}) => mockLoadOptions(parameters, opts);

  /** Creates a listing over the API (the picker's subject; create itself is another operation's test). */
  async function createListing(sku: string, description: string, price = '25.00') {
    const res = await fetch(`${sim.url}/api/v1/products/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sku,
        description,
        price_amount: price,
        price_currency: 'GBP',
        quantity: 1,
        pictures: [{ url: `${sim.url}/demo-assets/tee-black.png` }],
        department: 'menswear',
        product_type: 'tshirts',
        condition: 'used_good',
        brand_name: 'Nike',
        address: { country_code: 'GB' },
        national_shipping_cost: '3.50',
      }),
    });
    if (res.status >= 300) throw new Error(`create ${sku}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { product_id: number; slug: string };
  }

  beforeAll(async () => {
    sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
    opts = { baseUrl: sim.url, apiKey: DEMO.apiKey };
    await createListing('PICK-1', 'Faded band tee with cracked print');
    // Enough products for the search to need three pages (50 at a time; 100 when filtering).
    for (let n = 0; n < BULK; n++) await createListing(`BULK-${n}`, `Plain cotton tee number ${n}`, '12.00');
  });
  afterAll(() => sim.close());

  it('every picker mode finds the same product', async () => {
    const p = byKey('PICK-1');
    const { out, m } = run([
      { resource: 'products', operation: 'get', product: rl('list', p.productId) },
      { resource: 'products', operation: 'get', product: rl('sku', 'PICK-1') },
      { resource: 'products', operation: 'get', product: rl('id', p.productId) },
      {
        resource: 'products',
        operation: 'get',
        product: rl('url', `https://www.depop.com/products/${p.slug}/`),
      },
      { resource: 'products', operation: 'get', product: rl('url', p.slug) },
    ]);
    const got = jsonOf(await out);
    expect(got.map((g) => [g.product_id, g.sku])).toEqual(Array(5).fill([p.productId, 'PICK-1']));
    expect(m.requests.map((r) => new URL(r.url).pathname)).toEqual([
      `/api/v1/products/by-product-id/${p.productId}/`,
      '/api/v1/products/by-sku/PICK-1/',
      `/api/v1/products/by-product-id/${p.productId}/`,
      `/api/v1/products/by-slug/${p.slug}/`,
      `/api/v1/products/by-slug/${p.slug}/`,
    ]);
    expect(got[0]).toMatchObject({
      status: 'on sale',
      status_code: 'STATUS_ONSALE',
      url: `https://www.depop.com/products/${p.slug}/`,
      description: 'Faded band tee with cracked print',
    });
  });

  it('a bad ID or URL is the item’s error naming the picker mode, before any request', async () => {
    for (const [value, pattern] of [
      [rl('id', 'abc'), /^Product \(By ID\): "abc" — a product ID is a whole number above 0/],
      [rl('url', 'https://example.com/item/9'), /^Product \(By URL\): .* not a product URL or slug/],
      [rl('list', ''), /^Product: choose a product from the list/],
    ] as const) {
      const { out, m } = run([{ resource: 'products', operation: 'get', product: value }]);
      const error = (await out.catch((e: unknown) => e)) as Error;
      expect(error.constructor.name).toBe('NodeOperationError');
      expect(error.message).toMatch(pattern);
      expect(m.requests).toHaveLength(0);
    }
  });

  it('update and patch return the full product with its URL and status, read after the write', async () => {
    const p = byKey('PICK-1');
    const { out, m } = run([
      {
        resource: 'products',
        operation: 'patch',
        product: rl('url', `https://www.depop.com/products/${p.slug}/`),
        updateFields: { price_amount: '22.00' },
        additionalFields: '{}',
      },
    ]);
    const [patched] = jsonOf(await out);
    expect(m.requests.map((r) => r.method)).toEqual(['PATCH', 'GET']);
    expect(patched).toMatchObject({
      product_id: p.productId,
      sku: 'PICK-1',
      price_amount: '22.00',
      status: 'on sale',
      status_code: 'STATUS_ONSALE',
      url: `https://www.depop.com/products/${p.slug}/`,
      patched: ['price_amount'],
      pictures: [expect.objectContaining({ url: expect.any(String) })],
    });

    const updated = run([
      {
        resource: 'products',
        operation: 'update',
        product: rl('sku', 'PICK-1'),
        description: 'Faded band tee, cracked print, size M',
        priceAmount: '21.00',
        priceCurrency: 'GBP',
        quantity: 1,
        pictures: { picture: [{ url: `${sim.url}/demo-assets/tee-black.png` }] },
        ...nikeTeeListing,
      },
    ]);
    const [full] = jsonOf(await updated.out);
    expect(updated.m.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      'PUT /api/v1/products/by-sku/PICK-1/',
      `GET /api/v1/products/by-product-id/${p.productId}/`,
    ]);
    expect(full).toMatchObject({
      product_id: p.productId,
      description: 'Faded band tee, cracked print, size M',
      price_amount: '21.00',
      status: 'on sale',
      url: expect.stringMatching(/^https:\/\/www\.depop\.com\/products\/[\w-]+\/$/),
    });
    expect(full!.url).toBe(`https://www.depop.com/products/${byKey('PICK-1').slug}/`);
  });

  it('mark as sold says it changed the product; a second run is a visible no-op', async () => {
    const p = byKey('BULK-0');
    const first = run([{ resource: 'products', operation: 'markSold', product: rl('id', p.productId) }]);
    expect(jsonOf(await first.out)[0]).toMatchObject({
      product_id: p.productId,
      status: 'sold',
      status_code: 'STATUS_MARKED_AS_SOLD',
      previous_status: 'on sale',
      changed: true,
    });
    expect(first.m.requests.map((r) => r.method)).toEqual(['GET', 'POST', 'GET']);
    expect(byKey('BULK-0').state).toBe('sold');

    const again = run([{ resource: 'products', operation: 'markSold', product: rl('sku', 'BULK-0') }]);
    expect(jsonOf(await again.out)[0]).toMatchObject({
      product_id: p.productId,
      status: 'sold',
      previous_status: 'sold',
      changed: false,
    });
    expect(again.m.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('boost, restock and get many: Simplify gives a few fields, without it the full records', async () => {
    const boosted = jsonOf(
      await run([{ resource: 'products', operation: 'boost', product: rl('sku', 'BULK-1') }]).out,
    )[0]!;
    expect(boosted).toMatchObject({
      sku: 'BULK-1',
      is_boosted: true,
      status: 'on sale',
      url: expect.any(String),
    });
    const restocked = jsonOf(
      await run([{ resource: 'products', operation: 'restock', product: rl('sku', 'BULK-0'), quantity: 3 }])
        .out,
    )[0]!;
    expect(restocked).toMatchObject({ sku: 'BULK-0', quantity: 3, status: 'on sale' });

    const getMany = (limit: number, simplify: boolean) =>
      run([{ resource: 'products', operation: 'getAll', returnAll: false, limit, simplify, filters: {} }])
        .out;
    const simple = jsonOf(await getMany(5, true));
    expect(simple).toHaveLength(5);
    // Simplify's fields, in their order.
    const simplified =
      'product_id sku slug url status description price_amount price_currency quantity brand is_boosted updated_at';
    for (const item of simple) {
      expect(Object.keys(item)).toEqual(simplified.split(' '));
      expect(item.status).toBe('on sale');
    }
    const full = jsonOf(await getMany(2, false));
    expect(full[0]).toMatchObject({
      status_code: 'STATUS_ONSALE',
      pictures: expect.any(Array),
      address: expect.any(Object),
      url: expect.stringContaining('https://www.depop.com/products/'),
    });
  });

  it("listSearch lists the shop's products page by page, with the API's cursor as the token", async () => {
    const sold = await fetch(`${sim.url}/api/v1/products/by-sku/BULK-3/mark-as-sold/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO.apiKey}` },
    });
    expect(sold.status).toBeLessThan(300);
    const first = lookup();
    const pages = [await node.methods.listSearch.searchProducts.call(first.fns)];
    expect(first.requests).toHaveLength(1);
    const query = new URL(first.requests[0]!.url).searchParams;
    expect([query.get('state'), query.get('sort_by'), query.get('limit')]).toEqual(['all', 'id_desc', '50']);
    while (pages.at(-1)!.paginationToken)
      pages.push(
        await node.methods.listSearch.searchProducts.call(
          lookup().fns,
          undefined,
          pages.at(-1)!.paginationToken,
        ),
      );
    expect(pages.map((p) => p.results.length)).toEqual([50, 50, BULK + 4 - 100]);
    const rows = pages.flatMap((p) => p.results);
    // Newest first, every product of the shop once.
    expect(rows[0]!.name).toBe(`SKU BULK-${BULK - 1} · Plain cotton tee number ${BULK - 1} · 12.00 GBP`);
    const shop = [...seller().products.values()].filter((p) => p.state !== 'removed');
    expect(rows.map((r) => Number(r.value)).sort((a, b) => a - b)).toEqual(
      shop.map((p) => p.productId).sort((a, b) => a - b),
    );
    const pick = byKey('PICK-1');
    expect(rows.find((r) => r.value === String(pick.productId))).toEqual({
      name: 'SKU PICK-1 · Faded band tee, cracked print,… · 21.00 GBP',
      value: String(pick.productId),
      url: `https://www.depop.com/products/${pick.slug}/`,
    });
    // A sold product says so in its row.
    expect(rows.find((r) => r.value === String(byKey('BULK-3').productId))!.name).toMatch(/ · sold$/);
  });

  it('listSearch filters by words of the title, SKU or brand, across pages', async () => {
    const bySku = await node.methods.listSearch.searchProducts.call(lookup().fns, 'pick-1');
    expect(bySku.results.map((r) => r.name)).toEqual([expect.stringContaining('SKU PICK-1')]);
    expect(bySku.paginationToken).toBeUndefined();
    // "number 1", "number 10".."19" and "number 100".."109": 21 products. The first answer stops
    // once a screen (20) is filled, with the cursor to go on; the next one finds the last.
    const byWord = lookup();
    const first = await node.methods.listSearch.searchProducts.call(byWord.fns, 'Number 1');
    expect(first.results).toHaveLength(20);
    expect(first.paginationToken).toEqual(expect.any(String));
    expect(byWord.requests.map((r) => new URL(r.url).searchParams.get('limit'))).toEqual(['100']);
    const rest = await node.methods.listSearch.searchProducts.call(
      lookup().fns,
      'Number 1',
      first.paginationToken,
    );
    expect(rest.results.map((r) => r.name)).toEqual([expect.stringContaining('SKU BULK-1')]);
    expect(rest.results.map((r) => r.name)).toEqual([expect.stringMatching(/number 1 · /)]);
    expect(rest.paginationToken).toBeUndefined();
    const demo = await node.methods.listSearch.searchProducts.call(lookup().fns, 'carhartt');
    expect(demo.results).toEqual([
      expect.objectContaining({
        name: expect.stringMatching(/^SKU DEMO-JACKET-003 · Carhartt work jacket, green can… · 80\.00 GBP$/),
      }),
    ]);
    expect(
      (await node.methods.listSearch.searchProducts.call(lookup().fns, 'no such thing')).results,
    ).toEqual([]);
  });

  it('loadOptions: addresses, shipping providers, and the currency (product’s, else the shop’s)', async () => {
    const addresses = await node.methods.loadOptions.getAddresses.call(lookup().fns);
    expect(addresses).toEqual([
      { name: 'Demo Shop — 1 Market Street, London, E1 6AN, GB', value: DEMO.addressId },
    ]);
    const providers = await node.methods.loadOptions.getShippingProviders.call(
      lookup({ addressId: DEMO.addressId }).fns,
    );
    expect(providers.length).toBeGreaterThan(0);
    const api = (await (
      await fetch(`${sim.url}/api/v1/shop/seller-addresses/${DEMO.addressId}/shipping-providers/`, {
        headers: { authorization: `Bearer ${DEMO.apiKey}` },
      })
    ).json()) as { id: string }[];
    expect(providers.map((p) => p.value).sort()).toEqual(api.map((p) => p.id).sort());
    // Before an address is chosen: the providers of every address.
    const any = await node.methods.loadOptions.getShippingProviders.call(lookup().fns);
    expect(any.map((p) => p.value)).toEqual(providers.map((p) => p.value));
    // The listing form's Platform Shipping: the address chosen in the same row.
    const inForm = await node.methods.loadOptions.getShippingProviders.call(
      lookup({ 'extraFields.platformShipping.shipping.addressId': DEMO.addressId }).fns,
    );
    expect(inForm.map((p) => p.value)).toEqual(providers.map((p) => p.value));

    expect(await node.methods.loadOptions.getCurrencies.call(lookup().fns)).toEqual([
      { name: "GBP (the shop's currency)", value: 'GBP' },
    ]);
    expect(
      await node.methods.loadOptions.getCurrencies.call(lookup({ product: rl('sku', 'PICK-1') }).fns),
    ).toEqual([{ name: "GBP (the product's currency)", value: 'GBP' }]);
  });

  it('dynamic-option fields at run time: a provider filter, and empty currencies default sensibly', async () => {
    const providers = await node.methods.loadOptions.getShippingProviders.call(
      lookup({ addressId: DEMO.addressId }).fns,
    );
    const one = String(providers[0]!.value);
    const filtered = jsonOf(
      await run([
        { resource: 'shipping', operation: 'listProviders', addressId: DEMO.addressId, providerId: one },
      ]).out,
    );
    expect(filtered.map((p) => p.id)).toEqual([one]);

    const priced = run([teeInspiration('')]);
    expect(jsonOf(await priced.out)[0]).toMatchObject({ price_prediction: expect.any(Object) });
    const sent = priced.m.requests.find((r) => r.method === 'POST')!;
    expect(sent.url).toContain('/api/v1/pricing/');
  });
});
