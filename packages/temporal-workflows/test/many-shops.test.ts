// Many shops in one job (a child per shop), cross-lister jobs with OAuth sellers (refresh through the
// seller's auth workflow, a job pausing when the seller must re-authorise) and the app-wide budget — on
// the real dev server (global set-up) against the simulator over 127.0.0.1.
// @needs temporal
import { randomUUID } from 'node:crypto';
import { createOAuthClient } from '@selling-kit/simulator';
import { sellerAuthWorkflowId } from '../src/workflows/seller-auth.ts';
import { cancelJob, getProgress, reconnectSeller, resumeJob, startBulkJob } from '../src/client/client.ts';
import { shopWorkflowId } from '../src/workflows/multi-shop.ts';
import type { SellerTokens } from '../src/activities/index.ts';
import { createMemoryTokenStore } from '../src/stores/token-store.ts';
import { admin, csvFeed, job, products, reportOf, useTestEnv } from './helpers.ts';
import { shopsWithFeeds, startShopsJob } from './many-shop-jobs.ts';
import { createSeller, addAddress } from '@selling-kit/simulator';
import { authStateQuery } from '../src/workflows/messages.ts';

const tokens = new Map<string, SellerTokens>();
const env = useTestEnv('many', { tokens: createMemoryTokenStore(tokens) });

const counters = async () =>
  (await admin(env, 'GET', '/admin/counters')) as {
    rateLimits: Record<string, Record<string, { allowed: number; limited: number }>>;
  };

/** A cross-lister's OAuth application. */
function oauthApp() {
  return createOAuthClient(env.sim.world, `partner-${randomUUID().slice(0, 6)}`, ['http://127.0.0.1/cb']);
}

/** A seller connected to `app`: tokens issued by the simulator, kept in the worker's token store. */
function connect(app: { clientId: string; clientSecret: string }, ref: string, sellerId?: number) {
  const seller = sellerId
    ? env.sim.world.sellers.get(sellerId)!
    : createSeller(env.sim.world, { username: `${ref}-${randomUUID().slice(0, 6)}` });
  if (!sellerId) addAddress(env.sim.world, seller);
  const now = env.sim.world.clock.now();
  const access = `pat_${randomUUID().replace(/-/g, '')}`;
  const refresh = `prt_${randomUUID().replace(/-/g, '')}`;
  const scopes = ['products_read', 'products_write', 'shop_read'];
  env.sim.world.accessTokens.set(access, {
    token: access,
    clientId: app.clientId,
    sellerId: seller.id,
    scopes: scopes as never,
    expiresAt: now + 3_600_000,
  });
  env.sim.world.refreshTokens.set(refresh, {
    token: refresh,
    clientId: app.clientId,
    sellerId: seller.id,
    scopes: scopes as never,
    used: false,
    expiresAt: now + 365 * 86_400_000,
  });
  tokens.set(ref, {
    baseUrl: env.sim.url,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    accessToken: access,
    refreshToken: refresh,
    expiresAt: Date.now() + 3_600_000,
  });
  return { sellerId: seller.id, shopId: `many-${seller.id}-${randomUUID().slice(0, 4)}`, ref };
}

