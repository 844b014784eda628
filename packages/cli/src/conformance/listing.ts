// The test listing every probe starts from: valid by every rule the spec states, cheap (one picture, no
// sizes), clearly a test, and adjustable with `--listing <file>` where a staging shop needs other values
// (a product type of its taxonomy, a currency). Probes override one field to break one rule.
import type { ProductCreateRequest, ProductPutRequest } from '@selling-kit/api-client/core';

export interface ListingTemplateInput {
  countryCode: string;
  currency: string;
  pictureUrl: string;
  /** Fields from `--listing <file>`, laid over the defaults. */
  overrides?: Record<string, unknown>;
}

export interface ListingTemplate {
  /** A full write body (POST and PUT: `attributes` included) without the SKU. */
  body: ProductPutRequest;
  /** Two brands for the hashtag probes: the item's own, and another known one. */
  brand: string;
  otherBrand: string;
}

/**
 * SPEC GAP (shop currency): the seller details carry only a country. Ours, for the test listing: the
 * currency of the marketplace in that country (GB → GBP, US → USD, AU → AUD, else EUR); `--currency`
 * or `--listing` override it.
 */
export function currencyOf(countryCode: string): string {
  return ({ GB: 'GBP', US: 'USD', AU: 'AUD' } as Record<string, string>)[countryCode] ?? 'EUR';
}

export function listingTemplate(input: ListingTemplateInput): ListingTemplate {
  const body = {
    address: { country_code: input.countryCode },
    description: 'selling-kit conformance test listing, removed at the end of the run',
    price_currency: input.currency,
    price_amount: '20.00',
    national_shipping_cost: '3.50',
    quantity: 1,
    pictures: [{ url: input.pictureUrl }],
    // A type without sizes, so no size set has to match the shop's taxonomy region.
    department: 'womenswear',
    product_type: 'bags',
    condition: 'used_good',
    brand_name: 'Nike',
    attributes: {},
    ...input.overrides,
  } as ProductPutRequest;
  const brand = String(body.brand_name);
  return { body, brand, otherBrand: brand.toLowerCase() === 'adidas' ? 'Nike' : 'Adidas' };
}

/** The template with a SKU (a POST body), plus per-probe changes; `undefined` values remove a field. */
export function createBody(
  template: ListingTemplate,
  sku: string,
  changes: Record<string, unknown> = {},
): ProductCreateRequest {
  const body: Record<string, unknown> = { ...template.body, sku, ...changes };
  for (const [k, v] of Object.entries(changes)) if (v === undefined) delete body[k];
  return body as ProductCreateRequest;
}

/** The template as a PUT body, plus changes. */
export function putBody(template: ListingTemplate, changes: Record<string, unknown> = {}): ProductPutRequest {
  return { ...template.body, ...changes } as ProductPutRequest;
}
