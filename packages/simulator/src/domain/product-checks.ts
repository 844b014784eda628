// The checks a listing write passes before anything changes, in the service's order: scopes for
// auto-offer prices, the seller's onboarding and country, the core's stateless rules (`checkProductWrite`
// & co., shared with the client's local checks so the two cannot drift apart), variants, then the
// catalogue (department, brand, sizes, hashtags) and shipping (addresses, providers, parcel sizes).
// Also the state guards of a change (banned, not on sale).
import {
  checkProductWrite,
  checkHashtags,
  LISTING_COUNTRIES,
  type RuleViolation,
} from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { SimulatorConfig } from '../config.ts';
import type { Principal, ProductRecord, SellerState } from '../state.ts';
import { brandById, BRANDS, matchBrand, PRODUCT_TYPES, SIZE_SETS } from './catalog.ts';
import { shippingProvidersForAddress } from './shipping.ts';

export type Body = Record<string, unknown>;

/** Supported seller countries for listing (SPEC GAP: the spec names none; the public reference's markets). */
/** The countries a seller may list from (core LISTING_MARKETS). */
export const SUPPORTED_COUNTRIES: readonly string[] = LISTING_COUNTRIES;

/** Answers a core rule violation with its own code and message. */
export function fail(v: RuleViolation): never {
  throw apiError(v.code, v.message);
}

/** Auto-offer prices need `offers_write` on top of `products_write` (public reference). */
export function requireOffersWriteFor(body: Body, principal: Principal | undefined): void {
  const wantsOffers =
    body.auto_send_offer_price !== undefined || body.auto_negotiate_offer_price !== undefined;
  if (wantsOffers && principal && !principal.scopes.has('offers_write')) {
    throw apiError(
      'insufficient_scope',
      'missing required scope(s): offers_write (needed to set auto_send_offer_price or auto_negotiate_offer_price)',
    );
  }
}

/**
 * Listing writes (create, PUT, PATCH, manual offers) need an onboarded seller. SPEC GAP (which writes):
 * delete and mark-as-sold stay allowed, so a seller can always take a listing down.
 */
export function requireOnboardedSeller(seller: SellerState): void {
  if (seller.profile.onboardingIncomplete) {
    throw apiError(
      'seller_onboarding_incomplete',
      'the seller has not completed onboarding; do not retry until they have',
    );
  }
}

function requireWritableSeller(seller: SellerState): void {
  requireOnboardedSeller(seller);
  if (seller.profile.unsupportedCountry || !SUPPORTED_COUNTRIES.includes(seller.countryCode)) {
    throw apiError(
      'unsupported_country',
      `the seller's country ${seller.countryCode} is not supported for listings; supported countries: ${SUPPORTED_COUNTRIES.join(', ')}`,
    );
  }
}

/** Category, brand, size and shipping checks that need the catalogue or the seller's addresses. */
function checkCatalogueAndShipping(seller: SellerState, body: Body, brand: string): void {
  if (body.category_id !== undefined) {
    // SPEC GAP (legacy categories): a legacy `category_id` is refused; remap it to product_type + department.
    throw apiError(
      'invalid_department',
      'legacy category ids are not accepted: remap category_id to the current product_type and department',
    );
  }
  const type = PRODUCT_TYPES[String(body.product_type)];
  if (!type || !type.departments.includes(body.department as never)) {
    throw apiError(
      'invalid_department',
      `the category could not be resolved: product_type "${String(body.product_type)}" does not exist in department "${String(body.department)}"`,
    );
  }
  if (body.brand_id !== undefined && !brandById(Number(body.brand_id))) {
    throw apiError('invalid_brand', `brand_id ${String(body.brand_id)} is not a valid brand`);
  }
  checkHashtags(String(body.description), brand, BRANDS).forEach(fail);
  const sizeIds = sizeIdsOf(body);
  if (type.sizeSets.length === 0) {
    if (body.size_set_id !== undefined || sizeIds.length > 0)
      throw apiError(
        'invalid_size',
        `product_type "${String(body.product_type)}" has no sizes; omit size_set_id and size_id`,
      );
  } else if (sizeIds.length > 0 || body.size_set_id !== undefined) {
    const set = SIZE_SETS[Number(body.size_set_id)];
    if (!set || !type.sizeSets.includes(Number(body.size_set_id))) {
      throw apiError(
        'invalid_size',
        `size_set_id ${String(body.size_set_id)} is not valid for product_type "${String(body.product_type)}" (valid: ${type.sizeSets.join(', ')})`,
      );
    }
    const bad = sizeIds.find((id) => !set.sizes.includes(id));
    if (bad !== undefined || sizeIds.length === 0) {
      throw apiError(
        'invalid_size',
        `size_id ${String(bad ?? '(missing)')} is not in size set ${String(body.size_set_id)} (${set.name})`,
      );
    }
  }
  const shipping = body.depop_shipping as
    { address_id: number; shipping_provider_id: string; parcel_size_id: string } | undefined;
  if (shipping) {
    const providers = shippingProvidersForAddress(seller, shipping.address_id);
    if (!providers) {
      // Rule 5: generic_error with a 4xx status. SPEC GAP (which 4xx): 422, as for the other rules.
      throw apiError(
        'generic_error',
        `address ${shipping.address_id} does not belong to the authenticated seller`,
        422,
      );
    }
    const provider = providers.find((p) => p.id === shipping.shipping_provider_id);
    if (!provider)
      throw apiError(
        'validation',
        `shipping provider ${shipping.shipping_provider_id} is not available from address ${shipping.address_id} (available: ${providers.map((p) => p.id).join(', ')})`,
      );
    if (!provider.parcel_sizes.some((s) => s.id.toLowerCase() === shipping.parcel_size_id.toLowerCase())) {
      throw apiError(
        'validation',
        `parcel size ${shipping.parcel_size_id} is not offered by ${provider.id} (offered: ${provider.parcel_sizes.map((s) => s.id).join(', ') || 'none'})`,
      );
    }
  } else if (!seller.profile.manualShippingAllowed) {
    throw apiError(
      'manual_shipping_not_allowed',
      'this seller may not use manual shipping (national_shipping_cost); use depop_shipping',
    );
  }
}

