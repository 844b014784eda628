// Get Many products: a limit or every page, with filters. Version 2 returns each product with its
// URL and status word, or (Simplify, the default) only the fields a workflow usually needs.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { PRODUCTS_PAGE_MAX, type SellingClient } from '@selling-kit/api-client/client';
import { collect, compact, isV2, maxItems, returnAllFields } from '../common';
import { productOutput, simplifiedProduct } from './output';

export const description: INodeProperties[] = [
  ...returnAllFields(1000),
  {
    displayName: 'Simplify',
    name: 'simplify',
    type: 'boolean',
    default: true,
    description: 'Whether to return a simplified version of the response instead of the raw data',
    hint: 'Simplified: ID, SKU, slug, URL, status, description, price, currency, quantity, brand, boosted, updated',
    displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
  },
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    options: [
      { displayName: 'Created After', name: 'from_created_date', type: 'dateTime', default: '' },
      { displayName: 'Created Before', name: 'to_created_date', type: 'dateTime', default: '' },
      {
        displayName: 'Sort By',
        name: 'sort_by',
        type: 'options',
        options: [
          { name: 'Newest ID First', value: 'id_desc' },
          { name: 'Oldest ID First', value: 'id_asc' },
          { name: 'Newest Created First', value: 'created_date_desc' },
        ],
        default: 'id_desc',
      },
      {
        displayName: 'State',
        name: 'state',
        type: 'options',
        options: [
          { name: 'All', value: 'all' },
          { name: 'Selling', value: 'selling' },
          { name: 'Sold', value: 'sold' },
        ],
        default: 'selling',
      },
    ],
  },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject[]> {
  const filters = compact(this.getNodeParameter('filters', i, {}) as IDataObject);
  const max = maxItems.call(this, i);
  const limit = Math.min(max ?? PRODUCTS_PAGE_MAX, PRODUCTS_PAGE_MAX);
  const products = await collect(
    this,
    i,
    client.products.list({ ...filters, limit }),
    (p) => p.product_id,
    max,
  );
  if (!isV2(this)) return products as unknown as IDataObject[];
  const simplify = this.getNodeParameter('simplify', i, true) as boolean;
  return products.map((p) => (simplify ? simplifiedProduct(p) : productOutput(p)));
}
