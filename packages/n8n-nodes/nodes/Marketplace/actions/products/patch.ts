// Partial update (PATCH) of a product on sale: only the fields given change. Version 2 returns the
// product as it now is, with its URL and status.
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import type { PatchProductRequest } from '@selling-kit/api-client/client';
import { productOperation } from '../operation';
import { compact, isV2, jsonObject } from '../parameters';
import { productFields } from '../productFields';
import { productOutput } from './output';

export const description: INodeProperties[] = [
  ...productFields,
  {
    displayName: 'Update Fields',
    name: 'updateFields',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      { displayName: 'Description', name: 'description', type: 'string', default: '' },
      {
        displayName: 'Discount Price',
        name: 'discount_price',
        type: 'string',
        default: '',
        description: 'Below the price',
      },
      { displayName: 'Price', name: 'price_amount', type: 'string', default: '' },
      {
        displayName: 'Quantity',
        name: 'quantity',
        type: 'number',
        default: 1,
        description: '0 sells the product out',
      },
    ],
  },
  {
    displayName: 'Additional Fields (JSON)',
    name: 'additionalFields',
    type: 'json',
    default: '{}',
    description: 'Any other patchable wire fields, merged over Update Fields',
  },
];

export const execute = productOperation(async function (ref, client, i) {
  const body = {
    ...compact(this.getNodeParameter('updateFields', i, {}) as IDataObject),
    ...jsonObject.call(this, 'additionalFields', 'Additional Fields (JSON)', i),
  } as PatchProductRequest;
  await client.products.patch(ref, body);
  if (!isV2(this)) return { ...ref, patched: Object.keys(body) };
  return { ...productOutput(await client.products.get(ref)), patched: Object.keys(body) };
});
