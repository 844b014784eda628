// Brands the kit knows by name. The hashtag rule refuses a tag only when it names one of these and it
// is not the item's own; a tag the kit does not know as a brand is left to the service (the client is
// never stricter than the service). The simulator's catalogue is this list too.
export const KNOWN_BRANDS = [
  'Nike',
  'Adidas',
  "Levi's",
  'Carhartt',
  'Zara',
  'Ralph Lauren',
  'Patagonia',
  'The North Face',
  'Dr. Martens',
  'Stussy',
  'Champion',
  'Tommy Hilfiger',
  'Burberry',
  'Gucci',
  'Prada',
  'Uniqlo',
  'H&M',
  'Stone Island',
  'Vivienne Westwood',
  "Arc'teryx",
  'Supreme',
  'Converse',
  'Vans',
  'New Balance',
] as const;

/** Brand names compare without case, spaces or punctuation: "Levi's" ~ "levis", "#StoneIsland" ~ "Stone Island". */
export function normaliseBrand(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** Brand keys this long or longer forgive one typo when matched ("addidas" ~ "adidas"; "nikey" is not "nike"). */
export const BRAND_TYPO_MIN_LENGTH = 5;

/** Levenshtein distance of at most `max`, stopping early once it is exceeded. */
function distanceWithin(a: string, b: string, max: number): boolean {
  if (Math.abs(a.length - b.length) > max) return false;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...row) > max) return false;
    prev = row;
  }
  return prev[b.length]! <= max;
}

/**
 * True when a normalised name matches a normalised brand key: equal, or — SPEC GAP (how fuzzy) — one
 * typo away from a brand of at least BRAND_TYPO_MIN_LENGTH characters. The simulator matches
 * `brand_name` this way; the client's hashtag rule forgives the same typos, so it is never stricter.
 */
export function brandKeyMatches(key: string, brandKey: string): boolean {
  return key === brandKey || (brandKey.length >= BRAND_TYPO_MIN_LENGTH && distanceWithin(key, brandKey, 1));
}
