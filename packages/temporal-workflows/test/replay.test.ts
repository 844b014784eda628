// Determinism: recorded histories of every workflow type replay with the current workflow code. The
// histories committed under test/histories/ (exported with `temporal workflow show -o json`) guard
// against changes that would break running jobs; fresh ones from this run are replayed too.
// `UPDATE_HISTORIES=1 pnpm test packages/temporal-workflows/test/replay` records this release's set
// (`<type>@<RELEASE>.json`) where it is missing: histories are append-only, never re-recorded (README,
// "Changing workflow code"). Histories of code that no longer runs are kept under histories/retired/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { createOAuthClient, createSeller, addAddress } from '@selling-kit/simulator';
import { createListing } from '../../simulator/src/domain/products.ts';
import { workflowCode } from '../src/worker.ts';
import { markAsSold, pauseJob, resumeJob, startBulkJob } from '../src/client.ts';
import { laneWorkflowId } from '../src/workflows/shop-lane.ts';
import { sellerAuthWorkflowId } from '../src/workflows/seller-auth.ts';
import { appBudgetWorkflowId } from '../src/workflows/app-budget.ts';
import { shopWorkflowId } from '../src/workflows/multi-shop.ts';
import { saleWorkflowId } from '../src/workflows/sale.ts';
import type { SellerTokens } from '../src/activities/index.ts';
import { createMemoryTokenStore } from '../src/token-store.ts';
import { admin, csvFeed, job, listingBody, startEnv, type TestEnv } from './helpers.ts';

const dir = fileURLToPath(new URL('./histories/', import.meta.url));
/** The release whose histories UPDATE_HISTORIES=1 adds. */
const RELEASE = '0.2';
const tokens = new Map<string, SellerTokens>();
let env: TestEnv;

beforeAll(async () => {
  env = await startEnv('replay', {
    tokens: createMemoryTokenStore(tokens),
  });
}, 120_000);
afterAll(() => env?.close());

/** A history as `temporal workflow show -o json` prints it. */
function exportHistory(workflowId: string): unknown {
  const out = execFileSync(
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
  );
  return JSON.parse(out);
}

it('replays recorded histories of every workflow type with the current code', async () => {
  // One run of each workflow type, with the interesting paths: unknown outcomes verified, a 429, a
  // pause, children, a sale, an OAuth refresh through the auth workflow, the app-wide budget.
  const shop = env.shop('rp-a');
  await admin(env, 'POST', '/admin/faults', {
    type: 'timeout_after_commit',
    operationId: 'products.create',
    count: 2,
  });
  await admin(env, 'POST', '/admin/faults', {
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
  const manyId = `rp-many-${randomUUID()}`;
  await (
    await startBulkJob(
      env.client,
      {
        jobId: manyId,
        shops: [s1, s2].map((s, i) => ({
          shopId: s.shopId,
          credentialRef: s.ref,
          feed: { path: csvFeed(env, `RM${i}`, 5), format: 'csv' },
        })),
        operation: 'create',
        reportDir: env.dir,
        allowance: { limit: 10, windowMs: 500 },
      },
      env.taskQueue,
    )
  ).result();

  const seller = env.sim.world.sellers.get(shop.sellerId)!;
  const listing = await createListing(
    env.sim.world,
    env.sim.config,
    seller,
    listingBody('RP-SOLD') as never,
    {
      now: env.sim.world.clock.now(),
      skipPictureFetch: true,
    },
  );
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
    'bulk-listing': `bulk:${bulk.jobId}`,
    'multi-shop': `bulk:${manyId}`,
    'multi-shop-child': shopWorkflowId(manyId, s1.shopId),
    sale: saleWorkflowId(shop.shopId, { sku: listing.sku! }),
    'shop-lane': laneWorkflowId(env.taskQueue, shop.shopId, 'create_update'),
    'seller-auth': sellerAuthWorkflowId(oauthShop),
    'app-budget': appBudgetWorkflowId(env.taskQueue, app.clientId),
  };
  const fresh = Object.entries(ids).map(([name, workflowId]) => ({
    name,
    workflowId,
    history: exportHistory(workflowId),
  }));
  if (process.env.UPDATE_HISTORIES === '1') {
    mkdirSync(dir, { recursive: true });
    // Then `pnpm exec prettier --write` the folder (the repo checks JSON formatting).
    for (const h of fresh) {
      const file = `${dir}${h.name}@${RELEASE}.json`;
      if (!existsSync(file)) writeFileSync(file, JSON.stringify(h.history, null, 2) + '\n');
    }
  }
  const committed = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({
      name: `committed:${f}`,
      workflowId: f,
      history: JSON.parse(readFileSync(dir + f, 'utf8')) as unknown,
    }));
  expect(committed.length).toBeGreaterThanOrEqual(7);
  const all = [...fresh, ...committed];
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories(
    { ...workflowCode, replayName: 'selling-kit-replay' },
    all.map(({ workflowId, history }) => ({ workflowId, history: history as never })),
  )) {
    replayed++;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(all.length);
}, 180_000);
