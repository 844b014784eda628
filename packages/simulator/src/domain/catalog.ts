// The simulator's small taxonomy: brands, product types with their departments and size sets. The
// real catalogue is not served by the Selling API (public reference: taxonomy is downloaded
// separately); this one is large enough to exercise every rule.
import { brandKeyMatches, KNOWN_BRANDS, normaliseBrand } from '@selling-kit/api-client/core';

/**
 * Canonical brand names: the core's KNOWN_BRANDS (the hashtag rule's list too). `unbranded` is what an
 * unmatched `brand_name` becomes (public reference).
 */
export const BRANDS: readonly string[] = KNOWN_BRANDS;
export const UNBRANDED = 'unbranded';

/**
 * SPEC GAP (brand ids): the spec says "a brand ID that is not valid fails with invalid_brand" but the
 * write bodies carry only `brand_name`. Ours: an optional numeric `brand_id` (its position in BRANDS,
 * from 1) must name a known brand; unknown → 422 invalid_brand.
 */
export function brandById(id: number): string | undefined {
  return Number.isInteger(id) ? BRANDS[id - 1] : undefined;
}

const BY_KEY = new Map(BRANDS.map((b) => [normaliseBrand(b), b]));

/**
 * Brand matched from `brand_name`: case, spaces and punctuation are ignored ("levis" → Levi's, "NIKE" →
 * Nike), and one typo is forgiven for longer brands (core `brandKeyMatches`: "Addidas" → Adidas, but
 * "Nikey" is not Nike). No match → `unbranded` (public reference).
 */
export function matchBrand(name: string): string {
  const key = normaliseBrand(name);
  const exact = BY_KEY.get(key);
  if (exact) return exact;
  for (const [brandKey, brand] of BY_KEY) if (brandKeyMatches(key, brandKey)) return brand;
  return UNBRANDED;
}

export interface SizeSet {
  name: string;
  sizes: number[];
}

/** Size sets: a size id is only meaningful within its set (public reference, taxonomy). */
export const SIZE_SETS: Record<number, SizeSet> = {
  44: { name: 'GB tops', sizes: [14, 16, 18, 20, 22, 24, 26] },
  45: { name: 'US tops', sizes: [1, 2, 3, 4, 5, 6] },
  46: { name: 'Waist (inches)', sizes: [24, 26, 28, 30, 32, 34, 36, 38, 40] },
  47: { name: 'GB shoes', sizes: [3, 4, 5, 6, 7, 8, 9, 10, 11, 12] },
};

/** Product types with their departments and size sets: the core's catalogue (the n8n node lists it too). */
export { PRODUCT_TYPES, type ProductType } from '@selling-kit/api-client/core';
