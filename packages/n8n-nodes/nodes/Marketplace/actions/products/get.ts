// Get one product by the picker (version 2) or version 1's key fields.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { isV2, productFields, productRef } from '../common';
import { productOutput } from './output';

export const description: INodeProperties[] = [...productFields];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const product = await client.products.get(productRef.call(this, i));
  return isV2(this) ? productOutput(product) : (product as unknown as IDataObject);
}
