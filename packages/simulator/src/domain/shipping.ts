// The shipping-provider catalogue: which carriers an address is offered (by the address's country),
// their parcel sizes, and what a label costs — booked in the order's currency.
import type { ShippingProviderInfo } from '@selling-kit/api-client/core';
import { MANUAL_SHIPPING_PROVIDER_ID, formatMoney } from '@selling-kit/api-client/core';
import type { SellerState } from '../state.ts';
import { convertCents } from './money.ts';

// --- shipping-provider catalogue --------------------------------------------------------------------

type CourierService = 'DROP_OFF' | 'COURIER_COLLECT' | 'OTHER';
interface ParcelSizeDef {
  id: string;
  title: string;
  subtitle: string;
  cents: number;
  courier: CourierService;
}
interface ProviderDef {
  /** The country the carrier ships from: only addresses there are offered it. */
  country: string;
  currency: string;
  /** Another id for a carrier listed under its own name (MY_HERMES = EVRI): never seeded by default. */
  alias?: true;
  sizes: ParcelSizeDef[];
}

/**
 * A carrier's parcel sizes, smallest first: ids SMALL, MEDIUM, LARGE in that order, titled "Small",
 * "Medium", "Large" followed by `titleSuffix` (" parcel" for the UK carriers).
 */
function parcelSizes(
  titleSuffix: '' | ' parcel',
  ...sizes: [subtitle: string, cents: number, courier: CourierService][]
): ParcelSizeDef[] {
  const names = ['Small', 'Medium', 'Large'] as const;
  return sizes.map(([subtitle, cents, courier], i) => ({
    id: names[i]!.toUpperCase(),
    title: `${names[i]!}${titleSuffix}`,
    subtitle,
    cents,
    courier,
  }));
}

const EVRI_SIZES = parcelSizes(
  ' parcel',
  ['Up to 1 kg, 45 x 35 x 16 cm', 289, 'DROP_OFF'],
  ['Up to 2 kg, 45 x 35 x 16 cm', 349, 'DROP_OFF'],
  ['Up to 15 kg, 120 x 60 x 60 cm', 599, 'COURIER_COLLECT'],
);

/**
 * SPEC GAP (provider catalogue): the public reference names provider ids (USPS, MY_HERMES = Evri,
 * SENDLE) but no sizes or prices. Ours: a small, realistic table per provider, priced in the
 * provider's home currency. SPEC GAP (casing): parcel size ids are upper-case (SMALL, MEDIUM, LARGE),
 * as in the schema text; look-ups are case-insensitive. A provider id not in this table (seeded by a
 * test) gets generic sizes in the seller's currency with courier service OTHER, from any country.
 * SPEC GAP (countries): a carrier serves the addresses of its own country (Royal Mail and Evri GB, USPS
 * and UPS US, Sendle AU); an address elsewhere is offered none of them (manual shipping only). This
 * table is the one home of the carrier lists: new addresses (world.ts, seed, demo) default to it.
 */
export const SHIPPING_PROVIDER_CATALOG: Readonly<Record<string, ProviderDef>> = {
  ROYAL_MAIL: {
    country: 'GB',
    currency: 'GBP',
    sizes: parcelSizes(
      ' parcel',
      ['Up to 2 kg, 45 x 35 x 16 cm', 335, 'DROP_OFF'],
      ['Up to 10 kg, 61 x 46 x 46 cm', 599, 'DROP_OFF'],
    ),
  },
  EVRI: { country: 'GB', currency: 'GBP', sizes: EVRI_SIZES },
  MY_HERMES: { country: 'GB', currency: 'GBP', sizes: EVRI_SIZES, alias: true },
  USPS: {
    country: 'US',
    currency: 'USD',
    sizes: parcelSizes(
      '',
      ['Under 8 oz', 525, 'DROP_OFF'],
      ['Under 1 lb', 765, 'DROP_OFF'],
      ['Under 10 lb', 1295, 'DROP_OFF'],
    ),
  },
  UPS: {
    country: 'US',
    currency: 'USD',
    sizes: parcelSizes(
      '',
      ['Under 1 lb', 899, 'DROP_OFF'],
      ['Under 5 lb', 1199, 'DROP_OFF'],
      ['Under 20 lb', 1899, 'COURIER_COLLECT'],
    ),
  },
  SENDLE: {
    country: 'AU',
    currency: 'AUD',
    sizes: parcelSizes(
      '',
      ['Up to 500 g', 1050, 'COURIER_COLLECT'],
      ['Up to 3 kg', 1495, 'COURIER_COLLECT'],
      ['Up to 5 kg', 1895, 'COURIER_COLLECT'],
    ),
  },
};

