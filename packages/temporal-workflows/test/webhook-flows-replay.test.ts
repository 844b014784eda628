// Determinism of the webhook-driven workflows (delist on sale, the sales reconciliation, offers to
// likers): one run of each on the real dev server, replayed with the current code together with the
// committed histories under test/histories/ (which test/replay.test.ts replays too).
// `UPDATE_HISTORIES=1` records `<type>@<RELEASE>.json` where missing (append-only, then prettier).
// @needs temporal
import { existsSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { recordLike, startDelist } from '../src/webhooks/webhook-flows.ts';
import { delistWorkflowId, likerOffersWorkflowId, reconcileSalesWorkflow } from '../src/workflows/index.ts';
import { admin, listDirectly, useTestEnv } from './helpers.ts';
import { freshHistories, HISTORIES_DIR, RELEASE, replayHistories } from './replay-histories.ts';

const env = useTestEnv('flows-replay');

it('replays the delist, sales reconciliation and offers workflows with the current code', async () => {
  const [a, b] = [env.shop('fr-a'), env.shop('fr-b')];
  const refs = [a, b].map((s) => ({ shopId: s.shopId, credentialRef: s.ref }));
  const make = async (s: { sellerId: number }, sku: string) =>
    (await listDirectly(env, s.sellerId, sku)).productId;
  const sold = await make(a, 'FR-1');
  await make(b, 'FR-1');
  const order = (await admin(env, 'POST', '/admin/orders', { sellerId: a.sellerId, productIds: [sold] })) as {
    purchaseId: string;
  };
  await startDelist(
    env.client,
    { purchaseId: order.purchaseId, source: refs[0]!, productIds: [sold], shops: refs },
    env.taskQueue,
  );
  const delistId = delistWorkflowId(a.shopId, order.purchaseId);
  await env.client.workflow.getHandle(delistId).result();
  // A missed order and one already delisted: one child started, one refused.
  const missed = await make(a, 'FR-2');
  await make(b, 'FR-2');
  await admin(env, 'POST', '/admin/orders', { sellerId: a.sellerId, productIds: [missed] });
  const reconcileId = `reconcile-sales-${randomUUID()}`;
  const rec = await env.client.workflow.execute(reconcileSalesWorkflow, {
    taskQueue: env.taskQueue,
    workflowId: reconcileId,
    args: [{ shops: refs }],
  });
  expect(rec.started).toHaveLength(1);
  // Offers: two likers (one likes twice), a continue-as-new, then the listing sold.
  const liked = await make(a, 'FR-3');
  const product = env.sim.world.sellers.get(a.sellerId)!.products.get(liked)!;
  for (const l of [1, 2]) product.likes.add(l);
  const settings = { delayMs: 100, percentOff: 10, likesPerRun: 2 };
  for (const likerId of [1, 1, 2])
    await recordLike(env.client, { shop: refs[0]!, productId: liked, likerId, settings }, env.taskQueue);
  const offersId = likerOffersWorkflowId(a.shopId, liked);
  const offers = env.client.workflow.getHandle(offersId);
  const end = Date.now() + 20_000;
  while (env.sim.world.sellers.get(a.sellerId)!.offers.filter((o) => o.productId === liked).length < 2) {
    if (Date.now() > end) throw new Error('offers not sent');
    await new Promise((r) => setTimeout(r, 50));
  }
  await admin(env, 'POST', '/admin/orders', { sellerId: a.sellerId, productIds: [liked] });
  product.likes.add(3);
  await recordLike(env.client, { shop: refs[0]!, productId: liked, likerId: 3, settings }, env.taskQueue);
  await offers.result();

  const fresh = {
    'delist-on-sale': delistId,
    'reconcile-sales': reconcileId,
    'offers-to-likers': offersId,
  };
  const histories = freshHistories(fresh);
  const committed = Object.keys(fresh)
    .map((name) => `${HISTORIES_DIR}${name}@${RELEASE}.json`)
    .filter((f) => existsSync(f));
  expect(committed).toHaveLength(3);
  const { failures, replayed } = await replayHistories('webhook-flows-replay', [
    ...histories,
    ...committed.map((f) => ({ workflowId: f, history: JSON.parse(readFileSync(f, 'utf8')) as unknown })),
  ]);
  expect(failures).toEqual([]);
  expect(replayed).toBe(6);
}, 120_000);
