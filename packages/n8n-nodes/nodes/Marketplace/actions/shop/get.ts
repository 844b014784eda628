import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';

export const description: INodeProperties[] = [];

export async function execute(
  this: IExecuteFunctions,
  _i: number,
  client: SellingClient,
): Promise<IDataObject> {
  return (await client.shop.get()) as unknown as IDataObject;
}
