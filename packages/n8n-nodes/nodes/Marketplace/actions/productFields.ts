// The fields that pick a product, spread by every product-scoped operation: version 1's "Find Product
// By" key fields (kept for saved workflows) and, from version 2 on, n8n's resource locator. The rules
// their modes check live with the parsing (productRef.ts), so the form and the run agree.
import type { INodeProperties } from 'n8n-workflow';
import { LISTING_URL_PREFIX } from '@selling-kit/api-client/core';
import { labelledOptions } from './options';
import { PRODUCT_ID_PATTERN, PRODUCT_ID_RULE, PRODUCT_URL_PATTERN, PRODUCT_URL_RULE } from './productRef';

/** Version 1's product key: a "Find Product By" choice and one field per key (kept for saved workflows). */
const productKeyFieldsV1: INodeProperties[] = (
  [
    {
      displayName: 'Find Product By',
      name: 'productKey',
      type: 'options',
      options: labelledOptions({ sku: 'SKU', productId: 'Product ID', slug: 'Slug' }),
      default: 'sku',
    },
    {
      displayName: 'SKU',
      name: 'sku',
      type: 'string',
      required: true,
      default: '',
      displayOptions: { show: { productKey: ['sku'] } },
    },
    {
      displayName: 'Product ID',
      name: 'productId',
      type: 'number',
      required: true,
      default: 0,
      displayOptions: { show: { productKey: ['productId'] } },
    },
    {
      displayName: 'Slug',
      name: 'slug',
      type: 'string',
      required: true,
      default: '',
      displayOptions: { show: { productKey: ['slug'] } },
    },
  ] as INodeProperties[]
).map((field) => ({
  ...field,
  displayOptions: { show: { ...field.displayOptions?.show, '@version': [1] } },
}));

/**
 * The product picker every product-scoped operation uses from version 2 on (n8n's resource locator):
 * From List (a search over the shop's products), By SKU, By ID, By URL (a product URL or its slug).
 */
export const productLocator: INodeProperties = {
  displayName: 'Product',
  name: 'product',
  type: 'resourceLocator',
  default: { mode: 'list', value: '' },
  required: true,
  description: 'The product to act on',
  displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
  modes: [
    {
      displayName: 'From List',
      name: 'list',
      type: 'list',
      placeholder: 'Select a product...',
      typeOptions: { searchListMethod: 'searchProducts', searchable: true },
    },
    {
      displayName: 'By SKU',
      name: 'sku',
      type: 'string',
      placeholder: 'e.g. TEE-BLACK-M',
      hint: 'Your own reference, set when the product was created',
    },
    {
      displayName: 'By ID',
      name: 'id',
      type: 'string',
      placeholder: 'e.g. 7033001',
      validation: [
        {
          type: 'regex',
          properties: { regex: PRODUCT_ID_PATTERN, errorMessage: PRODUCT_ID_RULE },
        },
      ],
    },
    {
      displayName: 'By URL',
      name: 'url',
      type: 'string',
      placeholder: `e.g. ${LISTING_URL_PREFIX}vintage-nike-t-shirt-7033001/`,
      hint: 'The product page, or its slug alone',
      validation: [
        {
          type: 'regex',
          properties: { regex: PRODUCT_URL_PATTERN, errorMessage: PRODUCT_URL_RULE },
        },
      ],
      extractValue: { type: 'regex', regex: PRODUCT_URL_PATTERN },
    },
  ],
};

/** Version 1's key fields and version 2's picker: what a product-scoped operation spreads. */
export const productFields: INodeProperties[] = [...productKeyFieldsV1, productLocator];
