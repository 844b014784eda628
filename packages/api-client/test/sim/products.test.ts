// client.products against the simulator over real HTTP: every method, with the SKU / product ID /
// slug variants.
import { ConflictError, ProductNotFoundError, type ProductRef } from '../../src/index.ts';
import { listing, putBody, shopPerFile, startShop, uniqueSku } from '../helpers/sim.ts';

const shop = shopPerFile();

async function created(overrides = {}) {
  const body = listing(overrides);
  const res = await shop.client.products.create(body);
  return { body, ...res };
}

const refsOf = (p: { sku?: string | null; product_id: number; slug: string }): [string, ProductRef][] => [
  ['sku', { sku: p.sku! }],
  ['productId', { productId: p.product_id }],
  ['slug', { slug: p.slug }],
];

describe('products', () => {
  it('create returns the keys of the new listing', async () => {
    const body = listing();
    const res = await shop.client.products.create(body);
    expect(res).toMatchObject({ sku: body.sku, product_id: expect.any(Number), slug: expect.any(String) });
  });

  it('getBySku / getByProductId / getBySlug return the same listing', async () => {
    const p = await created();
    const bySku = await shop.client.products.getBySku(p.sku!);
    const byId = await shop.client.products.getByProductId(p.product_id);
    const bySlug = await shop.client.products.getBySlug(p.slug);
    for (const got of [bySku, byId, bySlug]) {
      expect(got).toMatchObject({
        sku: p.sku,
        product_id: p.product_id,
        slug: p.slug,
        price_amount: '25.00',
        price_currency: 'GBP',
        quantity: 1,
        brand: expect.any(String),
      });
    }
  });

  it('list iterates items across cursors and pages with .pages()', async () => {
    const fresh = await startShop();
    try {
      for (let i = 0; i < 5; i++) await fresh.client.products.create(listing());
      const ids: number[] = [];
      for await (const p of fresh.client.products.list({ state: 'selling', limit: 2 }))
        ids.push(p.product_id);
      expect(ids).toHaveLength(5);
      expect(new Set(ids).size).toBe(5);
      const sizes: number[] = [];
      for await (const page of fresh.client.products.list({ limit: 2, sort_by: 'id_asc' }).pages())
        sizes.push(page.data.length);
      expect(sizes).toEqual([2, 2, 1]);
      const sorted = await fresh.client.products.list({ sort_by: 'id_asc', limit: 100 }).toArray();
      expect(sorted.map((p) => p.product_id)).toEqual([...ids].sort((a, b) => a - b));
    } finally {
      await fresh.close();
    }
  });

  it.each(['sku', 'productId', 'slug'])('update (PUT) by %s replaces the listing', async (kind) => {
    const p = await created();
    const ref = Object.fromEntries(refsOf(p))[kind]!;
    const res = await shop.client.products.update(
      ref,
      putBody({ description: `Updated by ${kind} #nike`, price_amount: '30.00' }),
    );
    expect(res.product_id).toBe(p.product_id);
    const after = await shop.client.products.get(ref);
    expect(after).toMatchObject({ description: `Updated by ${kind} #nike`, price_amount: '30.00' });
  });

  it('updateBySku / updateByProductId / updateBySlug, and upsertBySku creates a new SKU', async () => {
    const p = await created();
    await shop.client.products.updateBySku(p.sku!, putBody({ price_amount: '31.00' }));
    await shop.client.products.updateByProductId(p.product_id, putBody({ price_amount: '32.00' }));
    await shop.client.products.updateBySlug(p.slug, putBody({ price_amount: '33.00' }));
    expect((await shop.client.products.getBySku(p.sku!)).price_amount).toBe('33.00');
    const sku = uniqueSku('UPSERT');
    const res = await shop.client.products.upsertBySku(sku, putBody());
    expect(res.sku).toBe(sku);
    expect((await shop.client.products.getBySku(sku)).product_id).toBe(res.product_id);
  });

  it('patchBySku / patchByProductId / patchBySlug change price and discount', async () => {
    const p = await created();
    await shop.client.products.patchBySku(p.sku!, { price_amount: '40.00' });
    expect((await shop.client.products.getBySku(p.sku!)).price_amount).toBe('40.00');
    await shop.client.products.patchByProductId(p.product_id, { discount_price: '35.00' });
    expect((await shop.client.products.getByProductId(p.product_id)).discount_price).toBe('35.00');
    await shop.client.products.patchBySlug(p.slug, { price_amount: '45.00' });
    expect((await shop.client.products.getBySlug(p.slug)).price_amount).toBe('45.00');
  });

  it('boost / unboost set is_boosted', async () => {
    const p = await created();
    await shop.client.products.boost({ sku: p.sku! });
    expect((await shop.client.products.getBySku(p.sku!)).is_boosted).toBe(true);
    await shop.client.products.unboost({ productId: p.product_id });
    expect((await shop.client.products.getBySku(p.sku!)).is_boosted).toBe(false);
  });

  it('restock sets the quantity; sellOut sells the listing out', async () => {
    const p = await created();
    await shop.client.products.restock({ slug: p.slug }, 3);
    expect((await shop.client.products.getBySku(p.sku!)).quantity).toBe(3);
    await shop.client.products.sellOut({ sku: p.sku! });
    const after = await shop.client.products.getBySku(p.sku!);
    expect(after.quantity).toBe(0);
    expect(after.status).not.toBe('STATUS_ONSALE');
    const sold = await shop.client.products.list({ state: 'sold', limit: 100 }).toArray();
    expect(sold.map((x) => x.product_id)).toContain(p.product_id);
  });

  it('restock after sellOut (and after markAsSold) puts the listing back on sale: restocking by PATCH', async () => {
    const p = await created();
    await shop.client.products.sellOut({ sku: p.sku! });
    await shop.client.products.restock({ sku: p.sku! }, 2);
    expect(await shop.client.products.getBySku(p.sku!)).toMatchObject({
      status: 'STATUS_ONSALE',
      quantity: 2,
    });
    await shop.client.products.markAsSold({ productId: p.product_id });
    await shop.client.products.restock({ productId: p.product_id }, 1);
    expect(await shop.client.products.getBySku(p.sku!)).toMatchObject({
      status: 'STATUS_ONSALE',
      quantity: 1,
    });
  });

  it.each(['sku', 'productId', 'slug'])('markAsSold by %s', async (kind) => {
    const p = await created();
    const ref = Object.fromEntries(refsOf(p))[kind]!;
    await shop.client.products.markAsSold(ref);
    expect((await shop.client.products.get(ref)).status).not.toBe('STATUS_ONSALE');
  });

  it('markAsSoldBySku / ByProductId / BySlug', async () => {
    const [a, b, c] = [await created(), await created(), await created()];
    await shop.client.products.markAsSoldBySku(a.sku!);
    await shop.client.products.markAsSoldByProductId(b.product_id);
    await shop.client.products.markAsSoldBySlug(c.slug);
    for (const p of [a, b, c])
      expect((await shop.client.products.getByProductId(p.product_id)).status).not.toBe('STATUS_ONSALE');
  });

  it('deleteBySku / deleteByProductId / deleteBySlug remove the listing (idempotent)', async () => {
    const [a, b, c] = [await created(), await created(), await created()];
    await shop.client.products.deleteBySku(a.sku!);
    await shop.client.products.deleteByProductId(b.product_id);
    await shop.client.products.deleteBySlug(c.slug);
    await shop.client.products.deleteBySku(a.sku!);
    for (const p of [a, b, c]) {
      await expect(shop.client.products.getByProductId(p.product_id)).rejects.toBeInstanceOf(
        ProductNotFoundError,
      );
    }
  });

  it('delete with failIfActiveOffers → ConflictError while an offer is active', async () => {
    const p = await created();
    await shop.admin('POST', `/admin/products/${p.product_id}/likes`, { likerId: 4242 });
    await shop.client.offers.submitBySku(p.sku!, {
      offer_recipient_id: 4242,
      offer_value: 20,
      offer_currency: 'GBP',
    });
    const err = await shop.client.products
      .delete({ sku: p.sku! }, { failIfActiveOffers: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({
      status: 409,
      code: 'product_has_active_offers',
      errorId: expect.any(String),
    });
    await shop.client.products.delete({ sku: p.sku! });
  });

  it('simulatePurchase and simulateLike (staging test endpoints)', async () => {
    const p = await created({ quantity: 2 });
    await shop.client.products.simulateLike({ sku: p.sku! });
    await shop.client.products.simulatePurchase({ productId: p.product_id });
    expect((await shop.client.products.getBySku(p.sku!)).quantity).toBe(1);
    const orders = await shop.client.orders.list().toArray();
    expect(orders.some((o) => o.line_items.some((li) => li.product_id === p.product_id))).toBe(true);
  });
});
