// The listing form of version 2 (Product → Create and Update): its description as n8n's editor reads
// it (typed fields, required flags, no deciding defaults, hints, raw JSON only under Options), and the
// operations through a mocked IExecuteFunctions whose HTTP helper reaches a real simulator: a Create
// from typed fields alone, pictures from an expression, Update, hashtags, labelled errors and the
// notice for a brand the marketplace does not recognise.
import type {
  IDataObject,
  IExecuteFunctions,
  INodeProperties,
  NodeExecutionHint,
  NodeOperationError,
} from 'n8n-workflow';
import {
  Colour,
  Condition,
  DEPARTMENTS,
  LocalValidationError,
  Style,
  violation,
} from '@selling-kit/api-client/core';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { Marketplace } from '../nodes/Marketplace/Marketplace.node.ts';
import { FIELD_LABELS, labelMessage } from '../nodes/Marketplace/actions/products/labels.ts';
import { pictureUrls } from '../nodes/Marketplace/actions/products/listingFields.ts';
import { errorJson } from '../nodes/Marketplace/actions/errors.ts';
import { jsonOf, mockExecute, mockNode, type MockOptions } from './helpers/mockExecute.mts';
import { asFullPut, jacketCreateForm } from './helpers/parameters.mts';

const node = new Marketplace();
const KEY = 'pak_demo_selling_kit';
const V2 = [2];

/** The fields the editor shows for a product operation on a version-2 node, in order. */
function formOf(operation: string): INodeProperties[] {
  return node.description.properties.filter(
    (p) =>
      p.displayOptions?.show?.resource?.includes('products') &&
      p.displayOptions.show.operation?.includes(operation) &&
      JSON.stringify(p.displayOptions.show['@version']) === JSON.stringify(V2),
  );
}
const fieldOf = (operation: string, name: string) => {
  const found = formOf(operation).find((p) => p.name === name);
  if (!found) throw new Error(`no field ${name} on ${operation} (v2)`);
  return found;
};
const valuesOf = (p: INodeProperties) => (p.options ?? []).map((o) => (o as { value: unknown }).value);
const optionOf = (collection: INodeProperties, name: string) =>
  (collection.options as INodeProperties[]).find((o) => o.name === name)!;

