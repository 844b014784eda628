// Pricing inspiration: a deterministic price prediction from the product type, brand, condition,
// department and source, plus comparable items sold in the simulated world.
//
// SPEC GAP (prediction formula), all in cents of the request's currency:
//   raw      = BASE[product_type] × BRAND[brand] × CONDITION[condition] × DEPARTMENT[department]
//              × Π SOURCE[source] × (1.25 when the currency is USD)
//   balanced = raw rounded to the nearest 0.50, at least 1.00
//   lower    = balanced × 0.75 rounded to a cent, at least 1.00
//   upper    = balanced × 1.30 rounded to a cent
//   prediction (deprecated upstream) = balanced
// Product types and brands are matched case-insensitively ignoring punctuation ("T-Shirts" = "tshirts",
// "Levi's" = "levis"). An unknown product type uses the default base of 15.00.
// SPEC GAP (no prediction): 404 price_prediction_not_available when the brand is "unbranded"/"other",
// or neither in the brand table below nor the brand of any product in the simulated world.
// unsupported_country follows the seller's country (spec: "Seller's country unsupported for the
// operation"), listing the supported ones. SPEC GAP (request `country`): the public reference's request
// names a country; it picks the market when it is a supported one, otherwise the seller's market is used
// (a request field never refuses a supported seller nor admits an unsupported one).
// SPEC GAP (currency): the currency must be the market's (GB → GBP, US → USD), else 422 validation.
// similar_sold_items: up to 10 items sold in the world (through orders, or marked as sold) with the
// same brand, product type and currency, newest first; may be empty.
import type { PricingInspirationRequest, PricingInspirationResponse } from '@selling-kit/api-client/core';
import { PRICING_COUNTRIES } from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { ProductRecord, SellerState, World } from '../state.ts';
import { formatCents, toCents } from './money.ts';

export const PRICING_CURRENCY: Readonly<Record<(typeof PRICING_COUNTRIES)[number], string>> = {
  GB: 'GBP',
  US: 'USD',
};

export const normaliseKey = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, '');

const DEFAULT_BASE_CENTS = 1500;
export const BASE_PRICE_CENTS: Readonly<Record<string, number>> = {
  tshirts: 1200,
  shirts: 1600,
  tops: 1200,
  blouses: 1400,
  hoodies: 2400,
  sweatshirts: 2200,
  jumpers: 2200,
  sweaters: 2200,
  cardigans: 2000,
  jeans: 2500,
  trousers: 2000,
  shorts: 1400,
  skirts: 1600,
  dresses: 2200,
  coats: 4500,
  jackets: 3800,
  suits: 4500,
  sneakers: 4000,
  trainers: 4000,
  boots: 4500,
  shoes: 3500,
  bags: 3000,
  hats: 1200,
  sunglasses: 1500,
  jewellery: 1500,
  accessories: 1200,
};

export const BRAND_FACTOR: Readonly<Record<string, number>> = {
  nike: 1.3,
  adidas: 1.2,
  levis: 1.3,
  carhartt: 1.5,
  ralphlauren: 1.6,
  stoneisland: 3.5,
  patagonia: 1.8,
  thenorthface: 1.8,
  zara: 0.9,
  hm: 0.6,
  asos: 0.6,
  primark: 0.4,
  topshop: 0.8,
  urbanoutfitters: 0.9,
  reformation: 2.0,
  ganni: 2.2,
  acnestudios: 3.0,
  burberry: 4.0,
  gucci: 6.0,
  prada: 5.5,
  dickies: 1.2,
  champion: 1.0,
  tommyhilfiger: 1.3,
  drmartens: 1.8,
  converse: 1.0,
  vans: 1.0,
  newbalance: 1.3,
  stussy: 1.6,
  supreme: 2.5,
  arcteryx: 2.5,
  uniqlo: 0.8,
  cos: 1.1,
  mango: 0.8,
};

export const CONDITION_FACTOR: Readonly<Record<string, number>> = {
  brand_new: 1.0,
  used_like_new: 0.85,
  used_excellent: 0.75,
  used_good: 0.6,
  used_fair: 0.45,
};

const DEPARTMENT_FACTOR: Readonly<Record<string, number>> = { kidswear: 0.6 };
const SOURCE_FACTOR: Readonly<Record<string, number>> = {
  vintage: 1.15,
  designer: 1.5,
  deadstock: 1.1,
  handmade: 1.1,
};
const USD_FACTOR = 1.25;
const NO_BRAND = new Set(['unbranded', 'other', 'nobrand', '']);
const SIMILAR_MAX = 10;

function worldBrands(world: World): Set<string> {
  const brands = new Set<string>();
  for (const seller of world.sellers.values())
    for (const p of seller.products.values()) brands.add(normaliseKey(p.brand));
  return brands;
}

