import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { productRef, productRefFields } from '../common';

/** A manual offer to a user who showed interest (a like), in the product's currency, below its price. */
export const description: INodeProperties[] = [
  ...productRefFields,
  { displayName: 'Recipient User ID', name: 'recipientId', type: 'number', required: true, default: 0 },
  {
    displayName: 'Offer Value',
    name: 'offerValue',
    type: 'number',
    typeOptions: { numberPrecision: 2 },
    required: true,
    default: 0,
  },
  { displayName: 'Currency', name: 'offerCurrency', type: 'string', required: true, default: 'GBP' },
  {
    displayName: 'Size ID',
    name: 'sizeId',
    type: 'number',
    default: 0,
    description: 'Required for a multi-size listing; 0 for none',
  },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const ref = productRef.call(this, i);
  const sizeId = this.getNodeParameter('sizeId', i, 0) as number;
  const offer = {
    offer_recipient_id: this.getNodeParameter('recipientId', i) as number,
    offer_value: this.getNodeParameter('offerValue', i) as number,
    offer_currency: this.getNodeParameter('offerCurrency', i) as string,
    ...(sizeId ? { size_id: sizeId } : {}),
  };
  await client.offers.submit(ref, offer);
  return { ...ref, ...offer, sent: true };
}