describe('the Create form (version 2)', () => {
  it('puts what the service requires first, marked required, with the labels of the one table', () => {
    const names = formOf('create').map((p) => p.name);
    const first = [
      'description',
      'priceAmount',
      'priceCurrency',
      'pictures',
      'productType',
      'brandName',
      'condition',
      'department',
    ];
    expect(names.slice(0, 8)).toEqual(first);
    for (const name of [...first, 'countryCode', 'quantity'])
      expect(fieldOf('create', name).required).toBe(true);
    expect(fieldOf('create', 'nationalShippingCost').required).toBeUndefined();
    expect(fieldOf('create', 'brandName').displayName).toBe(FIELD_LABELS.brand_name);
    expect(fieldOf('create', 'priceAmount').displayName).toBe(FIELD_LABELS.price_amount);
    expect(names.slice(-2)).toEqual(['extraFields', 'options']);
  });

  it('decides nothing for the user: Department, Condition, Currency and Country start empty, options from the core', () => {
    for (const name of ['department', 'condition', 'priceCurrency', 'countryCode']) {
      expect(fieldOf('create', name)).toMatchObject({ type: 'options', default: '' });
      expect(valuesOf(fieldOf('create', name))).not.toContain('');
    }
    expect(valuesOf(fieldOf('create', 'department')).sort()).toEqual([...DEPARTMENTS].sort());
    expect(valuesOf(fieldOf('create', 'condition'))).toEqual(Condition.options);
    expect(valuesOf(fieldOf('create', 'priceCurrency'))).toEqual(expect.arrayContaining(['GBP', 'USD']));
    expect(valuesOf(fieldOf('create', 'countryCode'))).toEqual(expect.arrayContaining(['GB', 'US']));
  });

  it('takes pictures as a list of URL rows and the brand with the unbranded hint', () => {
    const pictures = fieldOf('create', 'pictures');
    expect(pictures).toMatchObject({ type: 'fixedCollection', typeOptions: { multipleValues: true } });
    expect(pictures.hint).toMatch(/1 to 8/);
    expect(pictures.hint).toMatch(/\{\{ \$json\.pictures \}\}/);
    expect(fieldOf('create', 'brandName').hint).toMatch(/unbranded/);
  });

  it('gives n8n hints where the rules fail most: hashtags and brand, 2-decimal prices, shipping', () => {
    expect(fieldOf('create', 'description').hint).toMatch(/5 hashtags.*brand/);
    expect(fieldOf('create', 'priceAmount').hint).toMatch(/2 decimals/);
    expect(fieldOf('create', 'nationalShippingCost').hint).toMatch(/Platform Shipping/);
    expect(optionOf(fieldOf('create', 'extraFields'), 'discount_price').hint).toMatch(
      /Lower than Price.*2 decimals/,
    );
  });

  it('Platform Shipping picks the address and provider from the shop (dynamic options)', () => {
    const shipping = optionOf(fieldOf('create', 'extraFields'), 'platformShipping') as unknown as {
      options: { values: INodeProperties[] }[];
    };
    const row = shipping.options[0]!.values;
    const method = (name: string) => row.find((p) => p.name === name)?.typeOptions?.loadOptionsMethod;
    expect(method('addressId')).toBe('getAddresses');
    expect(method('providerId')).toBe('getShippingProviders');
    const methods: Record<string, unknown> = node.methods.loadOptions;
    for (const name of ['getAddresses', 'getShippingProviders'])
      expect(typeof methods[name]).toBe('function');
  });

  it('types the optional fields (Additional Fields) and keeps raw JSON only under Options', () => {
    const extra = fieldOf('create', 'extraFields');
    expect(extra).toMatchObject({ type: 'collection', displayName: 'Additional Fields', default: {} });
    const types = Object.fromEntries((extra.options as INodeProperties[]).map((o) => [o.name, o.type]));
    expect(types).toEqual({
      age: 'options',
      attributes: 'fixedCollection',
      is_boosted: 'boolean',
      colour: 'multiOptions',
      discount_price: 'string',
      international_shipping_cost: 'string',
      platformShipping: 'fixedCollection',
      size_id: 'number',
      size_set_id: 'number',
      variants: 'fixedCollection',
      source: 'multiOptions',
      style: 'multiOptions',
    });
    expect(valuesOf(optionOf(extra, 'colour'))).toEqual(expect.arrayContaining(Colour.options));
    expect(valuesOf(optionOf(extra, 'style'))).toHaveLength(Style.options.length);
    expect(formOf('create').filter((p) => p.type === 'json')).toEqual([]);
    const options = fieldOf('create', 'options');
    expect(options.type).toBe('collection');
    expect(optionOf(options, 'rawJson')).toMatchObject({ type: 'json', displayName: 'Raw JSON Fields' });
  });

  it('Update shares the form; version 1 keeps its own fields and defaults for saved workflows', () => {
    expect(
      formOf('update')
        .map((p) => p.name)
        .filter((n) => n !== 'product'),
    ).toEqual(
      formOf('create')
        .map((p) => p.name)
        .filter((n) => n !== 'newSku'),
    );
    const v1 = node.description.properties.filter(
      (p) =>
        p.displayOptions?.show?.operation?.includes('create') &&
        JSON.stringify(p.displayOptions.show['@version']) === '[1]',
    );
    expect(v1.find((p) => p.name === 'department')!.default).toBe('womenswear');
    expect(v1.find((p) => p.name === 'additionalFields')!.type).toBe('json');
  });
});

