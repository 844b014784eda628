import { OPERATIONS, buildPath, operation, ProductCreateRequest } from '../src/core/index.ts';

describe('operation table', () => {
  it('has unique ids and trailing-slash paths', () => {
    const ids = OPERATIONS.map((op) => op.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of OPERATIONS) if (op.path !== '/status') expect(op.path.endsWith('/')).toBe(true);
  });
  it('encodes path parameters', () => {
    expect(buildPath(operation('products.getBySku').path, { sku: 'a/b c' })).toBe(
      '/api/v1/products/by-sku/a%2Fb%20c/',
    );
    expect(() => buildPath('/x/{sku}/', {})).toThrow(/sku/);
  });
  it('rejects a malformed money string', () => {
    const r = ProductCreateRequest.safeParse({ price_amount: '1.234' });
    expect(r.success).toBe(false);
  });
});