function genericProvider(currency: string): ProviderDef {
  return {
    country: '*',
    currency,
    sizes: parcelSizes(
      '',
      ['Small parcel', 350, 'OTHER'],
      ['Medium parcel', 550, 'OTHER'],
      ['Large parcel', 850, 'OTHER'],
    ),
  };
}

function providerDef(providerId: string, fallbackCurrency: string): ProviderDef {
  return SHIPPING_PROVIDER_CATALOG[providerId.toUpperCase()] ?? genericProvider(fallbackCurrency);
}

/**
 * The providers (with parcel sizes and label costs) available from one of the seller's addresses;
 * `undefined` when the address is not the seller's. An address without providers answers the single
 * manual-shipping provider (`MANUAL_SHIPPING_PROVIDER_ID`) with no parcel sizes: the seller then sets
 * a national shipping cost (SPEC GAP: the public reference does not show its parcel sizes).
 */
export function shippingProvidersForAddress(
  seller: SellerState,
  addressId: number,
): ShippingProviderInfo[] | undefined {
  const address = seller.addresses.find((a) => a.id === addressId);
  if (!address) return undefined;
  const ids = (seller.shippingProviders.get(addressId) ?? []).filter((id) =>
    servesCountry(providerDef(id, seller.currency), address.country),
  );
  if (ids.length === 0) return [{ id: MANUAL_SHIPPING_PROVIDER_ID, parcel_sizes: [] }];
  return ids.map((id) => {
    const def = providerDef(id, seller.currency);
    return {
      id,
      parcel_sizes: def.sizes.map((size) => ({
        id: size.id,
        title: size.title,
        subtitle: size.subtitle,
        // SPEC GAP (conversion): `amount` "may be converted to the buyer's currency"; no buyer is
        // known here, so amount/currency repeat the original.
        cost: {
          original_amount: formatMoney(size.cents),
          original_currency: def.currency,
          amount: formatMoney(size.cents),
          currency: def.currency,
        },
        courier_service: size.courier,
      })),
    };
  });
}

/**
 * Label cost of a provider's parcel size (case-insensitive), in `orderCurrency` when given (else the
 * carrier's own); undefined for an unknown size.
 */
export function parcelSizeCost(
  providerId: string,
  parcelSizeId: string,
  fallbackCurrency: string,
  orderCurrency?: string,
): { cents: number; currency: string } | undefined {
  const def = providerDef(providerId, fallbackCurrency);
  const size = def.sizes.find((s) => s.id.toLowerCase() === parcelSizeId.toLowerCase());
  if (!size) return undefined;
  const currency = orderCurrency ?? def.currency;
  return { cents: convertCents(size.cents, def.currency, currency), currency };
}

/** The catalogued carriers seeded on a new address of `country` (none: manual shipping only). */
export function defaultProvidersFor(country: string): string[] {
  return Object.entries(SHIPPING_PROVIDER_CATALOG)
    .filter(([, def]) => !def.alias && def.country === country)
    .map(([id]) => id);
}

function servesCountry(def: ProviderDef, country: string): boolean {
  return def.country === '*' || def.country === country;
}