/**
 * SPEC GAP (variants): the write schema carries one size_id, yet offers speak of multi-size products.
 * Ours: an optional `variants: [{ size_id, quantity }]` makes a multi-size listing.
 */
export function sizeIdsOf(body: Body): number[] {
  if (Array.isArray(body.variants)) return body.variants.map((v) => Number((v as Body).size_id));
  return body.size_id === undefined ? [] : [Number(body.size_id)];
}

function variantsValid(body: Body): void {
  if (body.variants === undefined) return;
  const readable =
    Array.isArray(body.variants) &&
    body.variants.every(
      (v) =>
        v &&
        typeof v === 'object' &&
        Number.isInteger((v as Body).size_id) &&
        Number.isInteger((v as Body).quantity),
    );
  // Not a list of { size_id, quantity } integers cannot be read (400); a readable list that breaks
  // the rules is 422 (rules/violations.ts: the status classes).
  if (!readable)
    throw apiError('bad-request', 'variants must be an array of { size_id, quantity } objects (integers)');
  const variants = body.variants as Body[];
  if (variants.length < 2 || variants.some((v) => (v.quantity as number) < 1))
    throw apiError('validation', 'variants needs at least two { size_id, quantity ≥ 1 } entries');
  if (body.size_id !== undefined) throw apiError('validation', 'send either size_id or variants, not both');
}

/** Every check of a create or full update, in the service's order; resolves the brand. */
export async function validateWrite(
  kind: 'create' | 'put',
  seller: SellerState,
  config: SimulatorConfig,
  body: unknown,
  principal?: Principal,
): Promise<{ brand: string }> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw apiError('bad-request', 'the request body must be a JSON object');
  const b = body as Body;
  requireOffersWriteFor(b, principal);
  requireWritableSeller(seller);
  const brand =
    b.brand_id !== undefined && brandById(Number(b.brand_id))
      ? brandById(Number(b.brand_id))!
      : matchBrand(String(b.brand_name ?? ''));
  const violations = checkProductWrite(kind, b, { minPercentOff: config.minPercentOff, brand });
  if (violations.length) fail(violations[0]!);
  variantsValid(b);
  checkCatalogueAndShipping(seller, b, brand);
  return { brand };
}

/** Every change of a banned listing fails (spec: product_has_been_banned). */
export function requireNotBanned(record: ProductRecord): void {
  if (record.state === 'banned')
    throw apiError(
      'product_has_been_banned',
      `product ${record.productId} has been banned and cannot be modified`,
    );
}

/** Changes other than delete, mark-as-sold and restocking need a listing on sale. */
export function requireOnSale(record: ProductRecord): void {
  requireNotBanned(record);
  if (record.state !== 'selling')
    throw apiError(
      'product_not_on_sale',
      `product ${record.productId} is not on sale (it is ${record.state})`,
    );
}
