// Full update (PUT) of a product: every field is sent, and what is left out is cleared; by SKU it
// creates the product when the SKU is new. Version 3's "Replace (All Fields)", and "Update" before
// version 3. From version 2 it returns the product as it now is (read back by its ID), with its URL
// and status, and says when the brand typed was not recognised (as Create does); version 3 checks the
// brand first, fills in the shop's currency and country, and suggests product types.
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import type { ProductPutRequest } from '@selling-kit/api-client/client';
import { productOperation } from '../operation';
import { isV2 } from '../parameters';
import { productFields } from '../productFields';
import { listingBody, listingFields, nodeVersion } from './listingFields';
import { brandNotice, explainBrandRefusal } from './brand';
import { explainProductType } from './catalogue';
import { productOutput } from './output';
import { prepareListing } from './prepareListing';

export const description: INodeProperties[] = [...productFields, ...listingFields];

export const execute = productOperation(async function (ref, client, i) {
  let body = { attributes: {}, ...listingBody.call(this, i) } as unknown as ProductPutRequest;
  if (!isV2(this)) return (await client.products.update(ref, body)) as unknown as IDataObject;
  if (nodeVersion(this) >= 3)
    body = (await prepareListing(this, i, client, body as unknown as IDataObject)) as ProductPutRequest;
  const typedBrand = String(body.brand_name ?? '');
  const written = await client.products
    .update(ref, body)
    .catch((error: unknown) =>
      Promise.reject(
        explainProductType(explainBrandRefusal(error, typedBrand), body.product_type, body.department),
      ),
    );
  const record = productOutput(await client.products.get({ productId: written.product_id }));
  const notice = brandNotice(typedBrand, record.brand);
  return notice ? { ...record, notice } : record;
});
