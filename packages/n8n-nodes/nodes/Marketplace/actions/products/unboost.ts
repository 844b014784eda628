// Stop boosting a product; version 2 returns the product as it now is.
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
  const ref = productRef.call(this, i);
  await client.products.unboost(ref);
  return isV2(this) ? productOutput(await client.products.get(ref)) : { ...ref, boosted: false };
}
