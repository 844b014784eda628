import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { ORDERS_PAGE_MAX, type SellingClient } from '@selling-kit/api-client/client';
import { collect, compact, maxItems, returnAllFields } from '../common';

export const description: INodeProperties[] = [
  ...returnAllFields(1000),
  {
    displayName: 'Filters',
    name: 'filters',
    type: 'collection',
    placeholder: 'Add Filter',
    default: {},
    options: [
      { displayName: 'From', name: 'from', type: 'dateTime', default: '' },
      { displayName: 'To', name: 'to', type: 'dateTime', default: '' },
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
  const limit = Math.min(max ?? ORDERS_PAGE_MAX, ORDERS_PAGE_MAX);
  const orders = await collect(this, i, client.orders.list({ ...filters, limit }), (o) => o.purchase_id, max);
  return orders as unknown as IDataObject[];
}
