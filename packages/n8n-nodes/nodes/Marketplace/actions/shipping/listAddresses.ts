import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { collect } from '../paging';

/** The seller's addresses (where parcels leave from). */
export const description: INodeProperties[] = [];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject[]> {
  const addresses = await collect(this, i, client.shop.listAddresses(), (a) => a.id, undefined);
  return addresses as unknown as IDataObject[];
}
