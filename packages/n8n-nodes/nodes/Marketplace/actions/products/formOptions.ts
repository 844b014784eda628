// The choices the listing form offers: the core's enums (department, condition, colour, style, age,
// source) as n8n options, and the markets a listing can ship from with their currencies (core LISTING_MARKETS).
import type { INodePropertyOptions } from 'n8n-workflow';
import {
  Age,
  Colour,
  Condition,
  DEPARTMENTS,
  LISTING_COUNTRIES,
  LISTING_MARKETS,
  Source,
  Style,
  type ListingCountry,
} from '@selling-kit/api-client/core';

const WORDS: Record<string, string> = { y2_k: 'Y2K', y2k: 'Y2K', avant_garde: 'Avant-Garde' };

/** "used_like_new" → "Used Like New", "everything-else" → "Everything Else"; sorted by name (n8n's rule). */
export function enumOptions(values: readonly string[]): INodePropertyOptions[] {
  return values
    .map((value) => ({
      name: WORDS[value] ?? value.replace(/[_-]/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()),
      value,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Conditions in the order a seller grades an item (best first), not alphabetical. */
export const CONDITION_OPTIONS: INodePropertyOptions[] = Condition.options.map((value) => ({
  name: enumOptions([value])[0]!.name,
  value,
}));
export const DEPARTMENT_OPTIONS = enumOptions(DEPARTMENTS);
export const COLOUR_OPTIONS = enumOptions(Colour.options);
export const STYLE_OPTIONS = enumOptions(Style.options);
export const AGE_OPTIONS = enumOptions(Age.options);
export const SOURCE_OPTIONS = enumOptions(Source.options);

/** Display names of the core's LISTING_MARKETS (an expression can still send any code). */
const COUNTRY_NAMES: Record<ListingCountry, string> = {
  AU: 'Australia',
  FR: 'France',
  DE: 'Germany',
  IE: 'Ireland',
  IT: 'Italy',
  GB: 'United Kingdom',
  US: 'United States',
};
const MARKETS = LISTING_COUNTRIES.map((country) => ({
  country,
  name: COUNTRY_NAMES[country],
  currency: LISTING_MARKETS[country],
})).sort((a, b) => a.name.localeCompare(b.name));

const CURRENCY_NAMES: Record<string, string> = {
  AUD: 'Australian Dollar',
  EUR: 'Euro',
  GBP: 'Pound Sterling',
  USD: 'US Dollar',
};

export const COUNTRY_OPTIONS: INodePropertyOptions[] = MARKETS.map((m) => ({
  name: `${m.name} (${m.country})`,
  value: m.country,
}));

export const CURRENCY_OPTIONS: INodePropertyOptions[] = [...new Set(MARKETS.map((m) => m.currency))]
  .map((code) => ({ name: `${CURRENCY_NAMES[code] ?? code} (${code})`, value: code }))
  .sort((a, b) => a.name.localeCompare(b.name));

/**
 * Version 3's Currency and Country start at the shop's own (F9): the value the node resolves when the
 * item runs, from the seller's country (seller details) and that market's currency (LISTING_MARKETS).
 */
export const SHOP_DEFAULT = 'shop';
export const SHOP_CURRENCY_OPTION: INodePropertyOptions = {
  name: "Shop's Currency",
  value: SHOP_DEFAULT,
  description: "The currency of the shop's market (e.g. GBP for a shop in the United Kingdom)",
};
export const SHOP_COUNTRY_OPTION: INodePropertyOptions = {
  name: "Shop's Country",
  value: SHOP_DEFAULT,
  description: "The shop's own country (its seller details)",
};
