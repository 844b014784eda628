// Parameters of the Marketplace node that more than one test file fills in the same way: a used Nike
// tee (listed, or asked a price for), and the Create form (version 2) typed in for a Patagonia jacket,
// also sent as the full PUT of its SKU.

/** What the tests' Nike tee is: a used menswear T-shirt in good condition. */
const NIKE_TEE = {
  department: 'menswear',
  productType: 'tshirts',
  condition: 'used_good',
  brandName: 'Nike',
};

/** The Nike tee's listing fields beyond description, price, quantity and pictures: sent from GB. */
export const nikeTeeListing = { ...NIKE_TEE, countryCode: 'GB', nationalShippingCost: '3.50' };

/** Pricing → Get Inspiration for the Nike tee sold from GB (`currency` '' = the shop's own). */
export const teeInspiration = (currency: string): Record<string, unknown> => ({
  resource: 'pricing',
  operation: 'inspiration',
  description: 'Nike tee',
  ...NIKE_TEE,
  country: 'GB',
  currency,
  additionalFields: '{}',
});

/**
 * The Create form (version 2) as a new user fills it in, typed fields only: a Patagonia jacket at
 * 120.00 GBP. `fields` adds what each test chooses (description, pictures, SKU, additional fields).
 */
export const jacketCreateForm = (fields: Record<string, unknown>): Record<string, unknown> => ({
  resource: 'products',
  operation: 'create',
  priceAmount: '120.00',
  priceCurrency: 'GBP',
  productType: 'jackets',
  brandName: 'Patagonia',
  condition: 'used_excellent',
  department: 'menswear',
  countryCode: 'GB',
  quantity: 1,
  nationalShippingCost: '4.50',
  ...fields,
});

/**
 * A Create form sent instead as the full PUT of its own SKU (`newSku`): `operation` is Update in version
 * 2, Replace (All Fields) from version 3. `fields` changes what the PUT sends.
 */
export const asFullPut = (
  createForm: Record<string, unknown>,
  operation: 'update' | 'replace',
  fields: Record<string, unknown> = {},
): Record<string, unknown> => ({
  ...createForm,
  operation,
  product: { __rl: true, mode: 'sku', value: createForm.newSku },
  ...fields,
});
