// Probes of the product lifecycle on the run's own listings: create, read (across the read-after-create
// delay), patch, sell out, restock, mark as sold, delete (twice), duplicate SKUs, PUT by SKU.
import type { PatchProductRequest, Product } from '@selling-kit/api-client';
import { putBody } from './listing.ts';
import { READ_AFTER_CREATE_DELAYS_MS, type ProbeContext } from './context.ts';
import { expectReply, expectSuccess, isSuccess, showReply, type Check, type Probe } from './probe.ts';
import { stateOf, STATE_CHOICE, type ProductState } from './states.ts';

/** The lifecycle listing (its SKU ends in `life`), and the PUT-by-SKU one. */
const LIFE = 'life';
const UPSERT = 'put';

/** How long a new listing is re-read before it counts as unreadable. */
const READ_WINDOW = `${READ_AFTER_CREATE_DELAYS_MS.reduce((a, b) => a + b, 0) / 1000} s`;

const sameMoney = (a: string | undefined, b: string) => a !== undefined && Number(a) === Number(b);

/** Reads the listing and checks its state (and, optionally, more of it). */
export async function expectState(
  ctx: ProbeContext,
  sku: string,
  want: ProductState,
  also?: (p: Product) => string | undefined,
): Promise<Check> {
  const r = await ctx.read(sku);
  if (!isSuccess(r) || !r.value) return { answer: `read back: ${showReply(r)}`, ok: false };
  const problem = also?.(r.value);
  return {
    answer: `status ${r.value.status}${problem ? ` (${problem})` : ''}`,
    ok: stateOf(r.value.status) === want && problem === undefined,
  };
}

const life = (ctx: ProbeContext) => ctx.listing(LIFE).sku;

/** A PATCH of the lifecycle listing, by SKU. */
const patchLife = (ctx: ProbeContext, body: PatchProductRequest) =>
  ctx.call((o) => ctx.client.products.patchBySku(life(ctx), body, o));

/** PATCHes the lifecycle listing's quantity to `quantity`: 2xx, then selling with that quantity. */
async function restockLife(ctx: ProbeContext, quantity: number): Promise<Check> {
  const r = await ctx.call((o) => ctx.client.products.restock({ sku: life(ctx) }, quantity, o));
  return expectSuccess(
    r,
    isSuccess(r)
      ? await expectState(ctx, life(ctx), 'selling', (p) =>
          p.quantity === quantity ? undefined : `quantity ${p.quantity}`,
        )
      : undefined,
  );
}

/** Marks the lifecycle listing as sold: 2xx, then sold. */
async function markLifeSold(ctx: ProbeContext): Promise<Check> {
  const r = await ctx.call((o) => ctx.client.products.markAsSoldBySku(life(ctx), o));
  return expectSuccess(r, isSuccess(r) ? await expectState(ctx, life(ctx), 'sold') : undefined);
}

