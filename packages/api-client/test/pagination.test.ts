// Pagination: items across cursors with `for await`, pages with `.pages()`, de-duplication, the page
// size limits (≤ 100 products, ≤ 200 orders) enforced before sending.
import { LocalValidationError } from '../src/client/index.ts';
import { json, scriptedClient, PRODUCT } from './helpers/scripted.ts';

const product = (id: number) => ({ ...PRODUCT, product_id: id, sku: `SKU-${id}`, slug: `p-${id}` });
const page = (ids: number[], cursor: string | null, hasMore: boolean) =>
  json(200, { meta: { cursor, has_more: hasMore }, data: ids.map(product) });

describe('pagination', () => {
  it('yields items across cursors and passes the query on every page', async () => {
    const t = scriptedClient([page([1, 2], 'c1', true), page([3, 4], 'c2', true), page([5], null, false)]);
    const ids: number[] = [];
    for await (const p of t.client.products.list({ state: 'selling', limit: 2 })) ids.push(p.product_id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    const urls = t.transport.requests.map((r) => new URL(r.url));
    expect(urls.map((u) => u.searchParams.get('cursor'))).toEqual([null, 'c1', 'c2']);
    expect(
      urls.every((u) => u.searchParams.get('state') === 'selling' && u.searchParams.get('limit') === '2'),
    ).toBe(true);
  });

  it('yields whole pages with .pages()', async () => {
    const t = scriptedClient([page([1, 2], 'c1', true), page([3], 'c2', false)]);
    const sizes: number[] = [];
    for await (const p of t.client.products.list().pages()) sizes.push(p.data.length);
    expect(sizes).toEqual([2, 1]);
  });

  it('skips items seen on an earlier page and stops on a repeating cursor', async () => {
    const t = scriptedClient([page([1, 2], 'c1', true), page([2, 3], 'c1', true)]);
    expect((await t.client.products.list().toArray()).map((p) => p.product_id)).toEqual([1, 2, 3]);
    expect(t.transport.requests).toHaveLength(2);
  });

  it('toArray({ max }) stops fetching early', async () => {
    const t = scriptedClient([page([1, 2], 'c1', true), page([3, 4], 'c2', true)]);
    expect(await t.client.products.list().toArray({ max: 3 })).toHaveLength(3);
    expect(t.transport.requests).toHaveLength(2);
  });

  it('walks orders by purchase id and converts Date filters', async () => {
    const order = (id: string) => ({ purchase_id: id });
    const t = scriptedClient([
      json(200, { meta: { cursor: 'o1', has_more: true }, data: [order('A'), order('B')] }),
      json(200, { meta: { cursor: null, has_more: false }, data: [order('C')] }),
    ]);
    const ids: string[] = [];
    for await (const o of t.client.orders.list({ limit: 200, from: new Date('2026-01-01T00:00:00Z') }))
      ids.push(o.purchase_id);
    expect(ids).toEqual(['A', 'B', 'C']);
    expect(new URL(t.transport.requests[0]!.url).searchParams.get('from')).toBe('2026-01-01T00:00:00.000Z');
  });

  it('enforces the page size limits before sending', () => {
    const t = scriptedClient([]);
    expect(() => t.client.products.list({ limit: 101 })).toThrow(LocalValidationError);
    expect(() => t.client.orders.list({ limit: 201 })).toThrow(LocalValidationError);
    expect(() => t.client.products.list({ limit: 0 })).toThrow(LocalValidationError);
    expect(() => t.client.products.list({ state: 'gone' as 'sold' })).toThrow(/state/);
    expect(t.transport.requests).toHaveLength(0);
  });
});
