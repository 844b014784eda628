// Mark as sold: a sale made elsewhere. Version 2 reads the status first and calls the service only
// for a product on sale (the spec: "only when the listing is completely sold"), so a second run is a
// visible no-op: the product, its status, and `changed: false`.
import type { INodeProperties } from 'n8n-workflow';
import { ProductStatus } from '@selling-kit/api-client/core';
import { productOperation } from '../operation';
import { isV2 } from '../parameters';
import { productFields } from '../productFields';
import { productOutput, statusWord } from './output';

export const description: INodeProperties[] = [...productFields];

export const execute = productOperation(async function (ref, client) {
  if (!isV2(this)) {
    await client.products.markAsSold(ref);
    return { ...ref, sold: true };
  }
  const before = await client.products.get(ref);
  if (before.status !== ProductStatus.enum.STATUS_ONSALE)
    return { ...productOutput(before), changed: false, previous_status: statusWord(before.status) };
  // By ID from here on: the key the item gave may be a SKU or slug, the ID is the product's own.
  const byId = { productId: before.product_id };
  await client.products.markAsSold(byId);
  const after = await client.products.get(byId);
  return {
    ...productOutput(after),
    changed: after.status !== before.status,
    previous_status: statusWord(before.status),
  };
});