describe('pictures and labels', () => {
  it('reads picture rows, an expression array of URLs or of {url} records, and text', () => {
    expect(pictureUrls({ picture: [{ url: 'https://a/1.png' }, { url: 'https://a/2.png' }] })).toEqual([
      'https://a/1.png',
      'https://a/2.png',
    ]);
    expect(pictureUrls({ picture: [{ url: ['https://a/1.png', { url: 'https://a/2.png' }] }] })).toEqual([
      'https://a/1.png',
      'https://a/2.png',
    ]);
    expect(pictureUrls('https://a/1.png, https://a/2.png\nhttps://a/3.png')).toHaveLength(3);
    expect(pictureUrls('["https://a/1.png"]')).toEqual(['https://a/1.png']);
    expect(pictureUrls({})).toEqual([]);
  });

  it("speaks the form's labels and leaves quoted values and ordinary words alone", () => {
    expect(labelMessage('discount_price (30.00) must be lower than price_amount (25.00)')).toBe(
      'Discount Price (30.00) must be lower than Price (25.00)',
    );
    expect(labelMessage('brand_name: is required', 'brand_name')).toBe('Brand is required');
    expect(labelMessage('quantity must be at least 1, got 0', 'quantity')).toBe(
      'Quantity must be at least 1, got 0',
    );
    expect(labelMessage('department "used_good" is not one of womenswear', 'department')).toBe(
      'Department "used_good" is not one of womenswear',
    );
  });
});

