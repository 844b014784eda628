// Version 3 of the Marketplace node's product operations (issue 24, items 3 and 4): Update is the
// partial change (one PATCH for the fields PATCH takes, else read → merge → one PUT by product ID),
// Replace (All Fields) the full PUT; Product Type and Brand come from the core's catalogue (Product
// Type following the Department), an unrecognised brand fails before anything is sent with the closest
// brands suggested, a refused product type gets the department's types; Currency and Country start at
// the shop's. Descriptions as n8n reads them; operations through a mocked IExecuteFunctions whose HTTP
// helper reaches a real simulator, look-ups through a mocked ILoadOptionsFunctions.
import type { IDataObject, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { closeMatches, KNOWN_BRANDS, recogniseBrand } from '@selling-kit/api-client/core';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { Marketplace } from '../nodes/Marketplace/Marketplace.node.ts';
import { jsonOf, mockExecute, type MockOptions } from './helpers/mockExecute.mts';
import { mockLoadOptions } from './helpers/mockLoadOptions.mts';
import { asFullPut, jacketCreateForm } from './helpers/parameters.mts';

const node = new Marketplace();
const V3 = [{ _cnd: { gte: 3 } }];
const KEY = 'pak_demo_selling_kit';

/**
 * A demo simulator for the enclosing describe block (started before its tests, closed after) and the
 * version-3 node options pointed at it: the set-up of every block here that reaches the simulator.
 */
function useDemoSimulator(): { sim: RunningSimulator; opts: MockOptions } {
  const demo = {} as { sim: RunningSimulator; opts: MockOptions };
  beforeAll(async () => {
    demo.sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
    demo.opts = { baseUrl: demo.sim.url, apiKey: KEY, typeVersion: 3 };
  });
  afterAll(() => demo.sim.close());
  return demo;
}

/** The fields the editor shows for a product operation on a version-3 node, in order. */
const formOf = (operation: string): INodeProperties[] =>
  node.description.properties.filter((p) => {
    const show = p.displayOptions?.show;
    if (!show?.resource?.includes('products') || !show.operation?.includes(operation)) return false;
    const versions = JSON.stringify(show['@version']);
    return versions === JSON.stringify(V3) || versions === JSON.stringify([{ _cnd: { gte: 2 } }])
      ? !p.displayOptions?.hide
      : false;
  });
const fieldOf = (operation: string, name: string) => formOf(operation).find((p) => p.name === name)!;
const optionNames = (p: INodeProperties) => (p.options as INodeProperties[]).map((o) => o.name);
const pathsOf = (m: ReturnType<typeof mockExecute>) =>
  m.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`);

describe('version 3: the forms', () => {
  it('Update is the product and the fields to change, nothing else required; raw JSON only under Options', () => {
    const form = formOf('update');
    expect(form.map((p) => p.name)).toEqual(['product', 'updateFields', 'options']);
    expect(form.filter((p) => p.required).map((p) => p.name)).toEqual(['product']);
    const fields = fieldOf('update', 'updateFields');
    // Every field of the Create form the API lets change (sizes never change on an existing product).
    expect(optionNames(fields).sort()).toEqual(
      [
        'age',
        'attributes',
        'brandName',
        'colour',
        'condition',
        'countryCode',
        'department',
        'description',
        'discount_price',
        'international_shipping_cost',
        'is_boosted',
        'nationalShippingCost',
        'pictures',
        'platformShipping',
        'priceAmount',
        'priceCurrency',
        'productType',
        'quantity',
        'source',
        'style',
      ].sort(),
    );
    const inner = fields.options as INodeProperties[];
    expect(inner.some((o) => o.required)).toBe(false);
    expect(inner.map((o) => o.displayName)).toEqual([...inner.map((o) => o.displayName)].sort());
    expect(inner.find((o) => o.name === 'productType')!.typeOptions).toEqual({
      loadOptionsMethod: 'getProductTypes',
      loadOptionsDependsOn: ['updateFields.department'],
    });
    expect(optionNames(fieldOf('update', 'options'))).toEqual(['failOnUnknownBrand', 'rawJson']);
  });

  it('Create (and Replace): Department before the Product Type it lists, Brand from the catalogue, shop defaults', () => {
    for (const operation of ['create', 'replace']) {
      const names = formOf(operation).map((p) => p.name);
      expect(names.indexOf('department')).toBeLessThan(names.indexOf('productType'));
      expect(fieldOf(operation, 'productType')).toMatchObject({
        type: 'options',
        required: true,
        typeOptions: { loadOptionsMethod: 'getProductTypes', loadOptionsDependsOn: ['department'] },
      });
      expect(fieldOf(operation, 'brandName')).toMatchObject({
        type: 'options',
        required: true,
        typeOptions: { loadOptionsMethod: 'getBrands' },
      });
      expect(fieldOf(operation, 'priceCurrency').default).toBe('shop');
      expect(fieldOf(operation, 'countryCode').default).toBe('shop');
      const failOption = (fieldOf(operation, 'options').options as INodeProperties[])[0]!;
      expect(failOption).toMatchObject({ name: 'failOnUnknownBrand', type: 'boolean', default: true });
    }
  });
});

describe("the core's catalogue: recognition and close matches", () => {
  it('recognises brands as the service matches them, and suggests the closest for a typo', () => {
    expect(recogniseBrand('GUCCI')).toBe('Gucci');
    expect(recogniseBrand('levis')).toBe("Levi's");
    expect(recogniseBrand('Addidas')).toBe('Adidas'); // one typo forgiven on a longer brand
    expect(recogniseBrand('unbranded')).toBe('unbranded');
    // "Guci" is one typo from a 5-letter brand: the service lists it as Gucci, so it passes.
    expect(recogniseBrand('Guci')).toBe('Gucci');
    expect(recogniseBrand('Gooci')).toBeUndefined();
    expect(recogniseBrand('Nikey')).toBeUndefined();
    expect(closeMatches('Gooci', KNOWN_BRANDS)).toEqual(['Gucci']);
    expect(closeMatches('Nikey', KNOWN_BRANDS)).toEqual(['Nike']);
    expect(closeMatches('north face', KNOWN_BRANDS)).toEqual(['The North Face']);
    expect(closeMatches('zzzzzz', KNOWN_BRANDS)).toEqual([]);
  });
});

describe('version 3 against the simulator', () => {
  const demo = useDemoSimulator();

  const stored = (sku: string) => {
    const seller = demo.sim.world.sellers.get(1001)!;
    return seller.products.get(seller.skus.get(sku)!)!;
  };
  const run = (items: Record<string, unknown>[], extra: Partial<MockOptions> = {}) => {
    const m = mockExecute(items, { ...demo.opts, ...extra });
    return { m, out: node.execute.call(m.fns) };
  };
  const create = (sku: string, fields: Record<string, unknown> = {}) =>
    jacketCreateForm({
      description: 'Fleece jacket, barely worn',
      pictures: { picture: [{ url: 'https://img.example/jacket.jpg' }] },
      newSku: sku,
      priceCurrency: 'shop',
      countryCode: 'shop',
      extraFields: { colour: ['green'], size_set_id: 44, size_id: 18 },
      ...fields,
    });
  const update = (sku: string, updateFields: IDataObject, options: IDataObject = {}) => ({
    resource: 'products',
    operation: 'update',
    product: { __rl: true, mode: 'sku', value: sku },
    updateFields,
    options,
  });

  it("Create: Currency and Country left at the shop's become GBP and GB (the demo shop's)", async () => {
    const { m, out } = run([create('V3-JACKET-1')]);
    const [record] = jsonOf(await out);
    expect(record).toMatchObject({
      sku: 'V3-JACKET-1',
      price_currency: 'GBP',
      address: { country_code: 'GB' },
    });
    expect(pathsOf(m)).toEqual([
      'GET /api/v1/shop/',
      'POST /api/v1/products/',
      `GET /api/v1/products/by-product-id/${String(record!.product_id)}/`,
    ]);
  });

  it('Update of the price alone sends one PATCH carrying that one field', async () => {
    const { m, out } = run([update('V3-JACKET-1', { priceAmount: '110.00' })]);
    const [record] = jsonOf(await out);
    expect(record).toMatchObject({ price_amount: '110.00', updated: ['price_amount'], sent_with: 'PATCH' });
    const writes = m.requests.filter((r) => r.method !== 'GET');
    expect(writes.map((r) => [r.method, JSON.parse(r.body!)])).toEqual([
      ['PATCH', { price_amount: '110.00' }],
    ]);
    expect(stored('V3-JACKET-1').fields.price_amount).toBe('110.00');
  });

  it('Update of other fields reads the listing, merges, and sends it whole with PUT by ID (the rest kept)', async () => {
    const id = stored('V3-JACKET-1').productId;
    const { m, out } = run([
      update('V3-JACKET-1', { description: 'Fleece jacket, worn twice #patagonia', style: ['gorpcore'] }),
    ]);
    const [record] = jsonOf(await out);
    expect(record).toMatchObject({
      description: 'Fleece jacket, worn twice #patagonia',
      style: ['gorpcore'],
      colour: ['green'],
      price_amount: '110.00',
      size_id: 18,
      brand: 'Patagonia',
      national_shipping_cost: '4.50',
      updated: ['description', 'style'],
      sent_with: 'PUT',
    });
    expect(pathsOf(m)).toEqual([
      'GET /api/v1/products/by-sku/V3-JACKET-1/',
      `PUT /api/v1/products/by-product-id/${id}/`,
      `GET /api/v1/products/by-product-id/${id}/`,
    ]);
  });

  it('a misspelt brand fails before anything is sent, naming the closest brand', async () => {
    const failures = [
      run([update('V3-JACKET-1', { brandName: 'Gooci' })]),
      run([create('V3-TYPO-1', { brandName: 'Nikey' })]),
    ];
    await expect(failures[0]!.out).rejects.toThrow('Brand "Gooci" is not recognised — did you mean Gucci?');
    await expect(failures[1]!.out).rejects.toThrow('Brand "Nikey" is not recognised — did you mean Nike?');
    for (const { m } of failures) expect(m.requests).toEqual([]);
    expect(demo.sim.world.sellers.get(1001)!.skus.has('V3-TYPO-1')).toBe(false);
  });

  it('with Fail If Brand Not Recognised off, the brand goes as typed (listed unbranded, with the notice)', async () => {
    const { out } = run([
      create('V3-TYPO-2', { brandName: 'Nikey', options: { failOnUnknownBrand: false } }),
    ]);
    const [record] = jsonOf(await out);
    expect(record).toMatchObject({ brand: 'unbranded', notice: expect.stringContaining('"Nikey"') });
  });

  it('a product type the department lacks: the error lists the department’s types', async () => {
    const { out } = run([create('V3-TYPE-1', { productType: 'dresses', department: 'menswear' })]);
    await expect(out).rejects.toThrow(
      /^Product Type "dresses" does not exist in Department "Menswear"\. Product types there: tshirts, shirts, .*bags, jewellery\.$/,
    );
  });

  it('Update refuses what it cannot do: nothing to change, or a whole-listing write to a sold product', async () => {
    const empty = run([update('V3-JACKET-1', {})]);
    await expect(empty.out).rejects.toThrow('Update Fields: add at least one field to change');
    expect(empty.m.requests).toEqual([]);

    await node.execute.call(
      mockExecute(
        [
          {
            resource: 'products',
            operation: 'markSold',
            product: { __rl: true, mode: 'sku', value: 'V3-TYPO-2' },
          },
        ],
        demo.opts,
      ).fns,
    );
    const sold = run([update('V3-TYPO-2', { description: 'Relisted?' })]);
    await expect(sold.out).rejects.toThrow(/is sold: Update changes products on sale/);
    expect(sold.m.requests.map((r) => r.method)).toEqual(['GET']);
    expect(stored('V3-TYPO-2').state).toBe('sold');
  });

  it('Replace (All Fields) is the full PUT of version 2', async () => {
    const { m, out } = run([
      asFullPut(create('V3-JACKET-1'), 'replace', {
        priceAmount: '100.00',
        extraFields: { size_set_id: 44, size_id: 18 },
      }),
    ]);
    const [record] = jsonOf(await out);
    expect(record).toMatchObject({ price_amount: '100.00', colour: [], style: [] });
    expect(m.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
  });

  it('errors in the form’s words with the fix: too many decimals, a hashtag of another brand', async () => {
    const decimals = run([create('V3-WORDS-1', { priceAmount: '35.555' })]);
    await expect(decimals.out).rejects.toThrow('Price has 3 decimals (35.555): use at most 2, e.g. 35.56');
    const patch = run([update('V3-JACKET-1', { discount_price: '9.999' })]);
    await expect(patch.out).rejects.toThrow(
      'Discount Price has 3 decimals (9.999): use at most 2, e.g. 10.00',
    );
    for (const { m } of [decimals, patch]) expect(m.requests).toEqual([]);
    const tag = run([create('V3-WORDS-2', { description: 'Fleece jacket #gucci', brandName: 'Patagonia' })]);
    await expect(tag.out).rejects.toThrow(
      'Description: Hashtag(s) #gucci (Gucci) name another brand than the item\'s "Patagonia"; remove #gucci, or set Brand to Gucci',
    );
  });

  it("Get Many's Simplify keeps the main picture from version 3 (picture_url)", async () => {
    const { out } = run([
      { resource: 'products', operation: 'getAll', returnAll: false, limit: 2, simplify: true, filters: {} },
    ]);
    for (const item of jsonOf(await out)) {
      expect(Object.keys(item).slice(0, 5)).toEqual(['product_id', 'sku', 'slug', 'url', 'picture_url']);
      expect(item.picture_url).toEqual(expect.stringMatching(/^https?:\/\//));
    }
  });

  it("n8n's Custom API Call option, if run, points to the HTTP Request node (nothing sent)", async () => {
    const { m, out } = run([{ resource: 'products', operation: '__CUSTOM_API_CALL__' }]);
    await expect(out).rejects.toThrow(/^Custom API Call runs in n8n's HTTP Request node/);
    expect(m.requests).toEqual([]);
  });

  it('a version-2 Update is still the full PUT', async () => {
    const { m, out } = run(
      [
        asFullPut(create('V3-JACKET-1'), 'update', {
          priceCurrency: 'GBP',
          countryCode: 'GB',
          extraFields: { size_set_id: 44, size_id: 18 },
        }),
      ],
      { typeVersion: 2 },
    );
    await out;
    expect(pathsOf(m)[0]).toBe('PUT /api/v1/products/by-sku/V3-JACKET-1/');
  });
});

describe('the catalogue look-ups (loadOptions)', () => {
  const demo = useDemoSimulator();
  const values = (options: INodePropertyOptions[]) => options.map((o) => o.value);
  const typesFor = (parameters: Record<string, unknown>) =>
    node.methods.loadOptions.getProductTypes.call(mockLoadOptions(parameters, demo.opts).fns);

  it('Product Type follows the Department (Create’s, Update Fields’, or the picked product’s)', async () => {
    const womens = values(await typesFor({ operation: 'create', department: 'womenswear' }));
    const mens = values(await typesFor({ operation: 'create', department: 'menswear' }));
    expect(womens).toContain('dresses');
    expect(mens).not.toContain('dresses');
    expect(mens).toContain('jackets');
    expect(values(await typesFor({ updateFields: { department: 'everything-else' } }))).toEqual(['homeware']);
    // Update with no Department changed: the picked product's (the demo tee is menswear).
    const fromProduct = values(
      await typesFor({ operation: 'update', product: { __rl: true, mode: 'sku', value: 'DEMO-TEE-001' } }),
    );
    expect(fromProduct).toEqual(mens);
    // Nothing chosen: every type, with its departments.
    const all = await typesFor({ operation: 'create', department: '' });
    expect(all.find((o) => o.value === 'dresses')!.description).toBe('In Womenswear, Kidswear');
    expect((await typesFor({ department: 'menswear' }))[0]).toEqual({ name: 'T-Shirts', value: 'tshirts' });
  });

  it('Brand lists Unbranded first, then the recognised brands', async () => {
    const brands = await node.methods.loadOptions.getBrands.call(mockLoadOptions({}, demo.opts).fns);
    expect(brands[0]!.value).toBe('unbranded');
    expect(values(brands).slice(1).sort()).toEqual([...KNOWN_BRANDS].sort());
  });
});
