// Version 3's Update → Update Fields: every field of the Create form the API lets change, typed as
// Create types them, each optional (only the fields added are changed). Sizes are not offered — the
// spec: a size cannot be changed on an existing product, nor a one-size product made multi-size.
// Turns the collection into the wire fields it changes.
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { compact } from '../parameters';
import { additionalFields, additionalWireFields } from './additionalFields';
import { brandField, countryField, currencyField, productTypeField } from './catalogueFields';
import { formField, money, pictureUrls } from './listingFields';

/** Additional Fields' entries that can never change on an existing product. */
const IMMUTABLE = new Set(['size_id', 'size_set_id', 'variants']);

const optional = (field: INodeProperties): INodeProperties => {
  const copy = { ...field };
  delete copy.required;
  return copy;
};

const options: INodeProperties[] = [
  formField('description'),
  formField('priceAmount'),
  currencyField(false),
  formField('pictures'),
  formField('department'),
  productTypeField('updateFields.department'),
  brandField,
  formField('condition'),
  countryField(false),
  {
    ...formField('quantity'),
    typeOptions: { minValue: 0 },
    description: 'How many are for sale from now on; 0 sells the product out',
  },
  formField('nationalShippingCost'),
  ...(additionalFields.options as INodeProperties[]).filter((f) => !IMMUTABLE.has(f.name)),
]
  .map(optional)
  .sort((a, b) => a.displayName.localeCompare(b.displayName));

export const updateFieldsCollection: INodeProperties = {
  displayName: 'Update Fields',
  name: 'updateFields',
  type: 'collection',
  placeholder: 'Add Field',
  default: {},
  description: 'Only the fields added here change; the others keep their values',
  options,
};

/** The wire fields an Update Fields value changes (untouched fields send nothing). */
export function updateWireFields(fields: IDataObject): IDataObject {
  const text = (name: string) => (fields[name] === undefined ? undefined : String(fields[name]).trim());
  const pictures = 'pictures' in fields ? pictureUrls(fields.pictures) : [];
  const country = text('countryCode');
  return {
    ...compact({
      description: fields.description === undefined ? undefined : String(fields.description),
      price_amount: money(fields.priceAmount),
      price_currency: text('priceCurrency'),
      quantity: fields.quantity === undefined ? undefined : Number(fields.quantity),
      pictures: pictures.length ? pictures.map((url) => ({ url })) : undefined,
      department: text('department'),
      product_type: text('productType'),
      condition: text('condition'),
      brand_name: text('brandName'),
      address: country ? { country_code: country } : undefined,
      national_shipping_cost: money(fields.nationalShippingCost),
    }),
    ...additionalWireFields(fields),
  };
}