describe('one job over many shops', () => {
  it('fans out a child job per shop, each at its own allowance; progress by query; a report per shop', async () => {
    const shops = [env.shop('m-1'), env.shop('m-2'), env.shop('m-3')];
    const { jobId, handle } = await startShopsJob(env, 'many', shopsWithFeeds(env, shops, 'M', 30), {
      allowance: { limit: 10, windowMs: 1000 },
      maxConcurrentShops: 2,
    });
    let seen = await getProgress(env.client, jobId);
    for (let i = 0; i < 100 && !Object.values(seen.shops ?? {}).some((s) => s.done > 0); i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await getProgress(env.client, jobId);
    }
    expect(Object.keys(seen.shops!).sort()).toEqual(shops.map((s) => s.shopId).sort());
    expect(Object.values(seen.shops!).filter((s) => s.state === 'running').length).toBeLessThanOrEqual(2);
    expect(seen.done).toBeGreaterThan(0);
    const result = await handle.result();
    expect(result).toMatchObject({ state: 'finished', total: 90, done: 90, failed: 0, rateLimited: 0 });
    shops.forEach((s, i) => expect(products(env, s.sellerId, `M${i}`)).toHaveLength(30));
    const report = await reportOf(env, jobId);
    expect(report).toHaveLength(90);
    expect(new Set(report.map((r) => r.shopId)).size).toBe(3);
    // Each shop's child is findable by the job id and its shop.
    const children: string[] = [];
    for (let i = 0; i < 50 && children.length < 3; i++) {
      children.length = 0;
      for await (const w of env.client.workflow.list({
        query: `SellingKitJobId = '${jobId}' AND SellingKitShop IS NOT NULL`,
      }))
        children.push(w.workflowId);
      if (children.length < 3) await new Promise((r) => setTimeout(r, 100));
    }
    expect(children.sort()).toEqual(shops.map((s) => shopWorkflowId(jobId, s.shopId)).sort());
  }, 120_000);

  it('shops started together spread over their first window, and keep their places window after window', async () => {
    // Started together, four shops would send each window in the same second (a slot reopens one window
    // after its answer), a burst the workers and a sale beside them feel every window.
    const shops = [env.shop('s-1'), env.shop('s-2'), env.shop('s-3'), env.shop('s-4')];
    const windowMs = 4000;
    const { handle } = await startShopsJob(env, 'many', shopsWithFeeds(env, shops, 'S', 60), {
      allowance: { limit: 30, windowMs },
    });
    expect(await handle.result()).toMatchObject({ state: 'finished', total: 240, done: 240, failed: 0 });
    const created = shops.map((s, i) =>
      products(env, s.sellerId, `S${i}`)
        .map((p) => p.createdAt)
        .sort((a, b) => a - b),
    );
    // Each shop's windows (30 creates each) begin a quarter window after the previous shop's.
    const starts = created.map((times) => [times[0]!, times[30]!] as const);
    const order = [...starts.keys()].sort((a, b) => starts[a]![0] - starts[b]![0]);
    for (const w of [0, 1] as const)
      for (let k = 1; k < order.length; k++) {
        const gap = starts[order[k]!]![w] - starts[order[k - 1]!]![w];
        expect({ window: w, gap: gap >= windowMs / 8 }).toEqual({ window: w, gap: true });
      }
  }, 120_000);

  it('cancel reaches every running shop; shops not started yet are cancelled without a request', async () => {
    const shops = [env.shop('c-1'), env.shop('c-2'), env.shop('c-3')];
    const { jobId, handle } = await startShopsJob(env, 'many', shopsWithFeeds(env, shops, 'C', 40), {
      allowance: { limit: 5, windowMs: 1000 },
      maxConcurrentShops: 2,
    });
    while ((await getProgress(env.client, jobId)).done < 5) await new Promise((r) => setTimeout(r, 50));
    await cancelJob(env.client, jobId);
    const result = await handle.result();
    expect(result.state).toBe('cancelled');
    expect(result.shops![shops[2]!.shopId]!.state).toBe('cancelled');
    expect(products(env, shops[2]!.sellerId, 'C2')).toHaveLength(0);
    const report = await reportOf(env, jobId);
    const created =
      products(env, shops[0]!.sellerId, 'C0').length + products(env, shops[1]!.sellerId, 'C1').length;
    expect(created).toBeLessThan(80);
    expect(report.filter((r) => r.status === 'ok')).toHaveLength(created);
    expect(report.filter((r) => r.status === 'cancelled')).toHaveLength(80 - created);
  }, 120_000);
});

