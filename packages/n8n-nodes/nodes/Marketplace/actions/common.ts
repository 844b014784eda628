// What every operation file shares: its shape, a resource's Operation choice, the product picker (and
// version 1's key fields), display options, parameters, Get Many's filters and paging.
import {
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type INodeProperties,
  type INodePropertyOptions,
} from 'n8n-workflow';
import type { PageIterator, SellingClient } from '@selling-kit/api-client/client';
import {
  Condition,
  DEPARTMENTS,
  LISTING_URL_PREFIX,
  type ProductRef,
  type ProductRefKind,
} from '@selling-kit/api-client/core';

/** By ID: a product ID is a whole number above 0. */
export const PRODUCT_ID_PATTERN = '^\\s*[1-9][0-9]{0,14}\\s*$';
const PRODUCT_ID_RULE = 'a product ID is a whole number above 0, e.g. 7033001';

/**
 * By URL: the product's page (`https://www.depop.com/products/<slug>/`, any subdomain, with or without
 * the scheme, a query or a fragment) or the slug alone; the first group is the slug.
 */
export const PRODUCT_URL_PATTERN =
  '^\\s*(?:(?:https?://)?(?:[\\w-]+\\.)*depop\\.com/products/)?([A-Za-z0-9][\\w-]*)/?(?:[?#]\\S*)?\\s*$';
const PRODUCT_URL_RULE = `not a product URL or slug: expected ${LISTING_URL_PREFIX}<slug>/ or the slug alone`;

/** One operation: its fields and what it does for item `i`. */
export interface OperationModule {
  description: INodeProperties[];
  execute(this: IExecuteFunctions, i: number, client: SellingClient): Promise<IDataObject | IDataObject[]>;
}

/** `execute` of an operation on the product the item names: the picker is read (and checked) first. */
export function productOperation(
  run: (this: IExecuteFunctions, ref: ProductRef, client: SellingClient, i: number) => Promise<IDataObject>,
): OperationModule['execute'] {
  return async function execute(this: IExecuteFunctions, i: number, client: SellingClient) {
    return run.call(this, productRef.call(this, i), client, i);
  };
}

/** The order an order-scoped operation acts on (Order → Get and Mark Parcel Shipped, Refund → Create). */
export const purchaseIdField: INodeProperties = {
  displayName: 'Purchase ID',
  name: 'purchaseId',
  type: 'string',
  required: true,
  default: '',
};

/** `execute` of an operation on the order the item names by its purchase ID (read first). */
export function orderOperation(
  run: (
    this: IExecuteFunctions,
    purchaseId: string,
    client: SellingClient,
    i: number,
  ) => Promise<IDataObject>,
): OperationModule['execute'] {
  return async function execute(this: IExecuteFunctions, i: number, client: SellingClient) {
    return run.call(this, this.getNodeParameter('purchaseId', i) as string, client, i);
  };
}

/**
 * A resource's fields: its Operation choice (`options`, alphabetical as n8n wants, and `default`), then
 * each operation's fields, shown for that operation only.
 */
export function resourceDescription(
  resource: string,
  operations: Record<string, OperationModule>,
  { options, default: defaultOperation }: { options: INodePropertyOptions[]; default: string },
): INodeProperties[] {
  return [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      displayOptions: { show: { resource: [resource] } },
      options,
      default: defaultOperation,
    },
    ...Object.entries(operations).flatMap(([name, op]) => forOperation(resource, name, op.description)),
  ];
}

/** Shows `fields` for one resource and operation (keeping their own conditions). */
export function forOperation(
  resource: string,
  operation: string,
  fields: INodeProperties[],
): INodeProperties[] {
  return fields.map((field) => ({
    ...field,
    displayOptions: {
      ...field.displayOptions,
      show: { ...field.displayOptions?.show, resource: [resource], operation: [operation] },
    },
  }));
}

/** Version 1's product key: a "Find Product By" choice and one field per key (kept for saved workflows). */
const productKeyFieldsV1: INodeProperties[] = (
  [
    {
      displayName: 'Find Product By',
      name: 'productKey',
      type: 'options',
      options: labelledOptions({ sku: 'SKU', productId: 'Product ID', slug: 'Slug' }),
      default: 'sku',
    },
    {
      displayName: 'SKU',
      name: 'sku',
      type: 'string',
      required: true,
      default: '',
      displayOptions: { show: { productKey: ['sku'] } },
    },
    {
      displayName: 'Product ID',
      name: 'productId',
      type: 'number',
      required: true,
      default: 0,
      displayOptions: { show: { productKey: ['productId'] } },
    },
    {
      displayName: 'Slug',
      name: 'slug',
      type: 'string',
      required: true,
      default: '',
      displayOptions: { show: { productKey: ['slug'] } },
    },
  ] as INodeProperties[]
).map((field) => ({
  ...field,
  displayOptions: { show: { ...field.displayOptions?.show, '@version': [1] } },
}));

