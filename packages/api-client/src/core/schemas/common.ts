// Wire types shared by several resources. Money travels as decimal strings with at most two
// decimals (the public reference's convention); the currency sits in a sibling field.
import { z } from 'zod/v4';

/** "25", "25.5" or "25.99": non-negative, at most 2 decimals, no sign, no exponent. */
export const MONEY_PATTERN = /^(0|[1-9]\d{0,11})(\.\d{1,2})?$/;
export const Money = z
  .string()
  .regex(MONEY_PATTERN, 'must be a decimal string with at most 2 decimals, e.g. "12.50"');
export type Money = z.infer<typeof Money>;

export const CurrencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as GBP or USD');
export const CountryCode = z
  .string()
  .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as GB or US');
export const IsoDateTime = z.iso.datetime({ offset: true });

export const Address = z.looseObject({
  country_code: CountryCode,
  state: z.string().optional(),
});
export type Address = z.infer<typeof Address>;

export const PageMeta = z.looseObject({
  cursor: z.string().nullable().optional(),
  has_more: z.boolean(),
});
export type PageMeta = z.infer<typeof PageMeta>;

/** `{ meta: { cursor, has_more }, data: [...] }`, the envelope of every list endpoint. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.looseObject({ meta: PageMeta, data: z.array(item) });
}
export type Page<T> = { meta: PageMeta; data: T[] };

export const Department = z.enum(['womenswear', 'menswear', 'kidswear', 'everything-else']);
export const Condition = z.enum(['brand_new', 'used_like_new', 'used_excellent', 'used_good', 'used_fair']);
export const Colour = z.enum([
  'black',
  'grey',
  'white',
  'brown',
  'tan',
  'cream',
  'yellow',
  'red',
  'burgundy',
  'orange',
  'pink',
  'purple',
  'blue',
  'navy',
  'green',
  'khaki',
  'multi',
  'silver',
  'gold',
]);
export const Style = z.enum([
  'streetwear',
  'sportswear',
  'loungewear',
  'goth',
  'retro',
  'boho',
  'western',
  'indie',
  'skater',
  'rave',
  'costume',
  'cosplay',
  'grunge',
  'emo',
  'minimalist',
  'preppy',
  'avant_garde',
  'punk',
  'glam',
  'regency',
  'casual',
  'techwear',
  'futuristic',
  'cottage',
  'fairy',
  'kidcore',
  'y2_k',
  'biker',
  'gorpcore',
  'twee',
  'coquette',
  'whimsygoth',
]);
export const Age = z.enum(['modern', 'y2k', '90s', '80s', '70s', '60s', '50s', 'antique']);
export const Source = z.enum([
  'vintage',
  'preloved',
  'reworked',
  'custom',
  'handmade',
  'deadstock',
  'designer',
  'repaired',
]);

/** Empty 200 bodies: many write endpoints answer `200` with no content. */
export const Empty = z.unknown();
