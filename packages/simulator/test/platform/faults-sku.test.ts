// Faults that target one SKU (a "poison item" the API always refuses): the rule's `sku` matches the `sku`
// of a JSON body (create) or the SKU of a by-sku path; other SKUs and requests without one pass.
import type { Handlers } from '../../src/handlers/types.ts';
import { adminCall, probeHandlers } from '../helpers.ts';
import { testShopPerFile } from '../fixtures.ts';

/** SKUs whose create reached the handler. */
const written: string[] = [];

const handlers: Handlers = {
  ...probeHandlers,
  'products.create': ({ body }) => {
    written.push((body as { sku: string }).sku);
    return { body: { product_id: written.length, slug: `p-${written.length}`, sku: null } };
  },
  'products.getBySku': ({ params }) => ({ body: { sku: params.sku } }),
};

const shop = testShopPerFile({ handlers, config: { timeScale: 10, seed: 7 } }, async ({ sim }) => {
  await adminCall(sim, 'DELETE', '/admin/faults');
  written.length = 0;
});

const create = (sku: string) => shop.call('POST', '/api/v1/products/', { sku });

test('a rule with `sku` fails every create of that SKU and no other', async () => {
  const res = await adminCall(shop.sim, 'POST', '/admin/faults', { type: 'error_500', sku: 'POISON-1' });
  expect(res.status).toBe(201);
  for (let i = 0; i < 3; i++) {
    const r = await create('POISON-1');
    expect(r.status).toBe(500);
    expect(r.body.errors[0].code).toBe('generic_error');
  }
  expect((await create('GOOD-1')).status).toBe(200);
  expect((await create('POISON-10')).status).toBe(200); // exact match, not a prefix
  expect(written).toEqual(['GOOD-1', 'POISON-10']);
  const counters = (await adminCall(shop.sim, 'GET', '/admin/faults')).body;
  expect(counters.rules[0]).toMatchObject({ sku: 'POISON-1', fired: 3, matched: 3 });
});

test('a rule with `sku` matches the SKU of a by-sku path; requests without a SKU pass', async () => {
  await adminCall(shop.sim, 'POST', '/admin/faults', { type: 'timeout_before_commit', sku: 'A/B 1' });
  const path = `/api/v1/products/by-sku/${encodeURIComponent('A/B 1')}/`;
  expect((await shop.call('GET', path)).status).toBe(504);
  expect((await shop.call('GET', '/api/v1/products/by-sku/OTHER/')).status).toBe(200);
  expect((await shop.call('GET', '/api/v1/shop/')).status).toBe(200);
  expect((await create('OTHER')).status).toBe(200);
});

test('an empty `sku` is refused with the field named', async () => {
  const res = await adminCall(shop.sim, 'POST', '/admin/faults', { type: 'error_500', sku: '' });
  expect(res.status).toBe(400);
  expect(res.body.errors[0].message).toMatch(/sku/);
});