/**
 * The product picker every product-scoped operation uses from version 2 on (n8n's resource locator):
 * From List (a search over the shop's products), By SKU, By ID, By URL (a product URL or its slug).
 */
export const productLocator: INodeProperties = {
  displayName: 'Product',
  name: 'product',
  type: 'resourceLocator',
  default: { mode: 'list', value: '' },
  required: true,
  description: 'The product to act on',
  displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
  modes: [
    {
      displayName: 'From List',
      name: 'list',
      type: 'list',
      placeholder: 'Select a product...',
      typeOptions: { searchListMethod: 'searchProducts', searchable: true },
    },
    {
      displayName: 'By SKU',
      name: 'sku',
      type: 'string',
      placeholder: 'e.g. TEE-BLACK-M',
      hint: 'Your own reference, set when the product was created',
    },
    {
      displayName: 'By ID',
      name: 'id',
      type: 'string',
      placeholder: 'e.g. 7033001',
      validation: [
        {
          type: 'regex',
          properties: { regex: PRODUCT_ID_PATTERN, errorMessage: PRODUCT_ID_RULE },
        },
      ],
    },
    {
      displayName: 'By URL',
      name: 'url',
      type: 'string',
      placeholder: `e.g. ${LISTING_URL_PREFIX}vintage-nike-t-shirt-7033001/`,
      hint: 'The product page, or its slug alone',
      validation: [
        {
          type: 'regex',
          properties: { regex: PRODUCT_URL_PATTERN, errorMessage: PRODUCT_URL_RULE },
        },
      ],
      extractValue: { type: 'regex', regex: PRODUCT_URL_PATTERN },
    },
  ],
};

/** Version 1's key fields and version 2's picker: what a product-scoped operation spreads. */
export const productFields: INodeProperties[] = [...productKeyFieldsV1, productLocator];

/** Whether the node runs as version 2 or later (the picker, full records out). */
export function isV2(ctx: IExecuteFunctions): boolean {
  return Number(ctx.getNode().typeVersion ?? 1) >= 2;
}

const PRODUCT_ID = new RegExp(PRODUCT_ID_PATTERN);
const PRODUCT_URL = new RegExp(PRODUCT_URL_PATTERN);

type LocatorValue = { __rl?: boolean; mode?: string; value?: unknown };

/**
 * A picker value as a product reference, or an error naming the mode and the rule. The value list
 * holds product IDs; a whole-parameter expression giving a plain string is taken as a SKU.
 */
export function parseProductLocator(raw: unknown): ProductRef | string {
  const locator: LocatorValue =
    raw && typeof raw === 'object'
      ? (raw as LocatorValue)
      : typeof raw === 'number'
        ? { mode: 'id', value: raw }
        : { mode: 'sku', value: raw };
  const value = String(locator.value ?? '').trim();
  const mode = locator.mode ?? 'list';
  if (!value)
    return mode === 'list'
      ? 'Product: choose a product from the list, or enter its SKU, ID or URL'
      : `Product (${MODE_LABEL[mode] ?? mode}): is required`;
  switch (mode) {
    case 'sku':
      return { sku: value };
    case 'list':
    case 'id':
      return PRODUCT_ID.test(value)
        ? { productId: Number(value) }
        : `Product (${MODE_LABEL[mode]}): "${value}" — ${PRODUCT_ID_RULE}`;
    case 'url': {
      const slug = PRODUCT_URL.exec(value)?.[1];
      return slug ? { slug } : `Product (By URL): "${value}" — ${PRODUCT_URL_RULE}`;
    }
    default:
      return `Product: unknown way to find a product "${mode}" (use From List, By SKU, By ID or By URL)`;
  }
}

const MODE_LABEL: Record<string, string> = {
  list: 'From List',
  sku: 'By SKU',
  id: 'By ID',
  url: 'By URL',
};

/** The product the item names (version 1's key fields or version 2's picker), checked before any request. */
export function productRef(this: IExecuteFunctions, i: number): ProductRef {
  if (isV2(this)) {
    const ref = parseProductLocator(this.getNodeParameter('product', i));
    if (typeof ref === 'string') throw new NodeOperationError(this.getNode(), ref, { itemIndex: i });
    return ref;
  }
  const key = this.getNodeParameter('productKey', i) as ProductRefKind;
  if (key === 'productId') {
    const productId = this.getNodeParameter('productId', i) as number;
    if (!Number.isInteger(productId) || productId <= 0)
      throw new NodeOperationError(this.getNode(), 'Product ID: must be a positive whole number', {
        itemIndex: i,
      });
    return { productId };
  }
  const value = String(this.getNodeParameter(key, i)).trim();
  if (!value)
    throw new NodeOperationError(this.getNode(), `${key === 'sku' ? 'SKU' : 'Slug'}: is required`, {
      itemIndex: i,
    });
  return key === 'sku' ? { sku: value } : { slug: value };
}

