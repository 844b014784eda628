// The listing form's optional part (version 2): "Additional Fields" as typed fields — discount, size or
// sizes, colour, style, age, source, platform shipping, attributes… — and "Options" → "Raw JSON Fields",
// an advanced override merged last. Turns both into wire fields.
import {
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type INodeProperties,
} from 'n8n-workflow';
import { labelledOptions } from '../options';
import { AGE_OPTIONS, COLOUR_OPTIONS, SOURCE_OPTIONS, STYLE_OPTIONS } from './formOptions';
import { label } from './labels';

export const additionalFields: INodeProperties = {
  displayName: 'Additional Fields',
  name: 'extraFields',
  type: 'collection',
  placeholder: 'Add Field',
  default: {},
  options: [
    {
      displayName: 'Age',
      name: 'age',
      type: 'options',
      options: AGE_OPTIONS,
      default: '',
      description: 'The era the item is from',
    },
    {
      displayName: label('attributes'),
      name: 'attributes',
      type: 'fixedCollection',
      placeholder: 'Add Attribute',
      typeOptions: { multipleValues: true },
      default: {},
      description: 'Optional attributes of the product type, e.g. material: cotton',
      options: [
        {
          displayName: 'Attribute',
          name: 'attribute',
          values: [
            {
              displayName: 'Name',
              name: 'name',
              type: 'string',
              default: '',
              placeholder: 'material',
            },
            {
              displayName: 'Values',
              name: 'values',
              type: 'string',
              default: '',
              placeholder: 'cotton, linen',
              description: 'One or more values, comma-separated',
            },
          ],
        },
      ],
    },
    {
      displayName: label('is_boosted'),
      name: 'is_boosted',
      type: 'boolean',
      default: false,
      description: 'Whether to boost the listing',
    },
    {
      displayName: label('colour'),
      name: 'colour',
      type: 'multiOptions',
      options: COLOUR_OPTIONS,
      default: [],
      hint: 'At most 2 colours',
    },
    {
      displayName: label('discount_price'),
      name: 'discount_price',
      type: 'string',
      default: '',
      placeholder: '20.00',
      description: 'The reduced price buyers pay; the original price stays visible, struck through',
      hint: 'Lower than Price, with at most 2 decimals (e.g. 20.00)',
    },
    {
      displayName: label('international_shipping_cost'),
      name: 'international_shipping_cost',
      type: 'string',
      default: '',
      placeholder: '12.00',
      description: 'Only when you ship abroad; in the listing currency',
      hint: 'At most 2 decimals (e.g. 12.00)',
    },
    {
      displayName: label('depop_shipping'),
      name: 'platformShipping',
      type: 'fixedCollection',
      placeholder: 'Set Platform Shipping',
      default: {},
      description:
        'Platform-managed shipping instead of a national shipping cost; the IDs come from Shipping → Get Addresses and Get Providers',
      options: [
        {
          displayName: 'Shipping',
          name: 'shipping',
          values: [
            {
              displayName: 'Address Name or ID',
              name: 'addressId',
              type: 'options',
              typeOptions: { loadOptionsMethod: 'getAddresses' },
              default: '',
              description:
                'One of your seller addresses. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
            },
            {
              displayName: 'Paid By',
              name: 'payer',
              type: 'options',
              options: labelledOptions({ buyer: 'Buyer', seller: 'Seller' }),
              default: 'buyer',
            },
            {
              displayName: 'Parcel Size',
              name: 'parcelSizeId',
              type: 'string',
              default: '',
              placeholder: 'SMALL',
              description:
                "A parcel size the provider offers (Shipping → Get Providers, the parcel size's ID)",
            },
            {
              displayName: 'Provider Name or ID',
              name: 'providerId',
              type: 'options',
              typeOptions: { loadOptionsMethod: 'getShippingProviders' },
              default: '',
              description:
                'A provider available from that address (with its parcel sizes). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
            },
          ],
        },
      ],
    },
    {
      displayName: label('size_id'),
      name: 'size_id',
      type: 'number',
      default: 0,
      description: 'The size within the size set (one-size listing)',
      hint: 'Needs a Size Set ID; cannot be changed once the listing exists',
    },
    {
      displayName: label('size_set_id'),
      name: 'size_set_id',
      type: 'number',
      default: 0,
      description:
        'The size chart of the product type (e.g. 44 = GB tops); a size ID is only valid within its set',
    },
    {
      displayName: label('variants'),
      name: 'variants',
      type: 'fixedCollection',
      placeholder: 'Add Size',
      typeOptions: { multipleValues: true },
      default: {},
      description: 'Several sizes in one listing, each with its own quantity (instead of Size ID)',
      hint: 'At least two sizes from the Size Set ID; a one-size listing cannot become multi-size later',
      options: [
        {
          displayName: 'Size',
          name: 'variant',
          values: [
            {
              displayName: 'Quantity',
              name: 'quantity',
              type: 'number',
              typeOptions: { minValue: 1 },
              default: 1,
            },
            { displayName: 'Size ID', name: 'sizeId', type: 'number', default: 0 },
          ],
        },
      ],
    },
    {
      displayName: label('source'),
      name: 'source',
      type: 'multiOptions',
      options: SOURCE_OPTIONS,
      default: [],
      hint: 'At most 2',
    },
    {
      displayName: label('style'),
      name: 'style',
      type: 'multiOptions',
      options: STYLE_OPTIONS,
      default: [],
      hint: 'At most 3 styles',
    },
  ],
};

