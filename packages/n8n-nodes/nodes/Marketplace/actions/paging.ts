// Get Many and the other lists: the Return All / Limit and Filters fields, and the walk over the
// client's pages that reads them (each record once, and always an end).
import {
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type INodeProperties,
} from 'n8n-workflow';
import type { PageIterator, SellingClient } from '@selling-kit/api-client/client';
import type { OperationModule } from './operation';
import { compact } from './parameters';

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
async function listItems<T>(
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

/**
 * `execute` of a Get Many operation: item `i`'s records, read through `list` (listItems above), then
 * turned into output items by `output` (default: as the service sent them).
 */
export function getManyOperation<T>(
  pageMax: number,
  list: (client: SellingClient, query: IDataObject & { limit: number }) => PageIterator<T>,
  keyOf: (item: T) => unknown,
  output: (this: IExecuteFunctions, items: T[], i: number) => IDataObject[] = (items) =>
    items as unknown as IDataObject[],
): OperationModule['execute'] {
  return async function execute(this: IExecuteFunctions, i: number, client: SellingClient) {
    const items = await listItems(this, i, pageMax, (query) => list(client, query), keyOf);
    return output.call(this, items, i);
  };
}
