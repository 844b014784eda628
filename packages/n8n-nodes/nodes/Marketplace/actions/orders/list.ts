import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { ORDERS_PAGE_MAX, type SellingClient } from '@selling-kit/api-client/client';
import { filtersField, listItems, returnAllFields } from '../paging';

export const description: INodeProperties[] = [
  ...returnAllFields(1000),
  filtersField([
    { displayName: 'From', name: 'from', type: 'dateTime', default: '' },
    { displayName: 'To', name: 'to', type: 'dateTime', default: '' },
  ]),
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject[]> {
  const orders = await listItems(
    this,
    i,
    ORDERS_PAGE_MAX,
    (query) => client.orders.list(query),
    (o) => o.purchase_id,
  );
  return orders as unknown as IDataObject[];
}
