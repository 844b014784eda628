// Full update (PUT) of a product; by SKU it creates the product when the SKU is new. Version 2
// returns the product as it now is (read back by its ID), with its URL and status, and says when the
// brand typed was not recognised (as Create does).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { ProductPutRequest, SellingClient } from '@selling-kit/api-client/client';
import { isV2, productFields, productRef } from '../common';
import { listingBody, listingFields } from './listingFields';
import { brandNotice, explainBrandRefusal } from './brand';
import { productOutput } from './output';

export const description: INodeProperties[] = [...productFields, ...listingFields];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const ref = productRef.call(this, i);
  const body = { attributes: {}, ...listingBody.call(this, i) } as unknown as ProductPutRequest;
  if (!isV2(this)) return (await client.products.update(ref, body)) as unknown as IDataObject;
  const typedBrand = String(body.brand_name ?? '');
  const written = await client.products
    .update(ref, body)
    .catch((error: unknown) => Promise.reject(explainBrandRefusal(error, typedBrand)));
  const record = productOutput(await client.products.get({ productId: written.product_id }));
  const notice = brandNotice(typedBrand, record.brand);
  return notice ? { ...record, notice } : record;
}
