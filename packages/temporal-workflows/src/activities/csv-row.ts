// A CSV row as an item: CSV cells are strings, the API wants numbers, booleans, lists and objects.
// Used when a feed is snapshotted (snapshot.ts), re-exported by feed.ts.

const NUMERIC = new Set(['quantity', 'size_set_id', 'size_id', 'brand_id', 'product_id']);
const LISTS = new Set(['colour', 'style', 'age', 'source']);
const BOOLEAN = new Set(['is_boosted', 'fail_if_active_offers']);

/**
 * CSV columns are the wire field names, with three conveniences: `pictures` holds URLs separated by
 * `|`, `country_code` fills `address.country_code`, and `colour`/`style`/`age`/`source` are `|` lists.
 */
export function rowToBody(row: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(row)) {
    const value = raw.trim();
    if (value === '') continue;
    if (key === 'pictures') body.pictures = value.split('|').map((url) => ({ url: url.trim() }));
    else if (key === 'country_code') body.address = { country_code: value };
    else if (LISTS.has(key)) body[key] = value.split('|').map((v) => v.trim());
    else if (NUMERIC.has(key)) body[key] = Number(value);
    else if (BOOLEAN.has(key)) body[key] = value === 'true';
    else body[key] = value;
  }
  return body;
}
