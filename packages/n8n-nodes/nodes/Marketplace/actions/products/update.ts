// Full update (PUT) of a product; by SKU it creates the product when the SKU is new. Version 2
// returns the product as it now is (read back by its ID), with its URL and status, and says when the
// brand typed was not recognised (as Create does).
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import type { ProductPutRequest } from '@selling-kit/api-client/client';
import { isV2, productFields, productOperation } from '../common';
import { listingBody, listingFields } from './listingFields';
import { brandNotice, explainBrandRefusal } from './brand';
import { productOutput } from './output';

export const description: INodeProperties[] = [...productFields, ...listingFields];

export const execute = productOperation(async function (ref, client, i) {
  const body = { attributes: {}, ...listingBody.call(this, i) } as unknown as ProductPutRequest;
  if (!isV2(this)) return (await client.products.update(ref, body)) as unknown as IDataObject;
  const typedBrand = String(body.brand_name ?? '');
  const written = await client.products
    .update(ref, body)
    .catch((error: unknown) => Promise.reject(explainBrandRefusal(error, typedBrand)));
  const record = productOutput(await client.products.get({ productId: written.product_id }));
  const notice = brandNotice(typedBrand, record.brand);
  return notice ? { ...record, notice } : record;
});
