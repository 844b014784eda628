// The fields of a listing body, shared by create and full update.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { compact, CONDITIONS, DEPARTMENTS, jsonObject, optionsOf } from '../common';

export const listingFields: INodeProperties[] = [
  {
    displayName: 'Description',
    name: 'description',
    type: 'string',
    typeOptions: { rows: 3 },
    required: true,
    default: '',
    description:
      'At most 1000 characters and 5 hashtags; tags like #vintage are fine, a tag naming another brand is refused',
  },
  {
    displayName: 'Price',
    name: 'priceAmount',
    type: 'string',
    required: true,
    default: '',
    placeholder: '25.00',
    description: 'Decimal with at most 2 decimals',
  },
  { displayName: 'Currency', name: 'priceCurrency', type: 'string', required: true, default: 'GBP' },
  { displayName: 'Quantity', name: 'quantity', type: 'number', typeOptions: { minValue: 1 }, default: 1 },
  {
    displayName: 'Picture URLs',
    name: 'pictureUrls',
    type: 'string',
    required: true,
    default: '',
    description: 'One to eight picture URLs, comma-separated',
  },
  {
    displayName: 'Department',
    name: 'department',
    type: 'options',
    options: optionsOf(DEPARTMENTS),
    default: 'womenswear',
  },
  {
    displayName: 'Product Type',
    name: 'productType',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'tshirts',
  },
  {
    displayName: 'Condition',
    name: 'condition',
    type: 'options',
    options: optionsOf(CONDITIONS),
    default: 'used_good',
  },
  { displayName: 'Brand Name', name: 'brandName', type: 'string', default: '' },
  {
    displayName: 'Country Code',
    name: 'countryCode',
    type: 'string',
    default: 'GB',
    description: 'Where the item ships from (ISO 3166-1 alpha-2)',
  },
  {
    displayName: 'National Shipping Cost',
    name: 'nationalShippingCost',
    type: 'string',
    default: '',
    placeholder: '3.50',
    description: 'Leave empty to use platform shipping (set it in Additional Fields as depop_shipping)',
  },
  {
    displayName: 'Additional Fields (JSON)',
    name: 'additionalFields',
    type: 'json',
    default: '{}',
    description:
      'Any other wire fields (colour, size_id, discount_price, depop_shipping, attributes…), merged over the fields above',
  },
];

/** The request body from the fields of item `i`. */
export function listingBody(this: IExecuteFunctions, i: number): IDataObject {
  const get = (name: string) => this.getNodeParameter(name, i, '') as string;
  const pictures = get('pictureUrls')
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean)
    .map((url) => ({ url }));
  return {
    ...compact({
      description: get('description'),
      price_amount: get('priceAmount'),
      price_currency: get('priceCurrency'),
      quantity: this.getNodeParameter('quantity', i, 1) as number,
      pictures: pictures.length ? pictures : undefined,
      department: get('department'),
      product_type: get('productType'),
      condition: get('condition'),
      brand_name: get('brandName'),
      address: get('countryCode') ? { country_code: get('countryCode') } : undefined,
      national_shipping_cost: get('nationalShippingCost'),
    }),
    ...jsonObject.call(this, 'additionalFields', 'Additional Fields (JSON)', i),
  };
}
