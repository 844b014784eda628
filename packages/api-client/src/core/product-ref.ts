// How a product is addressed — by SKU, product ID or slug — in one vocabulary for the whole kit: the
// reference a caller passes (`ProductRef`), its kind, and per kind the names the API gives that key
// (the listing field, the path segment and parameter, the operation-id suffix). The operation table
// builds its by-key ids and paths from PRODUCT_REF_KEYS; the client, the simulator's handlers, the
// Temporal activities and the n8n node read and write references with the functions below.

/** A product's address: its SKU, its product ID or its slug. */
export type ProductRef = { sku: string } | { productId: number } | { slug: string };

/** The kinds of key, in the API's order (by-sku, by-product-id, by-slug). */
export const PRODUCT_REF_KINDS = ['sku', 'productId', 'slug'] as const;
export type ProductRefKind = (typeof PRODUCT_REF_KINDS)[number];

/**
 * Per kind of key: the listing field that holds it (`product_id`), the path segment that addresses a
 * product by it (`by-product-id`, followed by the path parameter named as the kind: `{productId}`) and
 * the suffix of its operation ids (`products.getByProductId`).
 */
export const PRODUCT_REF_KEYS = {
  sku: { field: 'sku', segment: 'by-sku', suffix: 'BySku' },
  productId: { field: 'product_id', segment: 'by-product-id', suffix: 'ByProductId' },
  slug: { field: 'slug', segment: 'by-slug', suffix: 'BySlug' },
} as const satisfies Record<ProductRefKind, { field: string; segment: string; suffix: string }>;

/** A key's listing field, as the API spells it: `sku`, `product_id`, `slug`. */
export type ProductKey = (typeof PRODUCT_REF_KEYS)[ProductRefKind]['field'];
/** The listing fields that address a product, in the API's order. */
export const PRODUCT_KEYS: ProductKey[] = PRODUCT_REF_KINDS.map((kind) => PRODUCT_REF_KEYS[kind].field);
/** Per listing field, the kind of key it holds: `product_id` → `productId` (its path parameter's name). */
export const KIND_OF_KEY = Object.fromEntries(
  PRODUCT_REF_KINDS.map((kind) => [PRODUCT_REF_KEYS[kind].field, kind]),
) as Record<ProductKey, ProductRefKind>;

/** The path part that addresses a product by this kind of key: `by-product-id/{productId}`. */
export const refPathSegment = (kind: ProductRefKind): string => `${PRODUCT_REF_KEYS[kind].segment}/{${kind}}`;

/** Which key the reference gives (the first set, should a caller's object carry more than one). */
export function refKind(ref: ProductRef): ProductRefKind {
  if ('sku' in ref && ref.sku !== undefined) return 'sku';
  if ('productId' in ref && ref.productId !== undefined) return 'productId';
  if ('slug' in ref && ref.slug !== undefined) return 'slug';
  throw new TypeError('a product reference needs sku, productId or slug');
}

/** The key's value: the SKU, the product ID or the slug. */
export function refValue(ref: ProductRef): string | number {
  const kind = refKind(ref);
  return (ref as Record<ProductRefKind, string | number>)[kind];
}

/** One text per reference, `sku:A1`, `productId:7`, `slug:tee-7`: for maps and messages. */
export const refKey = (ref: ProductRef): string => `${refKind(ref)}:${refValue(ref)}`;

/** The path parameters of a by-key operation for this reference: `{ productId: 7 }`. */
export const refPathParams = (ref: ProductRef): Record<string, string | number> => ({
  [refKind(ref)]: refValue(ref),
});

/**
 * The references a listing carries (a product, a create answer, a feed row): one per key field that is
 * set — a non-empty SKU or slug, a finite product ID — in the order of `kinds`.
 */
export function listingRefs(
  listing: Partial<Record<ProductKey, unknown>>,
  kinds: readonly ProductRefKind[] = PRODUCT_REF_KINDS,
): ProductRef[] {
  const refs: ProductRef[] = [];
  for (const kind of kinds) {
    const value = listing[PRODUCT_REF_KEYS[kind].field];
    if (kind === 'productId') {
      if (typeof value === 'number' && Number.isFinite(value)) refs.push({ productId: value });
    } else if (typeof value === 'string' && value) {
      refs.push(kind === 'sku' ? { sku: value } : { slug: value });
    }
  }
  return refs;
}
