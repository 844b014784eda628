import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { productRef, productRefFields } from '../common';

/** Boost the listing (PATCH is_boosted). */
export const description: INodeProperties[] = [...productRefFields];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const ref = productRef.call(this, i);
  await client.products.boost(ref);
  return { ...ref, boosted: true };
}