describe('cross-lister jobs (OAuth sellers)', () => {
  it('a 401 refreshes once through the seller auth workflow and the job goes on', async () => {
    const app = oauthApp();
    const shop = connect(app, `seller-${randomUUID().slice(0, 6)}`);
    const stale = tokens.get(shop.ref)!.accessToken;
    env.sim.world.accessTokens.delete(stale); // expired early, as far as the API is concerned
    const input = job(env, shop, csvFeed(env, 'OA', 20), {
      shop: { shopId: shop.shopId, credentialRef: shop.ref, auth: 'oauth' },
    });
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', done: 20, failed: 0 });
    expect(products(env, shop.sellerId, 'OA')).toHaveLength(20);
    const auth = await env.client.workflow.getHandle(sellerAuthWorkflowId(shop.shopId)).query(authStateQuery);
    expect(auth).toMatchObject({ state: 'active', refreshes: 1, version: 1 });
    expect(tokens.get(shop.ref)!.accessToken).not.toBe(stale);
    expect(tokens.get(shop.ref)!.version).toBe(1);
  }, 120_000);

  it('invalid_grant: the job pauses with "reauthorization required" instead of looping; reconnect and resume finish it', async () => {
    const app = oauthApp();
    const shop = connect(app, `seller-${randomUUID().slice(0, 6)}`);
    const t = tokens.get(shop.ref)!;
    env.sim.world.accessTokens.delete(t.accessToken);
    env.sim.world.refreshTokens.delete(t.refreshToken); // the seller revoked the app
    const input = job(env, shop, csvFeed(env, 'OB', 10), {
      shop: { shopId: shop.shopId, credentialRef: shop.ref, auth: 'oauth' },
    });
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    let p = await getProgress(env.client, input.jobId);
    for (let i = 0; i < 100 && p.state !== 'paused'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      p = await getProgress(env.client, input.jobId);
    }
    expect(p.state).toBe('paused');
    expect(p.reason).toMatch(/reauthorization required/);
    const auth = await env.client.workflow.getHandle(sellerAuthWorkflowId(shop.shopId)).query(authStateQuery);
    expect(auth.state).toBe('reauthorization_required');
    // Paused, not looping: no further refresh attempts while it waits.
    const before = (await counters()).rateLimits[`oauth:${app.clientId}:seller:${shop.sellerId}`];
    await new Promise((r) => setTimeout(r, 1000));
    expect((await counters()).rateLimits[`oauth:${app.clientId}:seller:${shop.sellerId}`]).toEqual(before);
    expect(products(env, shop.sellerId, 'OB')).toHaveLength(0);
    // The seller authorises the app again: new tokens in the store, the auth workflow told, the job resumed.
    const again = connect(app, shop.ref, shop.sellerId);
    expect(again.sellerId).toBe(shop.sellerId);
    expect((await reconnectSeller(env.client, shop.shopId)).state).toBe('active');
    await resumeJob(env.client, input.jobId);
    expect(await handle.result()).toMatchObject({ state: 'finished', done: 10, failed: 0 });
    expect(products(env, shop.sellerId, 'OB')).toHaveLength(10);
  }, 120_000);

  it('sellers of one app share its app-wide budget: every shop lists, 0 × 429 at the app-wide limit', async () => {
    const saved = { app: env.sim.config.appWideLimit, create: env.sim.config.rateLimits.create_update };
    // Each seller may create 20 per real second; the app as a whole only 40 — three sellers would want 60.
    env.sim.config.rateLimits.create_update = { limit: 20, windowMs: 10_000 };
    env.sim.config.appWideLimit = { limit: 40, windowMs: 10_000 };
    await admin(env, 'POST', '/admin/counters/reset');
    try {
      const app = oauthApp();
      const sellers = [0, 1, 2].map((i) => connect(app, `app-${i}-${randomUUID().slice(0, 6)}`));
      const shops = shopsWithFeeds(env, sellers, 'AB', 40).map((s) => ({ ...s, auth: 'oauth' as const }));
      const { handle } = await startShopsJob(env, 'app', shops, {
        allowance: { limit: 20, windowMs: 1000 },
        appBudget: {
          appId: app.clientId,
          allowance: { limit: 40, windowMs: 1000 },
          headroom: 0.1,
          leaseMs: 1000,
        },
      });
      const result = await handle.result();
      expect(result).toMatchObject({ state: 'finished', done: 120, failed: 0, rateLimited: 0 });
      sellers.forEach((s, i) => expect(products(env, s.sellerId, `AB${i}`)).toHaveLength(40));
      const c = (await counters()).rateLimits;
      expect(c[`app:${app.clientId}`]!.app_wide).toEqual({ allowed: 120, limited: 0 });
    } finally {
      env.sim.config.appWideLimit = saved.app;
      env.sim.config.rateLimits.create_update = saved.create;
    }
  }, 120_000);
});
