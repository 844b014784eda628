// The one table from wire names to the labels a user sees in the listing form (version 2), and the
// rewriting of the core's rule messages ("discount_price (30.00) must be lower than price_amount
// (25.00)") into the form's words ("Discount Price (30.00) must be lower than Price (25.00)"). The
// form's field definitions and the node's error messages both read their labels from here.

/** Wire name (a dotted path for nested fields) → the form's label. */
const LABELS = {
  address: 'Country',
  'address.country_code': 'Country',
  age: 'Age',
  attributes: 'Attributes',
  auto_negotiate_offer_price: 'Auto-Negotiate Offer Price',
  auto_send_offer_price: 'Auto-Send Offer Price',
  brand: 'Brand',
  brand_name: 'Brand',
  colour: 'Colour',
  condition: 'Condition',
  department: 'Department',
  depop_shipping: 'Platform Shipping',
  'depop_shipping.address_id': 'Platform Shipping › Address ID',
  'depop_shipping.parcel_size_id': 'Platform Shipping › Parcel Size',
  'depop_shipping.payer': 'Platform Shipping › Paid By',
  'depop_shipping.shipping_provider_id': 'Platform Shipping › Provider ID',
  description: 'Description',
  discount_price: 'Discount Price',
  international_shipping_cost: 'International Shipping Cost',
  is_boosted: 'Boost',
  national_shipping_cost: 'National Shipping Cost',
  pictures: 'Pictures',
  price_amount: 'Price',
  price_currency: 'Currency',
  product_type: 'Product Type',
  quantity: 'Quantity',
  size_id: 'Size ID',
  size_set_id: 'Size Set ID',
  sku: 'SKU',
  source: 'Source',
  style: 'Style',
  variants: 'Sizes (Multi-Size)',
} as const;
export type WireField = keyof typeof LABELS;
export const FIELD_LABELS: Readonly<Record<string, string>> = LABELS;

/** The form's label for a wire field (the form's `displayName`s are taken from here). */
export const label = (wire: WireField): string => LABELS[wire];

const humanise = (name: string) =>
  name
    .replace(/[_-]+/g, ' ')
    .replace(/\b\w/g, (c) => c.toUpperCase())
    .replace(/\bId\b/g, 'ID');

/**
 * The label of a field path as the core names it: `discount_price` → "Discount Price",
 * `pictures.2.url` → "Pictures › #3 › URL", an unknown `offer_value` → "Offer Value".
 */
export function labelOf(path: string): string {
  if (FIELD_LABELS[path]) return FIELD_LABELS[path];
  const parts = path.split('.');
  for (let n = parts.length - 1; n > 0; n--) {
    const head = parts.slice(0, n).join('.');
    if (FIELD_LABELS[head])
      return [
        FIELD_LABELS[head],
        ...parts.slice(n).map((p) => (/^\d+$/.test(p) ? `#${Number(p) + 1}` : humanise(p))),
      ].join(' › ');
  }
  return humanise(path);
}

const WIRE_TOKEN = /(?<![\w#"])[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*(?![\w"])/g;

/**
 * A rule message in the form's words: wire names with `_` or `.` become their labels wherever they
 * appear; a plain word (`quantity`, `description`) only where it is the field at fault, so ordinary
 * words in the text stay as they are. Values in quotes are never touched. The first letter is upper
 * case, and "brand_name: is required" reads "Brand is required".
 */
export function labelMessage(message: string, field?: string): string {
  const known = (token: string) => FIELD_LABELS[token.split('.')[0]!] !== undefined;
  let out = message.replace(WIRE_TOKEN, (token) =>
    (/[_.]/.test(token) && known(token)) || token === field ? labelOf(token) : token,
  );
  if (field) {
    const fieldLabel = labelOf(field);
    if (out.startsWith(`${fieldLabel}: is `)) out = `${fieldLabel} is ${out.slice(fieldLabel.length + 5)}`;
  }
  return out.charAt(0).toUpperCase() + out.slice(1);
}
