// A manual offer to a user who showed interest (a like), in the product's currency, below its price.
// Version 2 picks the product with the picker and the currency from the product's own (dynamic
// options), defaulting to it.
import type { INodeProperties } from 'n8n-workflow';
import { DEFAULT_MIN_PERCENT_OFF, OFFER_LIFETIME_MS } from '@selling-kit/api-client/core';
import { productOperation } from '../operation';
import { isV2 } from '../parameters';
import { productFields } from '../productFields';

const V1 = { show: { '@version': [1] } };
const V2 = { show: { '@version': [{ _cnd: { gte: 2 } }] } };

export const description: INodeProperties[] = [
  ...productFields,
  { displayName: 'Recipient User ID', name: 'recipientId', type: 'number', required: true, default: 0 },
  {
    displayName: 'Offer Value',
    name: 'offerValue',
    type: 'number',
    typeOptions: { numberPrecision: 2 },
    required: true,
    default: 0,
    hint:
      `An offer lasts ${OFFER_LIFETIME_MS / 3_600_000} hours, then expires. It must be in the listing's currency and at ` +
      `least ${DEFAULT_MIN_PERCENT_OFF}% below its price; Size ID only for multi-size listings.`,
  },
  {
    displayName: 'Currency',
    name: 'offerCurrency',
    type: 'string',
    required: true,
    default: 'GBP',
    displayOptions: V1,
  },
  {
    displayName: 'Currency Name or ID',
    name: 'offerCurrency',
    type: 'options',
    typeOptions: { loadOptionsMethod: 'getCurrencies', loadOptionsDependsOn: ['product.value'] },
    default: '',
    description:
      'The product\'s own currency when left empty (an offer must be in it). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
    displayOptions: V2,
  },
  {
    displayName: 'Size ID',
    name: 'sizeId',
    type: 'number',
    default: 0,
    description: 'Required for a multi-size product; 0 for none',
  },
];

export const execute = productOperation(async function (ref, client, i) {
  const sizeId = this.getNodeParameter('sizeId', i, 0) as number;
  let currency = String(this.getNodeParameter('offerCurrency', i, '') ?? '').trim();
  if (!currency && isV2(this)) currency = (await client.products.get(ref)).price_currency;
  const offer = {
    offer_recipient_id: this.getNodeParameter('recipientId', i) as number,
    offer_value: this.getNodeParameter('offerValue', i) as number,
    offer_currency: currency,
    ...(sizeId ? { size_id: sizeId } : {}),
  };
  await client.offers.submit(ref, offer);
  return { ...ref, ...offer, sent: true };
});
