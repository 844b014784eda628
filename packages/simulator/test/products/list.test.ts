import { ProductsPage } from '@selling-kit/api-client/core';
import { startTestShop, type TestShop } from '../helpers.ts';
import { createProduct, codeOf } from './fixtures.ts';

let shop: TestShop;
beforeAll(async () => {
  shop = await startTestShop();
  for (let i = 1; i <= 7; i++) {
    await createProduct(shop, { sku: `L-${i}` });
    shop.sim.world.clock.advance(60_000);
  }
  await shop.call('POST', '/api/v1/products/by-sku/L-2/mark-as-sold/');
  await shop.call('DELETE', '/api/v1/products/by-sku/L-3/');
});
afterAll(() => shop.sim.close());

async function walk(query: string): Promise<string[]> {
  const skus: string[] = [];
  let cursor: string | null | undefined;
  do {
    const res = await shop.call('GET', `/api/v1/products/?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    const page = ProductsPage.parse(res.body);
    skus.push(...page.data.map((p) => p.sku!));
    cursor = page.meta.has_more ? page.meta.cursor : null;
  } while (cursor);
  return skus;
}

describe('products list', () => {
  it('pages across cursors in id_desc order by default, without removed products', async () => {
    expect(await walk('limit=2')).toEqual(['L-7', 'L-6', 'L-5', 'L-4', 'L-2', 'L-1']);
  });
  it('sorts id_asc and created_date_desc', async () => {
    expect(await walk('limit=3&sort_by=id_asc')).toEqual(['L-1', 'L-2', 'L-4', 'L-5', 'L-6', 'L-7']);
    expect(await walk('limit=4&sort_by=created_date_desc')).toEqual([
      'L-7',
      'L-6',
      'L-5',
      'L-4',
      'L-2',
      'L-1',
    ]);
  });
  it('filters by state and created date range (inclusive)', async () => {
    expect(await walk('state=sold')).toEqual(['L-2']);
    expect(await walk('state=selling')).toEqual(['L-7', 'L-6', 'L-5', 'L-4', 'L-1']);
    const all = (await shop.call('GET', '/api/v1/products/?sort_by=id_asc')).body.data;
    const from = all[2].created_at;
    const to = all[4].created_at;
    expect(await walk(`sort_by=id_asc&from_created_date=${from}&to_created_date=${to}`)).toEqual([
      'L-4',
      'L-5',
      'L-6',
    ]);
  });
  it('400 naming the accepted values for bad list parameters; 422 for an inverted range', async () => {
    const cases: [string, RegExp][] = [
      ['sort_by=newest', /id_desc, id_asc, created_date_desc/],
      ['state=removed', /selling, sold, all/],
      ['limit=101', /1 to 100/],
      ['limit=0', /1 to 100/],
      ['limit=abc', /1 to 100/],
      ['from_created_date=yesterday', /ISO 8601/],
      ['to_created_date=2026-13-45', /ISO 8601/],
      ['cursor=not-a-cursor', /cursor/],
    ];
    for (const [q, message] of cases) {
      const res = await shop.call('GET', `/api/v1/products/?${q}`);
      expect([q, res.status, codeOf(res)]).toEqual([q, 400, 'bad-request']);
      expect(res.body.errors[0].message).toMatch(message);
    }
    const inverted = await shop.call(
      'GET',
      '/api/v1/products/?from_created_date=2026-02-01T00:00:00Z&to_created_date=2026-01-01T00:00:00Z',
    );
    expect([inverted.status, codeOf(inverted)]).toEqual([422, 'validation']);
  });
  it('a cursor from one sort order is refused by another', async () => {
    const first = (await shop.call('GET', '/api/v1/products/?limit=1')).body.meta.cursor;
    expect(codeOf(await shop.call('GET', `/api/v1/products/?limit=1&sort_by=id_asc&cursor=${first}`))).toBe(
      'bad-request',
    );
  });
});