export function predictPriceCents(req: PricingInspirationRequest, brandFactor: number): number {
  const base = BASE_PRICE_CENTS[normaliseKey(req.product_type)] ?? DEFAULT_BASE_CENTS;
  let raw = base * brandFactor * (CONDITION_FACTOR[req.condition] ?? 1);
  raw *= DEPARTMENT_FACTOR[req.department.toLowerCase()] ?? 1;
  for (const source of new Set(req.source ?? [])) raw *= SOURCE_FACTOR[source] ?? 1;
  if (req.currency === 'USD') raw *= USD_FACTOR;
  return Math.max(100, Math.round(raw / 50) * 50);
}

type SimilarItem = PricingInspirationResponse['similar_sold_items'][number];

function similarSoldItems(world: World, req: PricingInspirationRequest): SimilarItem[] {
  const brand = normaliseKey(req.brand_name);
  const type = normaliseKey(req.product_type);
  const matches = (p: ProductRecord | undefined): p is ProductRecord =>
    !!p &&
    p.pictures.length > 0 &&
    normaliseKey(p.brand) === brand &&
    typeof p.fields.product_type === 'string' &&
    normaliseKey(p.fields.product_type) === type;
  const found: { at: number; item: SimilarItem }[] = [];
  const item = (p: ProductRecord, cents: number, currency: string): SimilarItem => ({
    picture: { url: p.pictures[0]!.url, height: p.pictures[0]!.height, width: p.pictures[0]!.width },
    sold_price_amount: formatCents(cents),
    sold_price_currency: currency,
    condition: typeof p.fields.condition === 'string' ? p.fields.condition : 'used_good',
    brand_name: p.brand,
  });
  for (const seller of world.sellers.values()) {
    const ordered = new Set<number>();
    for (const order of seller.orders.values()) {
      for (const li of order.lineItems) {
        ordered.add(li.product_id);
        const product = seller.products.get(li.product_id);
        if (order.currency !== req.currency || !matches(product)) continue;
        found.push({ at: order.createdAt, item: item(product, toCents(li.sold_price) ?? 0, order.currency) });
      }
    }
    for (const product of seller.products.values()) {
      // Sold elsewhere (marked as sold): the listing's current price stands for the sold price.
      if (product.state !== 'sold' && product.previousState !== 'sold') continue;
      if (ordered.has(product.productId) || !matches(product)) continue;
      if (product.fields.price_currency !== req.currency) continue;
      const price = toCents(product.fields.price_amount) ?? 0;
      const discount = toCents(product.fields.discount_price);
      const cents = discount !== null && discount > 0 && discount < price ? discount : price;
      found.push({ at: product.updatedAt, item: item(product, cents, req.currency) });
    }
  }
  return found
    .sort((a, b) => b.at - a.at)
    .slice(0, SIMILAR_MAX)
    .map((f) => f.item);
}

type PricingCountry = (typeof PRICING_COUNTRIES)[number];
const isPricingCountry = (code: string): code is PricingCountry =>
  (PRICING_COUNTRIES as readonly string[]).includes(code);

export function pricingInspiration(
  world: World,
  seller: SellerState,
  req: PricingInspirationRequest,
): PricingInspirationResponse {
  const sellerCountry = seller.countryCode.toUpperCase();
  if (!isPricingCountry(sellerCountry))
    throw apiError(
      'unsupported_country',
      `pricing inspiration is not available to sellers in ${sellerCountry}; supported countries: ${PRICING_COUNTRIES.join(', ')}`,
    );
  const asked = req.country.toUpperCase();
  const country: PricingCountry = isPricingCountry(asked) ? asked : sellerCountry;
  const expected = PRICING_CURRENCY[country];
  if (req.currency !== expected)
    throw apiError(
      'validation',
      `currency must be ${expected} for country ${country}, got "${req.currency}"`,
    );
  const brand = normaliseKey(req.brand_name);
  if (NO_BRAND.has(brand))
    throw apiError(
      'price_prediction_not_available',
      'no price prediction is available for unbranded items: give the brand_name',
    );
  const factor = BRAND_FACTOR[brand] ?? (worldBrands(world).has(brand) ? 1 : undefined);
  if (factor === undefined)
    throw apiError(
      'price_prediction_not_available',
      `no price prediction is available for brand "${req.brand_name}"`,
    );
  const balanced = predictPriceCents({ ...req, currency: expected }, factor);
  return {
    price_prediction: {
      balanced: formatCents(balanced),
      prediction: formatCents(balanced),
      upper_bound: formatCents(Math.round(balanced * 1.3)),
      lower_bound: formatCents(Math.max(100, Math.round(balanced * 0.75))),
    },
    similar_sold_items: similarSoldItems(world, { ...req, currency: expected }),
  };
}