export const productProbes: Probe[] = [
  {
    id: 'products.create',
    spec: 'POST /api/v1/products/ — "Create a listing"',
    expected: '2xx {product_id, slug, sku}',
    choice: '',
    async run(ctx) {
      const { sku, reply } = await ctx.create(LIFE);
      if (!isSuccess(reply) || !reply.value) return { answer: showReply(reply), ok: false };
      const echoed = reply.value.sku === sku;
      return {
        answer: `${showReply(reply)} product_id ${reply.value.product_id}${echoed ? '' : `, sku ${reply.value.sku}`}`,
        ok: echoed,
      };
    },
  },
  {
    id: 'products.read-after-create',
    spec: 'product_not_found: "A just-created listing may need a short delay before it can be fetched."',
    expected: `200 within ${READ_WINDOW}, selling`,
    choice: `GET re-tried on 404 product_not_found for up to ${READ_WINDOW}`,
    needs: ['products.create'],
    async run(ctx) {
      const sku = ctx.ledger.prefix + LIFE;
      const { reply, tries } = await ctx.readBack(sku);
      const p = reply.value;
      if (!isSuccess(reply) || !p) return { answer: `${showReply(reply)} after ${tries} tries`, ok: false };
      ctx.listings.set(LIFE, { sku, productId: p.product_id, slug: p.slug, createdAt: p.created_at });
      const waited = tries > 1 ? ` after ${tries - 1}× product_not_found` : '';
      const same = sameMoney(p.price_amount, ctx.template.body.price_amount) && p.quantity === 1;
      return {
        answer: `${showReply(reply)}${waited}, status ${p.status}${same ? '' : `, price ${p.price_amount} × ${p.quantity}`}`,
        ok: stateOf(p.status) === 'selling' && same,
      };
    },
  },
  {
    id: 'products.read-by-product-id-and-slug',
    spec: 'product ID: "usable in paths (by-product-id)"; slug: "usable in paths (by-slug)"',
    expected: '200 for both, the same listing',
    choice: '',
    needs: ['products.read-after-create'],
    async run(ctx) {
      const l = ctx.listing(LIFE);
      const byId = await ctx.call((o) => ctx.client.products.getByProductId(l.productId, o));
      const bySlug = await ctx.call((o) => ctx.client.products.getBySlug(l.slug, o));
      const same = byId.value?.sku === l.sku && bySlug.value?.sku === l.sku;
      return {
        answer: `by id ${showReply(byId)}, by slug ${showReply(bySlug)}${same ? '' : ' (another listing)'}`,
        ok: isSuccess(byId) && isSuccess(bySlug) && same,
      };
    },
  },
  {
    id: 'products.patch-price',
    spec: 'Operations: products (… patch …): a partial update',
    expected: '2xx, price read back',
    choice: '',
    needs: ['products.read-after-create'],
    async run(ctx) {
      const r = await patchLife(ctx, { price_amount: '18.00' });
      return expectSuccess(
        r,
        isSuccess(r)
          ? await expectState(ctx, life(ctx), 'selling', (p) =>
              sameMoney(p.price_amount, '18.00') ? undefined : `price ${p.price_amount}`,
            )
          : undefined,
      );
    },
  },
  {
    id: 'products.duplicate-sku',
    spec: 'sku: "Unique per seller … A duplicate fails validation." Rule 4: "A listing with an existing SKU fails."',
    expected: '422 validation',
    choice: 'duplicate SKU → 422 validation (the spec does not show the code)',
    needs: ['products.read-after-create'],
    async run(ctx) {
      return expectReply((await ctx.create(LIFE)).reply, 422, 'validation');
    },
  },
  {
    id: 'products.sell-out',
    spec: 'Transition: selling — "PATCH quantity to 0" → sold (sell out)',
    expected: '2xx, then sold',
    choice: STATE_CHOICE,
    needs: ['products.read-after-create'],
    async run(ctx) {
      const r = await patchLife(ctx, { quantity: 0 });
      return expectSuccess(r, isSuccess(r) ? await expectState(ctx, life(ctx), 'sold') : undefined);
    },
  },
  {
    id: 'products.patch-price-when-sold',
    spec: 'product_not_on_sale: "Operation needs an on-sale product (it may be sold or removed)"',
    expected: '422 product_not_on_sale',
    choice: 'a price PATCH of a sold listing is refused (only a quantity restocks it)',
    needs: ['products.sell-out'],
    async run(ctx) {
      return expectReply(await patchLife(ctx, { price_amount: '17.00' }), 422, 'product_not_on_sale');
    },
  },
  {
    id: 'products.restock-after-sell-out',
    spec: 'Operations: products (… "restocking by PATCH" …)',
    expected: '2xx, then selling with the new quantity',
    choice: 'PATCH quantity ≥ 1 puts a sold-out listing back on sale',
    needs: ['products.sell-out'],
    run: (ctx) => restockLife(ctx, 2),
  },
  {
    id: 'products.mark-as-sold',
    spec: 'Transition: selling — "mark-as-sold operation" → sold',
    expected: '2xx, then sold',
    choice: '',
    needs: ['products.restock-after-sell-out'],
    run: markLifeSold,
  },
  {
    id: 'products.mark-as-sold-again',
    spec: 'Spec: not shown. Public reference: mark-as-sold is a "no-op success if not in a selling state"',
    expected: '2xx, still sold',
    choice: 'mark-as-sold of a sold listing: 200, nothing changes',
    needs: ['products.mark-as-sold'],
    run: markLifeSold,
  },
  {
    id: 'products.restock-after-mark-as-sold',
    spec: 'Operations: products (… "restocking by PATCH" …); other transitions out of sold: not shown',
    expected: '2xx, then selling',
    choice: 'a listing marked as sold restocks by PATCH quantity ≥ 1, as a sold-out one',
    needs: ['products.mark-as-sold'],
    run: (ctx) => restockLife(ctx, 1),
  },
  {
    id: 'products.delete',
    spec: 'Transition: selling — delete, "No active offers, or flag not set" → removed',
    expected: '2xx, then GET 404 product_not_found',
    choice: 'a removed listing reads as 404 product_not_found',
    needs: ['products.read-after-create'],
    async run(ctx) {
      const r = await ctx.call((o) => ctx.client.products.deleteBySku(life(ctx), {}, o));
      if (!isSuccess(r)) return { answer: showReply(r), ok: false };
      const after = await ctx.read(life(ctx));
      return {
        answer: `${showReply(r)}, then GET ${showReply(after)}`,
        ok: after.status === 404 && after.code === 'product_not_found',
      };
    },
  },
  {
    id: 'products.delete-twice',
    spec: 'Spec: not shown. Public reference: DELETE is "idempotent (200 even if absent)"',
    expected: '2xx',
    choice: 'deleting a removed listing again answers 200',
    needs: ['products.delete'],
    async run(ctx) {
      return expectSuccess(await ctx.call((o) => ctx.client.products.deleteBySku(life(ctx), {}, o)));
    },
  },
  {
    id: 'products.duplicate-sku-after-delete',
    spec: 'sku: "Unique per seller, including against sold and deleted products." removed: "its SKU stays reserved"',
    expected: '422 validation',
    choice: 'duplicate SKU → 422 validation (the spec does not show the code)',
    needs: ['products.delete'],
    async run(ctx) {
      return expectReply((await ctx.create(LIFE)).reply, 422, 'validation');
    },
  },
  {
    id: 'products.put-removed-sku',
    spec: 'removed: "Deleted product; its SKU stays reserved."',
    expected: '422 product_not_on_sale',
    choice: 'PUT by the SKU of a removed listing is refused with product_not_on_sale, not revived',
    needs: ['products.delete'],
    async run(ctx) {
      const r = await ctx.call((o) => ctx.client.products.updateBySku(life(ctx), putBody(ctx.template), o));
      return expectReply(r, 422, 'product_not_on_sale');
    },
  },
  {
    id: 'products.unknown-sku',
    spec: 'product_not_found (404): "No product for the SKU, product ID or slug for this seller."',
    expected: '404 product_not_found',
    choice: '',
    async run(ctx) {
      // A SKU of this run that is never created: nothing to clean.
      const r = await ctx.call((o) => ctx.client.products.getBySku(`${ctx.ledger.prefix}never`, o));
      return expectReply(r, 404, 'product_not_found');
    },
  },
  {
    id: 'products.create-quantity-zero',
    spec: 'Rule 1: "Creating a listing requires quantity of at least 1." (code validation)',
    expected: '422 validation',
    choice: '',
    async run(ctx) {
      return expectReply((await ctx.create('q0', { quantity: 0 })).reply, 422, 'validation');
    },
  },
  {
    id: 'products.put-upsert-creates',
    spec: 'PUT /api/v1/products/by-sku/{sku}/ — "Fully update by SKU" (public reference: an upsert)',
    expected: '2xx, then the new listing reads back, selling',
    choice: 'PUT by SKU of a new SKU creates the listing (upsert)',
    async run(ctx) {
      const sku = ctx.ledger.sku(UPSERT);
      const r = await ctx.upsert(sku, putBody(ctx.template));
      if (!isSuccess(r)) return { answer: showReply(r), ok: false };
      const { reply, tries } = await ctx.readBack(sku);
      const p = reply.value;
      if (!isSuccess(reply) || !p)
        return { answer: `${showReply(r)}, then GET ${showReply(reply)}`, ok: false };
      ctx.listings.set(UPSERT, { sku, productId: p.product_id, slug: p.slug, createdAt: p.created_at });
      return {
        answer: `${showReply(r)}, then GET ${showReply(reply)}${tries > 1 ? ` (try ${tries})` : ''} status ${p.status}`,
        ok: stateOf(p.status) === 'selling',
      };
    },
  },
  {
    id: 'products.put-updates',
    spec: 'PUT /api/v1/products/by-sku/{sku}/ — "Fully update by SKU"',
    expected: '2xx, new price read back',
    choice: '',
    needs: ['products.put-upsert-creates'],
    async run(ctx) {
      const sku = ctx.listing(UPSERT).sku;
      const r = await ctx.call((o) =>
        ctx.client.products.updateBySku(sku, putBody(ctx.template, { price_amount: '25.00' }), o),
      );
      return expectSuccess(
        r,
        isSuccess(r)
          ? await expectState(ctx, sku, 'selling', (p) =>
              sameMoney(p.price_amount, '25.00') ? undefined : `price ${p.price_amount}`,
            )
          : undefined,
      );
    },
  },
  {
    id: 'products.patch-negative-quantity',
    spec: 'quantity: "A negative value fails validation."',
    expected: '422 validation, listing unchanged',
    choice: '',
    needs: ['products.put-upsert-creates'],
    async run(ctx) {
      const sku = ctx.listing(UPSERT).sku;
      const r = await ctx.call((o) => ctx.client.products.patchBySku(sku, { quantity: -1 }, o));
      const check = expectReply(r, 422, 'validation');
      if (!check.ok) return check;
      const after = await expectState(ctx, sku, 'selling', (p) =>
        p.quantity === 1 ? undefined : `quantity ${p.quantity}`,
      );
      return { answer: `${check.answer}, ${after.answer}`, ok: after.ok };
    },
  },
];
