// Delete a product (idempotent). With the flag, a product with active offers is kept and the item
// fails (409).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { productFields, productRef } from '../common';

export const description: INodeProperties[] = [
  ...productFields,
  {
    displayName: 'Fail If Active Offers',
    name: 'failIfActiveOffers',
    type: 'boolean',
    default: false,
    description: 'Whether to refuse the delete while the product has active offers',
  },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const ref = productRef.call(this, i);
  await client.products.delete(ref, {
    failIfActiveOffers: this.getNodeParameter('failIfActiveOffers', i, false) as boolean,
  });
  return { ...ref, deleted: true };
}
