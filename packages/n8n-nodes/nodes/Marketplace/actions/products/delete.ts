// Delete a product (idempotent). With the flag, a product with active offers is kept and the item
// fails (409).
import type { INodeProperties } from 'n8n-workflow';
import { productOperation } from '../operation';
import { productFields } from '../productFields';

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

export const execute = productOperation(async function (ref, client, i) {
  await client.products.delete(ref, {
    failIfActiveOffers: this.getNodeParameter('failIfActiveOffers', i, false) as boolean,
  });
  return { ...ref, deleted: true };
});
