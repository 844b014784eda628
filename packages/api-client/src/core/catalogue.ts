// The kit's catalogue: product types with the departments they exist in and their size sets, brand
// recognition as the service matches `brand_name`, and close-match suggestions for a name typed wrong.
// One home for the simulator (which serves exactly this taxonomy) and the n8n node (its Product Type
// and Brand lists, and the "did you mean…?" in its errors). The real marketplace's taxonomy is not
// served by the Selling API (public reference: it is downloaded separately), so on production a type
// or brand missing here is still the service's to decide.
import { brandKeyMatches, KNOWN_BRANDS, normaliseBrand } from './schemas/brands.ts';
import type { Department } from './schemas/common.ts';

type DepartmentName = (typeof Department.options)[number];

export interface ProductType {
  departments: DepartmentName[];
  /** Size sets valid for the type; empty = the type has no sizes (e.g. bags). */
  sizeSets: number[];
}

const ADULT: DepartmentName[] = ['menswear', 'womenswear'];
export const PRODUCT_TYPES: Readonly<Record<string, ProductType>> = {
  tshirts: { departments: [...ADULT, 'kidswear'], sizeSets: [44, 45] },
  shirts: { departments: [...ADULT, 'kidswear'], sizeSets: [44, 45] },
  hoodies: { departments: [...ADULT, 'kidswear'], sizeSets: [44, 45] },
  jackets: { departments: [...ADULT, 'kidswear'], sizeSets: [44, 45] },
  jeans: { departments: [...ADULT, 'kidswear'], sizeSets: [46] },
  trousers: { departments: [...ADULT], sizeSets: [46] },
  dresses: { departments: ['womenswear', 'kidswear'], sizeSets: [44, 45] },
  skirts: { departments: ['womenswear', 'kidswear'], sizeSets: [44, 45] },
  trainers: { departments: [...ADULT, 'kidswear'], sizeSets: [47] },
  boots: { departments: [...ADULT], sizeSets: [47] },
  bags: { departments: [...ADULT], sizeSets: [] },
  jewellery: { departments: [...ADULT], sizeSets: [] },
  homeware: { departments: ['everything-else'], sizeSets: [] },
};

/** The product types of a department (every type when none is given), in the catalogue's order. */
export function productTypesOf(department?: string): string[] {
  return Object.entries(PRODUCT_TYPES)
    .filter(([, t]) => !department || t.departments.includes(department as DepartmentName))
    .map(([name]) => name);
}

/** The value that means "no brand" (shown to buyers as "Other"). */
export const UNBRANDED = 'unbranded';

/**
 * The brand the service matches `brand_name` to — case, spaces and punctuation ignored, one typo
 * forgiven for longer brands (`brandKeyMatches`) — `unbranded` for "unbranded" itself, or undefined
 * when the name matches no brand (the service would then list the item as unbranded).
 */
export function recogniseBrand(name: string): string | undefined {
  const key = normaliseBrand(name);
  if (key === UNBRANDED) return UNBRANDED;
  const exact = KNOWN_BRANDS.find((b) => normaliseBrand(b) === key);
  return exact ?? KNOWN_BRANDS.find((b) => brandKeyMatches(key, normaliseBrand(b)));
}

/** Levenshtein distance (small strings: catalogue names). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The candidates closest to `typed` (compared like brands: case, spaces and punctuation ignored), best
 * first, at most `max`: within 1 edit for names up to 3 characters, 2 up to 8, else 3; or one name
 * inside the other ("north face" → "The North Face").
 */
export function closeMatches(typed: string, candidates: readonly string[], max = 3): string[] {
  const key = normaliseBrand(typed);
  if (!key) return [];
  return candidates
    .map((name) => {
      const other = normaliseBrand(name);
      const edits = distance(key, other);
      const contained = key.length >= 3 && (other.includes(key) || key.includes(other));
      const longer = Math.max(key.length, other.length);
      const allowed = longer <= 3 ? 1 : longer <= 8 ? 2 : 3;
      return { name, score: contained ? Math.min(edits, 0.5) : edits, ok: contained || edits <= allowed };
    })
    .filter((c) => c.ok)
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((c) => c.name);
}
