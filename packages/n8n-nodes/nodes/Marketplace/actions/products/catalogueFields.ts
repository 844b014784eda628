// Version 3's catalogue fields of the listing form: Product Type and Brand as lists from the client
// core's catalogue (Product Type depends on the Department, as WooCommerce's categories depend on the
// store), Currency and Country starting at the shop's own, and the Options switch that makes an
// unrecognised brand fail the item. Create and Replace use them as they are; Update's Update Fields
// takes them with `dependsOn` pointing inside its collection.
import type { INodeProperties } from 'n8n-workflow';
import { FAIL_ON_UNKNOWN_BRAND } from './catalogue';
import { COUNTRY_OPTIONS, CURRENCY_OPTIONS, SHOP_COUNTRY_OPTION, SHOP_CURRENCY_OPTION } from './formOptions';
import { label } from './labels';

// Descriptions and defaults are literals: n8n's lint reads them from the source.
/** Product Type: the types of the Department chosen in `departmentPath` (every type before one is). */
export const productTypeField = (departmentPath = 'department'): INodeProperties => ({
  displayName: `${label('product_type')} Name or ID`,
  name: 'productType',
  type: 'options',
  typeOptions: { loadOptionsMethod: 'getProductTypes', loadOptionsDependsOn: [departmentPath] },
  default: '',
  description:
    'The marketplace\'s product type; the list shows the chosen Department\'s. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
});

/** Brand: the brands the marketplace recognises, and Unbranded. */
export const brandField: INodeProperties = {
  displayName: `${label('brand_name')} Name or ID`,
  name: 'brandName',
  type: 'options',
  typeOptions: { loadOptionsMethod: 'getBrands' },
  default: '',
  description:
    'The item\'s brand, or Unbranded. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
  hint: 'A brand given by an expression must be one the marketplace recognises, or the item fails (Options → Fail If Brand Not Recognised)',
};

/** Currency, starting at the shop's own (Create, Replace) or with no default (Update Fields). */
export const currencyField = (withShopDefault: boolean): INodeProperties =>
  withShopDefault
    ? {
        displayName: label('price_currency'),
        name: 'priceCurrency',
        type: 'options',
        options: [SHOP_CURRENCY_OPTION, ...CURRENCY_OPTIONS],
        default: 'shop',
        description: 'The currency of every price of the listing',
      }
    : {
        displayName: label('price_currency'),
        name: 'priceCurrency',
        type: 'options',
        options: CURRENCY_OPTIONS,
        default: '',
        description: 'The currency of every price of the listing',
      };

/** Country, starting at the shop's own (Create, Replace) or with no default (Update Fields). */
export const countryField = (withShopDefault: boolean): INodeProperties =>
  withShopDefault
    ? {
        displayName: label('address.country_code'),
        name: 'countryCode',
        type: 'options',
        options: [SHOP_COUNTRY_OPTION, ...COUNTRY_OPTIONS],
        default: 'shop',
        description: 'Where the item ships from',
      }
    : {
        displayName: label('address.country_code'),
        name: 'countryCode',
        type: 'options',
        options: COUNTRY_OPTIONS,
        default: '',
        description: 'Where the item ships from',
      };

/** Options → Fail If Brand Not Recognised (on unless turned off). */
export const failOnUnknownBrandOption: INodeProperties = {
  displayName: 'Fail If Brand Not Recognised',
  name: FAIL_ON_UNKNOWN_BRAND,
  type: 'boolean',
  default: true, // FAIL_ON_UNKNOWN_BRAND_DEFAULT (a literal for n8n's lint)
  description:
    'Whether a brand the marketplace does not recognise fails the item before anything is sent (on by default); off, it is sent as typed and the marketplace lists the item as unbranded',
};
