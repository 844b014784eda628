// What every operation file shares: its shape, the product key fields, display options, parameters.
import {
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type INodeProperties,
} from 'n8n-workflow';
import type { PageIterator, ProductRef, SellingClient } from '@selling-kit/api-client/client';

/** One operation: its fields and what it does for item `i`. */
export interface OperationModule {
  description: INodeProperties[];
  execute(this: IExecuteFunctions, i: number, client: SellingClient): Promise<IDataObject | IDataObject[]>;
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

export const productRefFields: INodeProperties[] = [
  {
    displayName: 'Find Product By',
    name: 'productKey',
    type: 'options',
    options: [
      { name: 'SKU', value: 'sku' },
      { name: 'Product ID', value: 'productId' },
      { name: 'Slug', value: 'slug' },
    ],
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
];

/** The product the item names, checked here so a bad key is the item's error, not a request. */
export function productRef(this: IExecuteFunctions, i: number): ProductRef {
  const key = this.getNodeParameter('productKey', i) as 'sku' | 'productId' | 'slug';
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

export const CONDITIONS = ['brand_new', 'used_like_new', 'used_excellent', 'used_good', 'used_fair'];
export const DEPARTMENTS = ['womenswear', 'menswear', 'kidswear', 'everything-else'];
const title = (v: string) => v.replace(/[_-]/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase());
export const optionsOf = (values: string[]) => values.map((value) => ({ name: title(value), value }));
