// Probes of the products list's parameters (GET /api/v1/products/): the accepted values, the 400s that
// name them, the page size, and the state and created-date filters on a listing of this run.
import { PRODUCTS_PAGE_MAX, ProductSortBy, ProductStateFilter, type Product } from '@selling-kit/api-client';
import type { ProbeContext } from './context.ts';
import { expectReply, isSuccess, showReply, type Check, type Probe } from './probe.ts';

const LISTED = 'list';

/** One page of the list with these raw query parameters. */
function page(ctx: ProbeContext, query: Record<string, string | number>) {
  return ctx.call((o) =>
    ctx.client.request<{ data: Product[] }>({ method: 'GET', path: '/api/v1/products/', query }, o),
  );
}

/** 400, and the message names every accepted value. */
async function expectNaming(
  ctx: ProbeContext,
  query: Record<string, string>,
  values: readonly string[],
): Promise<Check> {
  const r = await page(ctx, query);
  if (r.status !== 400) return expectReply(r, 400);
  const missing = values.filter((v) => !(r.message ?? '').includes(v));
  return missing.length
    ? { answer: `${showReply(r)} (the message lacks ${missing.join(', ')})`, ok: false }
    : { answer: `${showReply(r)} naming ${values.join(', ')}`, ok: true };
}

const has = (r: { value?: { data: Product[] } }, sku: string) =>
  (r.value?.data ?? []).some((p) => p.sku === sku);

export const listProbes: Probe[] = [
  {
    id: 'list.sort-by-invalid',
    spec: `sort_by: ${ProductSortBy.options.join(', ')} — failure "400, message names accepted values"`,
    expected: '400 naming the values',
    choice: '',
    run: (ctx) => expectNaming(ctx, { sort_by: 'price_desc' }, ProductSortBy.options),
  },
  {
    id: 'list.state-invalid',
    spec: `state: ${ProductStateFilter.options.join(', ')} — failure "400, message names accepted values"`,
    expected: '400 naming the values',
    choice: '',
    run: (ctx) => expectNaming(ctx, { state: 'removed' }, ProductStateFilter.options),
  },
  {
    id: 'list.from-created-date-malformed',
    spec: 'from_created_date: ISO 8601 datetime — "400 on malformed value"',
    expected: '400',
    choice: '',
    run: async (ctx) => expectReply(await page(ctx, { from_created_date: 'yesterday' }), 400),
  },
  {
    id: 'list.to-created-date-malformed',
    spec: 'to_created_date: ISO 8601 datetime — "400 on malformed value"',
    expected: '400',
    choice: '',
    run: async (ctx) => expectReply(await page(ctx, { to_created_date: '2026-13-45' }), 400),
  },
  {
    id: 'list.limit-max',
    spec: `limit: "Page size, maximum ${PRODUCTS_PAGE_MAX}"`,
    expected: `200, at most ${PRODUCTS_PAGE_MAX} items`,
    choice: '',
    async run(ctx) {
      const r = await page(ctx, { limit: PRODUCTS_PAGE_MAX });
      const n = r.value?.data.length ?? 0;
      return { answer: `${showReply(r)}, ${n} items`, ok: isSuccess(r) && n <= PRODUCTS_PAGE_MAX };
    },
  },
  {
    id: 'list.limit-over-max',
    spec: `limit: "Page size, maximum ${PRODUCTS_PAGE_MAX}" — failure: not shown`,
    expected: '400',
    choice: `limit ${PRODUCTS_PAGE_MAX + 1} → 400 naming the range (not silently capped)`,
    run: async (ctx) => expectReply(await page(ctx, { limit: PRODUCTS_PAGE_MAX + 1 }), 400),
  },
  {
    id: 'list.created-date-window',
    spec: 'from_created_date / to_created_date: ISO 8601 datetime filters',
    expected: "200 with the run's listing",
    choice: 'the bounds are inclusive (from = to = the listing’s created_at finds it)',
    async run(ctx) {
      const made = await ctx.createShared(LISTED);
      const l = made.listing;
      if (!l?.createdAt) return { answer: `test listing: ${showReply(made.reply)}`, ok: false };
      const r = await page(ctx, {
        from_created_date: l.createdAt,
        to_created_date: l.createdAt,
        limit: PRODUCTS_PAGE_MAX,
      });
      return {
        answer: `${showReply(r)}, ${has(r, l.sku) ? 'listed' : 'not listed'}`,
        ok: isSuccess(r) && has(r, l.sku),
      };
    },
  },
  {
    id: 'list.state-filter',
    spec: 'The products list filter state accepts: selling, sold, all.',
    expected: 'a sold listing: in sold and all, not in selling',
    choice: '',
    needs: ['list.created-date-window'],
    async run(ctx) {
      const l = ctx.listing(LISTED);
      const sold = await ctx.call((o) => ctx.client.products.markAsSoldBySku(l.sku, o));
      if (!isSuccess(sold)) return { answer: `mark-as-sold ${showReply(sold)}`, ok: false };
      const seen: string[] = [];
      let ok = true;
      for (const [state, want] of [
        ['sold', true],
        ['all', true],
        ['selling', false],
      ] as const) {
        const r = await page(ctx, {
          state,
          from_created_date: l.createdAt!,
          to_created_date: l.createdAt!,
          limit: PRODUCTS_PAGE_MAX,
        });
        const listed = has(r, l.sku);
        seen.push(`${state}: ${isSuccess(r) ? (listed ? 'listed' : 'not listed') : showReply(r)}`);
        ok &&= isSuccess(r) && listed === want;
      }
      return { answer: seen.join(', '), ok };
    },
  },
  {
    id: 'list.inverted-date-range',
    spec: 'Spec: not shown. Public reference: from_created_date later than to_created_date → 422',
    expected: '422 validation',
    choice: 'from later than to → 422 validation',
    run: async (ctx) =>
      expectReply(
        await page(ctx, {
          from_created_date: '2026-02-01T00:00:00Z',
          to_created_date: '2026-01-01T00:00:00Z',
        }),
        422,
        'validation',
      ),
  },
];
