import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';

export const description: INodeProperties[] = [
  { displayName: 'Purchase ID', name: 'purchaseId', type: 'string', required: true, default: '' },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  return (await client.orders.get(
    this.getNodeParameter('purchaseId', i) as string,
  )) as unknown as IDataObject;
}