export const rawJsonOptions: INodeProperties = {
  displayName: 'Options',
  name: 'options',
  type: 'collection',
  placeholder: 'Add Option',
  default: {},
  options: [
    {
      displayName: 'Raw JSON Fields',
      name: 'rawJson',
      type: 'json',
      default: '{}',
      description:
        'Advanced: wire fields as the API names them, merged last over every field above (e.g. {"auto_send_offer_price": "20.00"})',
    },
  ],
};

type Collection = Record<string, IDataObject[] | undefined>;

/** The wire fields of item `i`'s Additional Fields; untouched entries send nothing. */
export function additionalBody(this: IExecuteFunctions, i: number): IDataObject {
  return additionalWireFields(this.getNodeParameter('extraFields', i, {}) as IDataObject);
}

/** The wire fields of a collection holding Additional Fields' entries (also Update's Update Fields). */
export function additionalWireFields(extra: IDataObject): IDataObject {
  const body: IDataObject = {};
  for (const key of ['discount_price', 'international_shipping_cost'] as const) {
    const value = String(extra[key] ?? '').trim();
    if (value) body[key] = value;
  }
  if (typeof extra.is_boosted === 'boolean') body.is_boosted = extra.is_boosted;
  for (const key of ['colour', 'style', 'source'] as const) {
    const values = extra[key];
    if (Array.isArray(values) && values.length) body[key] = values;
  }
  if (typeof extra.age === 'string' && extra.age) body.age = [extra.age];
  for (const key of ['size_set_id', 'size_id'] as const)
    if (extra[key] !== undefined && extra[key] !== '') body[key] = Number(extra[key]);
  const variants = (extra.variants as Collection | undefined)?.variant ?? [];
  if (variants.length)
    body.variants = variants.map((v) => ({ size_id: Number(v.sizeId), quantity: Number(v.quantity) }));
  const shipping = (extra.platformShipping as { shipping?: IDataObject } | undefined)?.shipping;
  if (shipping)
    body.depop_shipping = {
      address_id: Number(shipping.addressId),
      shipping_provider_id: String(shipping.providerId ?? '').trim(),
      parcel_size_id: String(shipping.parcelSizeId ?? '').trim(),
      payer: shipping.payer,
    };
  const attributes = (extra.attributes as Collection | undefined)?.attribute ?? [];
  if (attributes.length)
    body.attributes = Object.fromEntries(
      attributes
        .filter((a) => String(a.name ?? '').trim())
        .map((a) => [
          String(a.name).trim(),
          (Array.isArray(a.values) ? a.values.map(String) : String(a.values ?? '').split(','))
            .map((v) => v.trim())
            .filter(Boolean),
        ]),
    );
  return body;
}

/** Options → Raw JSON Fields of item `i`: an object, or a NodeOperationError naming the field. */
export function rawJsonFields(this: IExecuteFunctions, i: number): IDataObject {
  const raw = (this.getNodeParameter('options', i, {}) as IDataObject).rawJson;
  if (raw === undefined || raw === '') return {};
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return raw as IDataObject;
  try {
    const parsed = JSON.parse(String(raw)) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as IDataObject;
  } catch {
    // reported below
  }
  throw new NodeOperationError(this.getNode(), 'Raw JSON Fields (Options) must be a JSON object', {
    itemIndex: i,
    description: 'e.g. {"auto_send_offer_price": "20.00"}; wire names as the API documents them',
  });
}