describe('Create and Update (version 2) against the simulator', () => {
  let sim: RunningSimulator;
  let opts: MockOptions;
  beforeAll(async () => {
    sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
    opts = { baseUrl: sim.url, apiKey: KEY };
  });
  afterAll(() => sim.close());

  /** The node at version 2, collecting the execution hints n8n would show in the output pane. */
  function run(items: Record<string, unknown>[], extra: Partial<MockOptions> = {}) {
    const m = mockExecute(items, { ...opts, typeVersion: 2, ...extra });
    const hints: NodeExecutionHint[] = [];
    const fns = {
      ...(m.fns as unknown as Record<string, unknown>),
      addExecutionHints: (...h: NodeExecutionHint[]) => hints.push(...h),
    } as unknown as IExecuteFunctions;
    return { m, hints, out: node.execute.call(fns) };
  }

  /** A Create built only from the form's typed fields, as a new user fills it in. */
  const typed = (sku: string, extra: Record<string, unknown> = {}) =>
    jacketCreateForm({
      description: 'Waxed cotton jacket, barely worn #vintage #y2k',
      pictures: {
        picture: [{ url: 'https://img.example/front.jpg' }, { url: 'https://img.example/back.jpg' }],
      },
      newSku: sku,
      extraFields: {
        discount_price: '99.00',
        colour: ['green', 'black'],
        style: ['gorpcore'],
        age: '90s',
        source: ['vintage'],
        size_set_id: 44,
        size_id: 18,
        attributes: { attribute: [{ name: 'material', values: 'cotton, wax' }] },
      },
      ...extra,
    });
  const stored = (sku: string) => {
    const seller = sim.world.sellers.get(1001)!;
    return seller.products.get(seller.skus.get(sku)!)!;
  };

  it('a Create from typed fields alone succeeds first time and returns the full record with its url', async () => {
    const { m, out } = run([typed('FORM-1')]);
    const [record] = jsonOf(await out);
    expect(record).toMatchObject({
      sku: 'FORM-1',
      product_id: expect.any(Number),
      status: 'on sale',
      status_code: 'STATUS_ONSALE',
      url: expect.stringMatching(/^https:\/\/www\.depop\.com\/products\/.+\/$/),
      price_amount: '120.00',
      discount_price: '99.00',
      colour: ['green', 'black'],
      style: ['gorpcore'],
      age: ['90s'],
      source: ['vintage'],
      size_set_id: 44,
      size_id: 18,
      attributes: { material: ['cotton', 'wax'] },
      brand: 'Patagonia',
    });
    expect(record!.notice).toBeUndefined();
    expect(m.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      'POST /api/v1/products/',
      `GET /api/v1/products/by-product-id/${String(record!.product_id)}/`,
    ]);
  });

  it('platform shipping and multi-size variants from typed fields; pictures from an expression array', async () => {
    const pictures = ['https://img.example/1.jpg', 'https://img.example/2.jpg', 'https://img.example/3.jpg'];
    const { out } = run([
      typed('FORM-2', {
        // What `={{ $json.pictures }}` in one URL row hands the node: the array itself.
        pictures: { picture: [{ url: pictures }] },
        nationalShippingCost: '',
        extraFields: {
          platformShipping: {
            shipping: { addressId: 501, providerId: 'ROYAL_MAIL', parcelSizeId: 'SMALL', payer: 'buyer' },
          },
          size_set_id: 44,
          variants: {
            variant: [
              { sizeId: 14, quantity: 1 },
              { sizeId: 16, quantity: 2 },
            ],
          },
        },
      }),
    ]);
    const [record] = jsonOf(await out);
    expect(record).toMatchObject({
      depop_shipping: { address_id: 501, shipping_provider_id: 'ROYAL_MAIL', parcel_size_id: 'SMALL' },
      variants: [
        { size_id: 14, quantity: 1 },
        { size_id: 16, quantity: 2 },
      ],
    });
    expect((record!.pictures as IDataObject[]).length).toBe(3);
    expect(stored('FORM-2').pictures).toHaveLength(3);
  });

  it('Update (PUT) with typed fields replaces the listing', async () => {
    const { m, out } = run([
      asFullPut(typed('FORM-1'), 'update', {
        priceAmount: '110.00',
        extraFields: { discount_price: '95.00', colour: ['navy'], size_set_id: 44, size_id: 18 },
      }),
    ]);
    await out;
    expect(m.requests[0]).toMatchObject({ method: 'PUT', url: expect.stringContaining('/by-sku/FORM-1/') });
    expect(stored('FORM-1').fields).toMatchObject({
      price_amount: '110.00',
      discount_price: '95.00',
      colour: ['navy'],
    });
  });

  it("a generic hashtag passes, and the item's own brand may be tagged", async () => {
    const { out } = run([
      typed('FORM-3', { description: 'Fleece #vintage #patagonia #gorpcore', extraFields: {} }),
    ]);
    expect(jsonOf(await out)[0]).toMatchObject({ status: 'on sale', brand: 'Patagonia' });
  });

  it('a discount above the price: the labelled message, nothing sent, field and code kept', async () => {
    const { m, out } = run([
      typed('FORM-4', { priceAmount: '25.00', extraFields: { discount_price: '30.00' } }),
    ]);
    const error = (await out.catch((e: unknown) => e)) as NodeOperationError;
    expect(error.constructor.name).toBe('NodeOperationError');
    expect(error.message).toBe('Discount Price (30.00) must be lower than Price (25.00)');
    expect(error.description).toMatch(/discount_price/);
    expect(error.context).toMatchObject({ code: 'validation', field: 'discount_price' });
    expect(m.requests).toHaveLength(0);
  });

  it('a missing required field names its label; Continue On Fail keeps code and violations', async () => {
    const { out } = run([typed('FORM-5', { brandName: '' })]);
    const error = (await out.catch((e: unknown) => e)) as NodeOperationError;
    expect(error.message).toBe('Brand is required');
    expect(error.description).toMatch(/field Brand \(brand_name\), rule "required", code validation/);

    const failed = run([typed('FORM-5', { brandName: '' })], { continueOnFail: true });
    expect(jsonOf(await failed.out)[0]).toMatchObject({
      code: 'validation',
      violations: [expect.objectContaining({ field: 'brand_name', label: 'Brand', rule: 'required' })],
    });
    // What the item carries once the router hands errorJson the node: the message in the form's words.
    const local = new LocalValidationError([
      violation('brand_name', 'required', 'validation', 'brand_name: is required'),
    ]);
    expect(errorJson(local, mockNode(2))).toMatchObject({ error: 'Brand is required', code: 'validation' });
    expect(errorJson(local, mockNode(1))).toMatchObject({
      error: 'brand_name: is required [brand_name: required]',
    });
  });

  it('Continue On Fail through the router: the item carries the message in the form’s words (v2)', async () => {
    const failed = run([typed('FORM-5B', { brandName: '' })], { continueOnFail: true });
    expect(jsonOf(await failed.out)[0]).toMatchObject({ error: 'Brand is required', code: 'validation' });
  });

  it('Update says when the brand typed was not recognised, as Create does', async () => {
    await run([typed('FORM-UPD')]).out;
    const update = asFullPut(
      typed('FORM-UPD', { brandName: 'Barbour', description: 'Waxed jacket #vintage' }),
      'update',
    );
    const [record] = jsonOf(await run([update]).out);
    expect(record).toMatchObject({ sku: 'FORM-UPD', brand: 'unbranded' });
    expect(record!.notice).toMatch(/Brand "Barbour" was not recognised/);
    const tagged = { ...update, brandName: 'Nikey', description: 'Retro tee #nike' };
    const error = (await run([tagged]).out.catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^Brand "Nikey" was not recognised/);
  });

  it('no pictures: a clear error before any request', async () => {
    const { m, out } = run([typed('FORM-6', { pictures: {} })]);
    const error = (await out.catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^Pictures: add at least one picture URL/);
    expect(m.requests).toHaveLength(0);
  });

  it('an unknown brand: the listing is created and the output carries a notice (and an n8n hint)', async () => {
    const { hints, out } = run([
      typed('FORM-7', { brandName: 'Barbour', description: 'Waxed jacket #barbour #vintage' }),
    ]);
    const [record] = jsonOf(await out);
    expect(record).toMatchObject({ status: 'on sale', brand: 'unbranded' });
    expect(record!.notice).toMatch(/Brand "Barbour" was not recognised.*unbranded/);
    expect(hints).toEqual([expect.objectContaining({ type: 'warning', message: record!.notice })]);
  });

  it('a brand tag refused because the typed brand became unbranded says the brand was not recognised', async () => {
    const { out } = run([typed('FORM-8', { brandName: 'Nikey', description: 'Retro tee #nike' })]);
    const error = (await out.catch((e: unknown) => e)) as Error & { httpCode?: string; description?: string };
    expect(error.constructor.name).toBe('NodeApiError');
    expect(error.message).toMatch(/^Brand "Nikey" was not recognised/);
    expect(error.description).toMatch(/Code invalid_description.*Error id [0-9a-f-]{36}/);
    expect(error.httpCode).toBe('422');
  });

  it('the read-after-create delay never fails a create: the record comes once the listing is visible', async () => {
    sim.config.readAfterCreateDelayMs = 600;
    try {
      const [record] = jsonOf(await run([typed('FORM-9', { extraFields: {} })]).out);
      expect(record).toMatchObject({ sku: 'FORM-9', status: 'on sale', url: expect.any(String) });
      expect(record!.notice).toBeUndefined();
    } finally {
      sim.config.readAfterCreateDelayMs = 0;
    }
  });

  it('a listing still unreadable after the retries: created, with its url and a notice', async () => {
    sim.config.readAfterCreateDelayMs = 60_000;
    try {
      const [record] = jsonOf(await run([typed('FORM-10', { extraFields: {} })]).out);
      expect(record).toMatchObject({
        sku: 'FORM-10',
        product_id: expect.any(Number),
        url: expect.any(String),
      });
      expect(record!.notice).toMatch(/created.*Product → Get/);
      expect(stored('FORM-10').state).toBe('selling');
    } finally {
      sim.config.readAfterCreateDelayMs = 0;
    }
  });
});
