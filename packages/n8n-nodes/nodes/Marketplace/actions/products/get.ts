import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { productRef, productRefFields } from '../common';

export const description: INodeProperties[] = [...productRefFields];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  return (await client.products.get(productRef.call(this, i))) as unknown as IDataObject;
}
