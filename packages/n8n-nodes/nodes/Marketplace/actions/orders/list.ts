import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { compact, maxItems, returnAllFields } from '../common';

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
  return (await client.orders
    .list(filters)
    .toArray({ max: maxItems.call(this, i) })) as unknown as IDataObject[];
}
