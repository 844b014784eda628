// The fields of a listing body, shared by create and full update (PUT). Version 1 keeps its form as it
// was: n8n saves only the values that differ from a default, so a v1 default (department
// "womenswear", currency "GBP"…) must never change under a saved workflow. Version 2 is the typed form:
// what the service requires comes first and is marked required, no default decides for the user, the
// optional part is typed fields (additionalFields.ts), and hints sit where the rules fail most.
import {
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type INodeProperties,
} from 'n8n-workflow';
import { MAX_PICTURES } from '@selling-kit/api-client/core';
import { CONDITIONS, DEPARTMENTS, optionsOf } from '../options';
import { compact, jsonObject } from '../parameters';
import { additionalBody, additionalFields, rawJsonOptions, rawJsonFields } from './additionalFields';
import { CONDITION_OPTIONS, COUNTRY_OPTIONS, CURRENCY_OPTIONS, DEPARTMENT_OPTIONS } from './formOptions';
import {
  brandField,
  countryField,
  currencyField,
  failOnUnknownBrandOption,
  productTypeField,
} from './catalogueFields';
import { label } from './labels';

/** Shows `fields` only on the node versions `versions` names. */
function onVersions(
  versions: NonNullable<INodeProperties['displayOptions']>['show'],
  fields: INodeProperties[],
) {
  return fields.map((field) => ({
    ...field,
    displayOptions: { ...field.displayOptions, show: { ...field.displayOptions?.show, ...versions } },
  }));
}
const V1 = { '@version': [1] };
const V2 = { '@version': [2] };
const V3_ON = { '@version': [{ _cnd: { gte: 3 } }] };

/** The node version item `i` runs with (2 and later speak the typed form, 3 adds the catalogue). */
export const nodeVersion = (ctx: IExecuteFunctions): number => ctx.getNode().typeVersion;

const listingFieldsV1: INodeProperties[] = [
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

/** Version 2: what the service requires, in the order a seller thinks of a listing. */
const requiredFieldsV2: INodeProperties[] = [
  {
    displayName: label('description'),
    name: 'description',
    type: 'string',
    typeOptions: { rows: 3 },
    required: true,
    default: '',
    description: 'What buyers read: at most 1000 characters, no e-mail addresses',
    hint: "At most 5 hashtags. Tags like #vintage or #y2k are fine; a tag naming a brand must name the item's own Brand",
  },
  {
    displayName: label('price_amount'),
    name: 'priceAmount',
    type: 'string',
    required: true,
    default: '',
    placeholder: '25.00',
    description: 'The price in the listing currency',
    hint: 'A decimal with at most 2 decimals and at least 1.00, e.g. 25.00',
  },
  {
    displayName: label('price_currency'),
    name: 'priceCurrency',
    type: 'options',
    options: CURRENCY_OPTIONS,
    required: true,
    default: '',
    description: "The currency of every price of the listing (your shop's currency)",
  },
  {
    displayName: label('pictures'),
    name: 'pictures',
    type: 'fixedCollection',
    placeholder: 'Add Picture',
    typeOptions: { multipleValues: true, sortable: true },
    required: true,
    default: {},
    description:
      'Publicly reachable JPEG, PNG or WebP images (no transparency); the first is the main picture',
    hint: '1 to 8 picture URLs. One row can take a whole list from an expression, e.g. {{ $json.pictures }}',
    options: [
      {
        displayName: 'Picture',
        name: 'picture',
        values: [
          {
            displayName: 'URL',
            name: 'url',
            type: 'string',
            default: '',
            placeholder: 'https://example.com/front.jpg',
            description: 'A picture URL, or an expression giving a list of them',
            hint: '1 to 8 pictures in all. One row can take a whole list from an expression, e.g. {{ $json.pictures }}',
          },
        ],
      },
    ],
  },
  {
    displayName: label('product_type'),
    name: 'productType',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'tshirts',
    description: "The marketplace's product type, e.g. tshirts, jeans, trainers, bags",
    hint: 'It must exist in the chosen Department',
  },
  {
    displayName: label('brand_name'),
    name: 'brandName',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'Nike',
    description: "The item's brand; the marketplace matches the name to its brand list",
    hint: 'Write unbranded if the item has none. A name the marketplace does not recognise is listed as unbranded (the output then carries a notice)',
  },
  {
    displayName: label('condition'),
    name: 'condition',
    type: 'options',
    options: CONDITION_OPTIONS,
    required: true,
    default: '',
  },
  {
    displayName: label('department'),
    name: 'department',
    type: 'options',
    options: DEPARTMENT_OPTIONS,
    required: true,
    default: '',
    description: 'With the product type, the category the listing appears in',
  },
  {
    displayName: label('address.country_code'),
    name: 'countryCode',
    type: 'options',
    options: COUNTRY_OPTIONS,
    required: true,
    default: '',
    description: 'Where the item ships from',
  },
  {
    displayName: label('quantity'),
    name: 'quantity',
    type: 'number',
    typeOptions: { minValue: 1 },
    required: true,
    default: 1,
    description: 'How many identical items the listing sells',
  },
  {
    displayName: label('national_shipping_cost'),
    name: 'nationalShippingCost',
    type: 'string',
    default: '',
    placeholder: '3.50',
    description: 'What a buyer in your country pays for shipping; 0.00 is free shipping',
    hint: 'Every listing needs this or Platform Shipping (Additional Fields), not both. At most 2 decimals',
  },
];

/**
 * Version 3: version 2's form with Department before the Product Type it lists, Product Type and Brand
 * from the catalogue, Currency and Country starting at the shop's, and Options → Fail If Brand Not
 * Recognised (catalogueFields.ts).
 */
const V3_FIELD: Record<string, INodeProperties> = {
  productType: { ...productTypeField(), required: true },
  brandName: { ...brandField, required: true },
  priceCurrency: { ...currencyField(true), required: true },
  countryCode: { ...countryField(true), required: true },
};
const requiredFieldsV3: INodeProperties[] = (() => {
  const fields = requiredFieldsV2.map((f) => V3_FIELD[f.name] ?? f);
  const department = fields.find((f) => f.name === 'department')!;
  const rest = fields.filter((f) => f !== department);
  const at = rest.findIndex((f) => f.name === 'productType');
  return [...rest.slice(0, at), department, ...rest.slice(at)];
})();

/** Version 3's Options: Raw JSON Fields and Fail If Brand Not Recognised. */
export const listingOptionsV3: INodeProperties = {
  ...rawJsonOptions,
  options: [failOnUnknownBrandOption, ...(rawJsonOptions.options as INodeProperties[])],
};

/**
 * The listing fields of every version. `beforeOptional` (create's SKU) goes after the typed form's
 * required fields and before its optional part, and first in version 1 as it always was.
 */
export function listingFieldsWith(beforeOptional: INodeProperties[] = []): INodeProperties[] {
  return [
    ...onVersions(V1, [...beforeOptional, ...listingFieldsV1]),
    ...onVersions(V2, [...requiredFieldsV2, ...beforeOptional, additionalFields, rawJsonOptions]),
    ...onVersions(V3_ON, [...requiredFieldsV3, ...beforeOptional, additionalFields, listingOptionsV3]),
  ];
}

export const listingFields: INodeProperties[] = listingFieldsWith();

/** A field of the typed form by its name, as version 2 defines it (Update's Update Fields reuse them). */
export function formField(name: string): INodeProperties {
  const field = requiredFieldsV2.find((f) => f.name === name);
  if (!field) throw new Error(`the listing form has no field "${name}"`);
  return { ...field };
}

export { money };

/**
 * Picture URLs from whatever the Pictures field holds: its rows, and in any row (or instead of the
 * rows, from an expression) a list — of URLs or of `{ url }` records, as a read listing carries them —
 * or a text of URLs separated by spaces, new lines or commas.
 */
export function pictureUrls(value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) return value.flatMap(pictureUrls);
  if (typeof value === 'object') {
    const o = value as IDataObject;
    return pictureUrls('picture' in o ? o.picture : o.url);
  }
  const text = String(value).trim();
  if (text.startsWith('[')) {
    try {
      return pictureUrls(JSON.parse(text));
    } catch {
      // not JSON: read as text below
    }
  }
  return text.split(/\s+|,\s*(?=https?:\/\/)/).filter(Boolean);
}

