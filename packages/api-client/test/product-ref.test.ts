// The core's product-key vocabulary: the kinds, their wire names, and the operations they address.
import {
  buildPath,
  KIND_OF_KEY,
  listingRefs,
  operation,
  OPERATIONS,
  PRODUCT_KEYS,
  PRODUCT_REF_KEYS,
  PRODUCT_REF_KINDS,
  refKey,
  refKind,
  refPathParams,
  refPathSegment,
  refValue,
  type ProductRef,
} from '../src/core/index.ts';

const REFS: [ProductRef, string, string][] = [
  [{ sku: 'TEE-1' }, 'sku', '/api/v1/products/by-sku/TEE-1/'],
  [{ productId: 7 }, 'productId', '/api/v1/products/by-product-id/7/'],
  [{ slug: 'tee-7' }, 'slug', '/api/v1/products/by-slug/tee-7/'],
];

describe('product references', () => {
  it.each(REFS)('%j: its kind, value, key text and path', (ref, kind, path) => {
    expect(refKind(ref)).toBe(kind);
    expect(refValue(ref)).toBe(Object.values(ref)[0]);
    expect(refKey(ref)).toBe(`${kind}:${Object.values(ref)[0]}`);
    const op = operation(`products.get${PRODUCT_REF_KEYS[refKind(ref)].suffix}`);
    expect(buildPath(op.path, refPathParams(ref))).toBe(path);
  });

  it('refuses a reference without a key', () => {
    expect(() => refKind({} as ProductRef)).toThrow(TypeError);
  });

  it('names the API’s listing fields and path segments', () => {
    expect(PRODUCT_KEYS).toEqual(['sku', 'product_id', 'slug']);
    expect(PRODUCT_KEYS.map((key) => KIND_OF_KEY[key])).toEqual(PRODUCT_REF_KINDS);
    expect(PRODUCT_REF_KINDS.map(refPathSegment)).toEqual([
      'by-sku/{sku}',
      'by-product-id/{productId}',
      'by-slug/{slug}',
    ]);
  });

  it('reads the keys a listing carries, in the order asked', () => {
    const listing = { sku: 'TEE-1', product_id: 7, slug: 'tee-7' };
    expect(listingRefs(listing)).toEqual([{ sku: 'TEE-1' }, { productId: 7 }, { slug: 'tee-7' }]);
    expect(listingRefs(listing, ['productId', 'slug', 'sku'])[0]).toEqual({ productId: 7 });
    expect(listingRefs({ sku: null, product_id: Number.NaN, slug: '' })).toEqual([]);
    expect(listingRefs({ sku: '', product_id: '7', slug: 'tee-7' })).toEqual([{ slug: 'tee-7' }]);
  });

  it('gives every by-key operation one id and path per kind', () => {
    const byKey = OPERATIONS.filter((op) => op.path.includes('/by-'));
    for (const kind of PRODUCT_REF_KINDS) {
      const { suffix } = PRODUCT_REF_KEYS[kind];
      for (const op of byKey.filter((o) => o.id.endsWith(suffix)))
        expect(op.path).toContain(`/${refPathSegment(kind)}/`);
    }
    expect(byKey.map((op) => op.id)).toContain('insights.productBySlug');
    expect(operation('products.simulateLikeByProductId').path).toBe(
      '/api/v1/products/by-product-id/{productId}/like/',
    );
  });
});
