// Determinism of the webhook-driven workflows (delist on sale, the sales reconciliation, offers to
// likers): one run of each on the real dev server, replayed with the current code together with the
// committed histories under test/histories/ (which test/replay.test.ts replays too).
// `UPDATE_HISTORIES=1` records `<type>@<RELEASE>.json` where missing (append-only, then prettier).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { createListing } from '../../simulator/src/domain/products.ts';
import { workflowCode } from '../src/worker.ts';
import { recordLike, startDelist } from '../src/webhook-flows.ts';
import { delistWorkflowId, likerOffersWorkflowId, reconcileSalesWorkflow } from '../src/workflows/index.ts';
import { admin, listingBody, startEnv, type TestEnv } from './helpers.ts';

const dir = fileURLToPath(new URL('./histories/', import.meta.url));
const RELEASE = '0.2';
let env: TestEnv;

beforeAll(async () => {
  env = await startEnv('flows-replay');
}, 120_000);
afterAll(() => env?.close());

const exportHistory = (workflowId: string): unknown =>
  JSON.parse(
    execFileSync(
      process.env.TEMPORAL_CLI_PATH!,
      [
        'workflow',
        'show',
        '--workflow-id',
        workflowId,
        '--address',
        process.env.TEMPORAL_TEST_ADDRESS!,
        '--output',
        'json',
      ],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    ),
  );

it('replays the delist, sales reconciliation and offers workflows with the current code', async () => {
  const [a, b] = [env.shop('fr-a'), env.shop('fr-b')];
  const refs = [a, b].map((s) => ({ shopId: s.shopId, credentialRef: s.ref }));
  const make = async (s: { sellerId: number }, sku: string) =>
    (
      await createListing(
        env.sim.world,
        env.sim.config,
        env.sim.world.sellers.get(s.sellerId)!,
        listingBody(sku) as never,
        {
          now: env.sim.world.clock.now(),
          skipPictureFetch: true,
        },
      )
    ).productId;
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
  const histories = Object.entries(fresh).map(([name, id]) => ({
    name,
    workflowId: id,
    history: exportHistory(id),
  }));
  if (process.env.UPDATE_HISTORIES === '1')
    for (const h of histories) {
      const file = `${dir}${h.name}@${RELEASE}.json`;
      if (!existsSync(file)) writeFileSync(file, JSON.stringify(h.history, null, 2) + '\n');
    }
  const committed = Object.keys(fresh)
    .map((name) => `${dir}${name}@${RELEASE}.json`)
    .filter((f) => existsSync(f));
  expect(committed).toHaveLength(3);
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories({ ...workflowCode, replayName: 'webhook-flows-replay' }, [
    ...histories.map(({ workflowId, history }) => ({ workflowId, history: history as never })),
    ...committed.map((f) => ({ workflowId: f, history: JSON.parse(readFileSync(f, 'utf8')) as never })),
  ])) {
    replayed++;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(6);
}, 120_000);
