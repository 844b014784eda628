import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';

/** Shipping providers and parcel sizes available from one of the seller's addresses. */
export const description: INodeProperties[] = [
  { displayName: 'Address ID', name: 'addressId', type: 'number', required: true, default: 0 },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject[]> {
  return (await client.shipping.listProviders(
    this.getNodeParameter('addressId', i) as number,
  )) as unknown as IDataObject[];
}
