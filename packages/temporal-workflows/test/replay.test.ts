// Determinism: recorded histories of every workflow type replay with the current workflow code. The
// histories committed under test/histories/ (exported with `temporal workflow show -o json`) guard
// against changes that would break running jobs; fresh ones from this run are replayed too.
// `UPDATE_HISTORIES=1 pnpm test packages/temporal-workflows/test/replay` records this release's set
// (`<type>@<RELEASE>.json`) where it is missing: histories are append-only, never re-recorded (README,
// "Changing workflow code"). Histories of code that no longer runs are kept under histories/retired/.
// @needs temporal
import { readdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createOAuthClient, createSeller, addAddress } from '@selling-kit/simulator';
import { markAsSold, pauseJob, resumeJob, startBulkJob } from '../src/client/client.ts';
import {
  appBudgetWorkflowId,
  bulkWorkflowId,
  laneWorkflowId,
  saleWorkflowId,
  sellerAuthWorkflowId,
  shopWorkflowId,
} from '../src/contract.ts';
import type { SellerTokens } from '../src/activities/index.ts';
import { createMemoryTokenStore } from '../src/stores/token-store.ts';
import { addFault, admin, csvFeed, job, listDirectly, useTestEnv } from './helpers.ts';
import { shopsWithFeeds, startShopsJob } from './many-shop-jobs.ts';
import { freshHistories, HISTORIES_DIR, replayHistories } from './replay-histories.ts';

const tokens = new Map<string, SellerTokens>();
const env = useTestEnv('replay', { tokens: createMemoryTokenStore(tokens) });

it('replays recorded histories of every workflow type with the current code', async () => {
  // One run of each workflow type, with the interesting paths: unknown outcomes verified, a 429, a
  // pause, children, a sale, an OAuth refresh through the auth workflow, the app-wide budget.
  const shop = env.shop('rp-a');
  await addFault(env, { type: 'timeout_after_commit', operationId: 'products.create', count: 2 });
  await addFault(env, {
    type: 'rate_limit_storm',
    operationId: 'products.create',
    count: 1,
    retryAfterMs: 2000,
  });
  const bulk = job(env, shop, csvFeed(env, 'RA', 30), { allowance: { limit: 10, windowMs: 500 } });
  const bulkHandle = await startBulkJob(env.client, bulk, env.taskQueue);
  await pauseJob(env.client, bulk.jobId);
  await new Promise((r) => setTimeout(r, 300));
  await resumeJob(env.client, bulk.jobId);
  await bulkHandle.result();
  await admin(env, 'DELETE', '/admin/faults');

  const [s1, s2] = [env.shop('rp-b'), env.shop('rp-c')];
  const many = await startShopsJob(env, 'rp-many', shopsWithFeeds(env, [s1, s2], 'RM', 5), {
    allowance: { limit: 10, windowMs: 500 },
  });
  await many.handle.result();

  const listing = await listDirectly(env, shop.sellerId, 'RP-SOLD');
  const shopRef = { shopId: shop.shopId, credentialRef: shop.ref };
  expect(
    (await markAsSold(env.client, { shop: shopRef, ref: { sku: listing.sku! } }, env.taskQueue)).status,
  ).toBe('sold');

  // A cross-lister seller whose token the API no longer takes: refresh through the auth workflow.
  const app = createOAuthClient(env.sim.world, 'partner-replay', ['http://127.0.0.1/cb']);
  const oauthSeller = createSeller(env.sim.world, { username: `rp-oauth-${randomUUID().slice(0, 6)}` });
  addAddress(env.sim.world, oauthSeller);
  const refresh = `prt_${randomUUID().replace(/-/g, '')}`;
  env.sim.world.refreshTokens.set(refresh, {
    token: refresh,
    clientId: app.clientId,
    sellerId: oauthSeller.id,
    scopes: ['products_read', 'products_write'] as never,
    used: false,
    expiresAt: env.sim.world.clock.now() + 86_400_000,
  });
  tokens.set('rp-oauth', {
    baseUrl: env.sim.url,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    accessToken: 'pat_unknown',
    refreshToken: refresh,
    expiresAt: Date.now() + 3_600_000,
  });
  const oauthShop = `rp-oauth-${oauthSeller.id}-${randomUUID().slice(0, 4)}`;
  const oauthJob = job(env, { shopId: oauthShop, ref: 'rp-oauth' }, csvFeed(env, 'RO', 5), {
    shop: { shopId: oauthShop, credentialRef: 'rp-oauth', auth: 'oauth' },
    appBudget: { appId: app.clientId, allowance: { limit: 100, windowMs: 1000 }, leaseMs: 1000 },
  });
  expect((await (await startBulkJob(env.client, oauthJob, env.taskQueue)).result()).done).toBe(5);

  const ids: Record<string, string> = {
    'bulk-listing': bulkWorkflowId(bulk.jobId),
    'multi-shop': bulkWorkflowId(many.jobId),
    'multi-shop-child': shopWorkflowId(many.jobId, s1.shopId),
    sale: saleWorkflowId(shop.shopId, { sku: listing.sku! }),
    'shop-lane': laneWorkflowId(env.taskQueue, shop.shopId, 'create_update'),
    'seller-auth': sellerAuthWorkflowId(oauthShop),
    'app-budget': appBudgetWorkflowId(env.taskQueue, app.clientId),
  };
  const fresh = freshHistories(ids);
  const committed = readdirSync(HISTORIES_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({
      name: `committed:${f}`,
      workflowId: f,
      history: JSON.parse(readFileSync(HISTORIES_DIR + f, 'utf8')) as unknown,
    }));
  expect(committed.length).toBeGreaterThanOrEqual(7);
  const all = [...fresh, ...committed];
  const { failures, replayed } = await replayHistories('selling-kit-replay', all);
  expect(failures).toEqual([]);
  expect(replayed).toBe(all.length);
}, 180_000);
