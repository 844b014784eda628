import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { PatchProductRequest } from '@selling-kit/api-client/client';
import { productOperation } from '../operation';
import { compact } from '../parameters';
import { productFields } from '../productFields';

/** Automatic offers and the discount price of a product, in one PATCH. */
export const description: INodeProperties[] = [
  ...productFields,
  {
    displayName: 'Prices',
    name: 'prices',
    type: 'collection',
    placeholder: 'Add Price',
    default: {},
    options: [
      {
        displayName: 'Auto-Negotiate Offer Price',
        name: 'auto_negotiate_offer_price',
        type: 'string',
        default: '',
        description: 'Offers at or above it are accepted, lower ones countered with it',
      },
      {
        displayName: 'Auto-Send Offer Price',
        name: 'auto_send_offer_price',
        type: 'string',
        default: '',
        description: 'Sent automatically to users who liked the item',
      },
      {
        displayName: 'Discount Price',
        name: 'discount_price',
        type: 'string',
        default: '',
        description: 'Shown below the struck-through price',
      },
    ],
  },
];

export const execute = productOperation(async function (ref, client, i) {
  const prices = compact(this.getNodeParameter('prices', i, {}) as IDataObject);
  if (Object.keys(prices).length === 0)
    throw new NodeOperationError(this.getNode(), 'Prices: add at least one price', { itemIndex: i });
  await client.products.patch(ref, prices as PatchProductRequest);
  return { ...ref, ...prices };
});
