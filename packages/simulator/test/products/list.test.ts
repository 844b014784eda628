import { ProductsPage } from '@selling-kit/api-client/core';
import { type TestShop } from '../helpers.ts';
import { addShop } from '../../src/testing.ts';
import { createProduct, codeOf, listing, testShopPerFile } from '../fixtures.ts';

const shop = testShopPerFile();
beforeAll(async () => {
  for (let i = 1; i <= 7; i++) {
    await createProduct(shop, { sku: `L-${i}` });
    shop.sim.world.clock.advance(60_000);
  }
  await shop.call('POST', '/api/v1/products/by-sku/L-2/mark-as-sold/');
  await shop.call('DELETE', '/api/v1/products/by-sku/L-3/');
});

const walk = (query: string) => walkAll(shop, query);

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

describe('products list: defaults, isolation, visibility', () => {
  const big = testShopPerFile();
  beforeAll(async () => {
    for (let i = 1; i <= 25; i++) await createProduct(big, { sku: `B-${i}` });
  });

  it('default page is 20, newest id first; the last page has has_more false and cursor null', async () => {
    const first = await big.call('GET', '/api/v1/products/');
    const page = ProductsPage.parse(first.body);
    expect(page.data).toHaveLength(20);
    expect(page.data[0]!.sku).toBe('B-25');
    expect(page.meta.has_more).toBe(true);
    expect(typeof page.meta.cursor).toBe('string');
    const second = ProductsPage.parse(
      (await big.call('GET', `/api/v1/products/?cursor=${page.meta.cursor}`)).body,
    );
    expect(second.data.map((p) => p.sku)).toEqual(['B-5', 'B-4', 'B-3', 'B-2', 'B-1']);
    expect(second.meta).toEqual({ cursor: null, has_more: false });
  });
  it('limit 1 and 100 are accepted; state=all lists everything not removed', async () => {
    expect((await big.call('GET', '/api/v1/products/?limit=100')).body.data).toHaveLength(25);
    expect((await big.call('GET', '/api/v1/products/?limit=1')).body.data).toHaveLength(1);
    expect((await big.call('GET', '/api/v1/products/?state=all&limit=100')).body.data).toHaveLength(25);
  });
  it('a repeated parameter → 400', async () => {
    const res = await big.call('GET', '/api/v1/products/?state=sold&state=all');
    expect([res.status, codeOf(res)]).toEqual([400, 'bad-request']);
  });
  it('isolation: each seller lists only their own products', async () => {
    const other = addShop(big.sim);
    await big.call('POST', '/api/v1/products/', listing({ sku: 'THEIRS' }), { token: other.apiKey });
    const theirs = await big.call('GET', '/api/v1/products/', undefined, { token: other.apiKey });
    expect(theirs.body.data.map((p: { sku: string }) => p.sku)).toEqual(['THEIRS']);
    const mine = await walkAll(big, 'limit=100');
    expect(mine).not.toContain('THEIRS');
    expect(mine).toHaveLength(25);
  });
  it('the read-after-create delay hides a new listing from the list too', async () => {
    big.sim.config.readAfterCreateDelayMs = 5_000;
    await createProduct(big, { sku: 'LATE' });
    expect(await walkAll(big, 'limit=100')).not.toContain('LATE');
    big.sim.world.clock.advance(5_000);
    expect((await walkAll(big, 'limit=100'))[0]).toBe('LATE');
    big.sim.config.readAfterCreateDelayMs = 0;
  });
  it('from_created_date alone and to_created_date alone are inclusive bounds', async () => {
    const all = ProductsPage.parse((await big.call('GET', '/api/v1/products/?limit=100')).body).data;
    const newest = all[0]!;
    const fromNewest = await walkAll(big, `from_created_date=${newest.created_at}`);
    expect(fromNewest).toContain(newest.sku);
    const beforeAll = new Date(Date.parse(all.at(-1)!.created_at) - 1).toISOString();
    expect(await walkAll(big, `to_created_date=${beforeAll}`)).toEqual([]);
    const offset = newest.created_at.replace('Z', '+00:00');
    expect(await walkAll(big, `from_created_date=${encodeURIComponent(offset)}`)).toContain(newest.sku);
  });
});

async function walkAll(s: TestShop, query: string): Promise<string[]> {
  const skus: string[] = [];
  let cursor: string | null | undefined;
  do {
    const res = await s.call('GET', `/api/v1/products/?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    const page = ProductsPage.parse(res.body);
    skus.push(...page.data.map((p) => p.sku!));
    cursor = page.meta.has_more ? page.meta.cursor : null;
  } while (cursor);
  return skus;
}
