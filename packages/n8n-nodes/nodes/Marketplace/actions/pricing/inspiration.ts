import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { PricingInspirationRequest, SellingClient } from '@selling-kit/api-client/client';
import { NodeOperationError } from 'n8n-workflow';
import { CONDITIONS, DEPARTMENTS, optionsOf } from '../options';
import { isV2, jsonObject } from '../parameters';
import { shopCurrencies } from '../../methods/loadOptions/currencies';

/** A price suggestion and similar sold items for an item you are about to list. */
export const description: INodeProperties[] = [
  { displayName: 'Description', name: 'description', type: 'string', required: true, default: '' },
  { displayName: 'Brand Name', name: 'brandName', type: 'string', required: true, default: '' },
  { displayName: 'Product Type', name: 'productType', type: 'string', required: true, default: '' },
  {
    displayName: 'Department',
    name: 'department',
    type: 'options',
    options: optionsOf(DEPARTMENTS),
    default: 'womenswear',
  },
  {
    displayName: 'Condition',
    name: 'condition',
    type: 'options',
    options: optionsOf(CONDITIONS),
    default: 'used_good',
  },
  { displayName: 'Country', name: 'country', type: 'string', required: true, default: 'GB' },
  {
    displayName: 'Currency',
    name: 'currency',
    type: 'string',
    required: true,
    default: 'GBP',
    displayOptions: { show: { '@version': [1] } },
  },
  {
    displayName: 'Currency Name or ID',
    name: 'currency',
    type: 'options',
    typeOptions: { loadOptionsMethod: 'getCurrencies' },
    default: '',
    description:
      'The shop\'s currency when left empty. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
    displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
  },
  {
    displayName: 'Additional Fields (JSON)',
    name: 'additionalFields',
    type: 'json',
    default: '{}',
    description: 'Optional wire fields: size_set_id, size_id, colour, style, source',
  },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const get = (name: string) => this.getNodeParameter(name, i) as string;
  let currency = String(this.getNodeParameter('currency', i, '') ?? '').trim();
  if (!currency && isV2(this)) {
    currency = (await shopCurrencies(client))[0] ?? '';
    if (!currency)
      throw new NodeOperationError(
        this.getNode(),
        'Currency: the shop has no products to read its currency from; choose one',
        { itemIndex: i },
      );
  }
  const body = {
    description: get('description'),
    brand_name: get('brandName'),
    product_type: get('productType'),
    department: get('department'),
    condition: get('condition'),
    country: get('country'),
    currency,
    ...jsonObject.call(this, 'additionalFields', 'Additional Fields (JSON)', i),
  } as PricingInspirationRequest;
  return (await client.pricing.inspiration(body)) as unknown as IDataObject;
}
