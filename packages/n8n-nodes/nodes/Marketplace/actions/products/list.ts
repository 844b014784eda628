// Get Many products: a limit or every page, with filters. Version 2 returns each product with its
// URL and status word, or (Simplify, the default) only the fields a workflow usually needs.
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import {
  PRODUCTS_PAGE_MAX,
  type ProductSortBy,
  type ProductStateFilter,
} from '@selling-kit/api-client/client';
import { labelledOptions } from '../options';
import { filtersField, getManyOperation, returnAllFields } from '../paging';
import { isV2 } from '../parameters';
import { productOutput, simplifiedProduct } from './output';

/** The list's sort orders and state filters: every value the core's query schema takes, labelled. */
const SORT_LABELS: Record<ProductSortBy, string> = {
  id_desc: 'Newest ID First',
  id_asc: 'Oldest ID First',
  created_date_desc: 'Newest Created First',
};
const STATE_LABELS: Record<ProductStateFilter, string> = {
  all: 'All',
  selling: 'Selling',
  sold: 'Sold',
};

export const description: INodeProperties[] = [
  ...returnAllFields(1000),
  {
    displayName: 'Simplify',
    name: 'simplify',
    type: 'boolean',
    default: true,
    description: 'Whether to return a simplified version of the response instead of the raw data',
    hint: 'Simplified: ID, SKU, slug, URL, status, description, price, currency, quantity, brand, boosted, updated',
    displayOptions: { show: { '@version': [2] } },
  },
  {
    displayName: 'Simplify',
    name: 'simplify',
    type: 'boolean',
    default: true,
    description: 'Whether to return a simplified version of the response instead of the raw data',
    hint: 'Simplified: ID, SKU, slug, URL, main picture, status, description, price, currency, quantity, brand, boosted, updated',
    displayOptions: { show: { '@version': [{ _cnd: { gte: 3 } }] } },
  },
  filtersField([
    { displayName: 'Created After', name: 'from_created_date', type: 'dateTime', default: '' },
    { displayName: 'Created Before', name: 'to_created_date', type: 'dateTime', default: '' },
    {
      displayName: 'Sort By',
      name: 'sort_by',
      type: 'options',
      options: labelledOptions(SORT_LABELS),
      default: 'id_desc',
    },
    {
      displayName: 'State',
      name: 'state',
      type: 'options',
      options: labelledOptions(STATE_LABELS),
      default: 'selling',
    },
  ]),
];

export const execute = getManyOperation(
  PRODUCTS_PAGE_MAX,
  (client, query) => client.products.list(query),
  (p) => p.product_id,
  function output(products, i) {
    if (!isV2(this)) return products as unknown as IDataObject[];
    const simplify = this.getNodeParameter('simplify', i, true) as boolean;
    const withPicture = Number(this.getNode().typeVersion) >= 3;
    return products.map((p) => (simplify ? simplifiedProduct(p, withPicture) : productOutput(p)));
  },
);