/** Money typed as a number by an expression (25 or 25.5) travels as the decimal string the API reads. */
const money = (value: unknown): string | undefined =>
  value === undefined || value === null ? undefined : String(value).trim();

function listingBodyV2(this: IExecuteFunctions, i: number): IDataObject {
  const param = (name: string) => this.getNodeParameter(name, i, '') as unknown;
  const text = (name: string) => String(param(name) ?? '').trim();
  const pictures = pictureUrls(param('pictures'));
  if (pictures.length === 0 || pictures.length > MAX_PICTURES)
    throw new NodeOperationError(
      this.getNode(),
      pictures.length === 0
        ? `${label('pictures')}: add at least one picture URL (1 to ${MAX_PICTURES})`
        : `${label('pictures')}: at most ${MAX_PICTURES} pictures, got ${pictures.length}`,
      { itemIndex: i, description: 'Each row takes one URL, or an expression giving a list of URLs' },
    );
  const country = text('countryCode');
  return {
    ...compact({
      description: String(param('description') ?? ''),
      price_amount: money(param('priceAmount')),
      price_currency: text('priceCurrency'),
      quantity: this.getNodeParameter('quantity', i, 1) as number,
      pictures: pictures.map((url) => ({ url })),
      department: text('department'),
      product_type: text('productType'),
      condition: text('condition'),
      brand_name: text('brandName'),
      address: country ? { country_code: country } : undefined,
      national_shipping_cost: money(param('nationalShippingCost')),
    }),
    ...additionalBody.call(this, i),
    ...rawJsonFields.call(this, i),
  };
}

/** Version 1: the request body from the fields of item `i`. */
function listingBodyV1(this: IExecuteFunctions, i: number): IDataObject {
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

/** The request body from the fields of item `i`, as its node version lays them out. */
export function listingBody(this: IExecuteFunctions, i: number): IDataObject {
  return nodeVersion(this) >= 2 ? listingBodyV2.call(this, i) : listingBodyV1.call(this, i);
}