/** A JSON parameter (an object), or a NodeOperationError naming it. */
export function jsonObject(this: IExecuteFunctions, name: string, label: string, i: number): IDataObject {
  const raw = this.getNodeParameter(name, i, '{}') as unknown;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return raw as IDataObject;
  try {
    const parsed = JSON.parse(String(raw || '{}')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as IDataObject;
  } catch {
    // reported below
  }
  throw new NodeOperationError(this.getNode(), `${label}: must be a JSON object`, { itemIndex: i });
}

/** Drops empty strings and undefined values (n8n gives '' for untouched optional fields). */
export function compact(body: IDataObject): IDataObject {
  return Object.fromEntries(
    Object.entries(body).filter(([, v]) => v !== '' && v !== undefined && v !== null),
  );
}

export const returnAllFields = (max: number): INodeProperties[] => [
  {
    displayName: 'Return All',
    name: 'returnAll',
    type: 'boolean',
    default: false,
    description: 'Whether to return all results or only up to a given limit',
  },
  {
    displayName: 'Limit',
    name: 'limit',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: max },
    default: 50,
    description: 'Max number of results to return',
    displayOptions: { show: { returnAll: [false] } },
  },
];

/** Get Many's Filters: optional query fields, sent only when set. */
export const filtersField = (options: INodeProperties[]): INodeProperties => ({
  displayName: 'Filters',
  name: 'filters',
  type: 'collection',
  placeholder: 'Add Filter',
  default: {},
  options,
});

export function maxItems(this: IExecuteFunctions, i: number): number | undefined {
  return (this.getNodeParameter('returnAll', i) as boolean)
    ? undefined
    : (this.getNodeParameter('limit', i) as number);
}

/** Pages one Return All may read before giving up (at the largest page size, 100 000+ records). */
export const MAX_PAGES = 1000;

/**
 * Every item of a cursor walk, or the first `max`, and always an end: the client stops on the last
 * page and on a repeated cursor; here a page that brings nothing new also ends the walk (a service
 * cycling through fresh cursors over the same items), and so does {@link MAX_PAGES}.
 */
export async function collect<T>(
  ctx: IExecuteFunctions,
  i: number,
  iterator: PageIterator<T>,
  keyOf: (item: T) => unknown,
  max: number | undefined,
): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<unknown>();
  let pages = 0;
  if (max !== undefined && max <= 0) return out;
  for await (const page of iterator.pages()) {
    let fresh = 0;
    for (const item of page.data) {
      const key = keyOf(item);
      if (seen.has(key)) continue;
      seen.add(key);
      fresh++;
      out.push(item);
      if (max !== undefined && out.length >= max) return out;
    }
    if (fresh === 0) return out;
    if (++pages >= MAX_PAGES)
      throw new NodeOperationError(
        ctx.getNode(),
        `Return All: stopped after ${MAX_PAGES} pages; narrow the filters or use a limit`,
        { itemIndex: i },
      );
  }
  return out;
}

/**
 * Get Many for item `i`: its Filters and Return All / Limit, read through `list` a page of up to
 * `pageMax` at a time (fewer when the limit is smaller), each item once by `keyOf`.
 */
export async function listItems<T>(
  ctx: IExecuteFunctions,
  i: number,
  pageMax: number,
  list: (query: IDataObject & { limit: number }) => PageIterator<T>,
  keyOf: (item: T) => unknown,
): Promise<T[]> {
  const filters = compact(ctx.getNodeParameter('filters', i, {}) as IDataObject);
  const max = maxItems.call(ctx, i);
  const limit = Math.min(max ?? pageMax, pageMax);
  return collect(ctx, i, list({ ...filters, limit }), keyOf, max);
}

/** Options from a label per value (in the labels' order): `{ id_desc: 'Newest ID First' }`. */
export function labelledOptions(labels: Record<string, string>): INodePropertyOptions[] {
  return Object.entries(labels).map(([value, name]) => ({ name, value }));
}

/** The core's enums, in their own order (version 1's option lists). */
export const CONDITIONS: readonly string[] = Condition.options;
export { DEPARTMENTS };
const title = (v: string) => v.replace(/[_-]/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
export const optionsOf = (values: readonly string[]) =>
  values.map((value) => ({ name: title(value), value }));
