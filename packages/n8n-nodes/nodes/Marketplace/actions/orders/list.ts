import type { INodeProperties } from 'n8n-workflow';
import { ORDERS_PAGE_MAX } from '@selling-kit/api-client/client';
import { filtersField, getManyOperation, returnAllFields } from '../paging';

export const description: INodeProperties[] = [
  ...returnAllFields(1000),
  filtersField([
    { displayName: 'From', name: 'from', type: 'dateTime', default: '' },
    { displayName: 'To', name: 'to', type: 'dateTime', default: '' },
  ]),
];

export const execute = getManyOperation(
  ORDERS_PAGE_MAX,
  (client, query) => client.orders.list(query),
  (o) => o.purchase_id,
);
