import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { productRef, productRefFields } from '../common';

/** Mark as sold: a sale made elsewhere (a no-op when it is not on sale). */
export const description: INodeProperties[] = [...productRefFields];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const ref = productRef.call(this, i);
  await client.products.markAsSold(ref);
  return { ...ref, sold: true };
}
