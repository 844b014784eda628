import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { ProductPutRequest, SellingClient } from '@selling-kit/api-client/client';
import { productRef, productRefFields } from '../common';
import { listingBody, listingFields } from './listingFields';

/** Full update (PUT) by SKU, product ID or slug; by SKU it creates the listing when the SKU is new. */
export const description: INodeProperties[] = [...productRefFields, ...listingFields];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const ref = productRef.call(this, i);
  const body = { attributes: {}, ...listingBody.call(this, i) } as unknown as ProductPutRequest;
  return (await client.products.update(ref, body)) as unknown as IDataObject;
}
