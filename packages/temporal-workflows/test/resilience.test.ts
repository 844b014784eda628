// Bulk jobs that never hang, falsely pause or fail for good (issue 21 §2, review N2, N4, N8, N11, N14,
// R17): an API that cannot be reached, a noisy API, a token store that fails one request, a pause during
// the pacing wait, lookups only where they can tell something, pre-existing SKUs in doubt. Real dev server
// (global set-up), simulator over 127.0.0.1 (time-scaled ×10).
// @needs temporal
import { randomUUID } from 'node:crypto';
import { createOAuthClient, createSeller, addAddress } from '@selling-kit/simulator';
import { createListing } from '../../simulator/src/domain/products.ts';
import { getProgress, pauseJob, resumeJob, startBulkJob } from '../src/client/client.ts';
import type { SellerTokens, TokenStore } from '../src/activities/index.ts';
import type { BulkJobInput, JobState } from '../src/types.ts';
import {
  addFault,
  admin,
  csvFeed,
  job,
  listingBody,
  products,
  reportOf,
  useTestEnv,
  waitFor,
} from './helpers.ts';

/** The worker's token store; `failOnce(ref, n)`: its n-th read of `ref` from now on throws once. */
const tokens = new Map<string, SellerTokens>();
const failing = new Map<string, number>();
const tokenStore: TokenStore = {
  get(ref) {
    const left = failing.get(ref);
    if (left !== undefined) {
      if (left <= 1) {
        failing.delete(ref);
        throw new Error('token store: connection terminated unexpectedly');
      }
      failing.set(ref, left - 1);
    }
    return tokens.get(ref);
  },
  set(ref, t) {
    tokens.set(ref, { ...t, version: (tokens.get(ref)?.version ?? 0) + 1 });
    return true;
  },
};

const env = useTestEnv('resil', { tokens: tokenStore });
afterEach(() => admin(env, 'DELETE', '/admin/faults'));

/** Starts the job and notes every state its progress shows until it ends. */
async function watched(input: BulkJobInput & { jobId: string }) {
  const handle = await startBulkJob(env.client, input, env.taskQueue);
  const states = new Set<JobState>();
  let done = false;
  const watching = (async () => {
    while (!done) {
      const p = await getProgress(env.client, input.jobId).catch(() => undefined);
      if (p) states.add(p.state);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const result = await handle.result().finally(() => (done = true));
  await watching;
  return { result, states };
}

/** GET-by-SKU requests the simulator answers from now on (a zero-latency rule counts what it matches). */
async function countLookups() {
  await addFault(env, { type: 'latency', latencyMs: 0, operationId: 'products.getBySku' });
  return async () => {
    const f = (await admin(env, 'GET', '/admin/faults')) as {
      rules: { type: string; operationId?: string; matched: number }[];
    };
    return f.rules.find((r) => r.type === 'latency' && r.operationId === 'products.getBySku')!.matched;
  };
}

describe('an API that cannot be reached (N2)', () => {
  it('connection refused: the job pauses with the reason; the credential fixed, a resume finishes it', async () => {
    const shop = env.shop('rs-refused');
    const good = env.keys.get(shop.ref)!;
    env.keys.set(shop.ref, { ...good, baseUrl: 'http://127.0.0.1:9' });
    const input = job(env, shop, csvFeed(env, 'RSR', 3));
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    const paused = await waitFor(
      'the job to pause',
      async () => {
        const p = await getProgress(env.client, input.jobId);
        return p.state === 'paused' && p;
      },
      120_000,
    );
    expect(paused.reason).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:9: ECONNREFUSED/);
    expect(paused).toMatchObject({ failed: 0, done: 0, pending: 3 });
    env.keys.set(shop.ref, good);
    await resumeJob(env.client, input.jobId);
    expect(await handle.result()).toMatchObject({ state: 'finished', done: 3, failed: 0 });
    expect(products(env, shop.sellerId, 'RSR')).toHaveLength(3);
  }, 180_000);
});

describe('server errors are judged by their rate (N4)', () => {
  it('a 150-item job with 60 × 500 in its one window finishes without pausing', async () => {
    const shop = env.shop('rs-noisy');
    await addFault(env, { type: 'error_500', operationId: 'products.create', count: 60 });
    const input = job(env, shop, csvFeed(env, 'RSN', 150), { allowance: { limit: 200, windowMs: 1000 } });
    const { result, states } = await watched(input);
    expect(result).toMatchObject({ state: 'finished', done: 150, failed: 0 });
    expect(states.has('paused')).toBe(false);
    expect(products(env, shop.sellerId, 'RSN')).toHaveLength(150);
  }, 120_000);
});

describe('a failure of our own on one request (N8)', () => {
  it('a token store that fails one read: that item is sent again, the rest of its window stands', async () => {
    const app = createOAuthClient(env.sim.world, `partner-${randomUUID().slice(0, 6)}`, [
      'http://127.0.0.1/cb',
    ]);
    const seller = createSeller(env.sim.world, { username: `rs-tok-${randomUUID().slice(0, 6)}` });
    addAddress(env.sim.world, seller);
    const ref = `rs-tok-${seller.id}`;
    const access = `pat_${randomUUID().replace(/-/g, '')}`;
    const scopes = ['products_read', 'products_write', 'shop_read'] as never;
    env.sim.world.accessTokens.set(access, {
      token: access,
      clientId: app.clientId,
      sellerId: seller.id,
      scopes,
      expiresAt: env.sim.world.clock.now() + 3_600_000,
    });
    tokens.set(ref, {
      baseUrl: env.sim.url,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      accessToken: access,
      refreshToken: `prt_${randomUUID().replace(/-/g, '')}`,
      expiresAt: Date.now() + 3_600_000,
    });
    // The worker's first read makes the seller's client; the next are the requests' own: the third fails.
    failing.set(ref, 3);
    const shop = { shopId: `rs-tok-${seller.id}`, ref, sellerId: seller.id };
    const input = job(env, shop, csvFeed(env, 'RST', 10), {
      shop: { shopId: shop.shopId, credentialRef: ref, auth: 'oauth' },
    });
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(failing.has(ref)).toBe(false); // it did fail once
    // Nothing was in doubt: no create needed a lookup to be known.
    expect(result).toMatchObject({ state: 'finished', done: 10, failed: 0, verified: 0 });
    expect(products(env, seller.id, 'RST')).toHaveLength(10);
  }, 120_000);
});

describe('a pause during the pacing wait (N11)', () => {
  it('nothing more is sent once paused, though the window was planned; resume finishes the job', async () => {
    const shop = env.shop('rs-pause');
    // 10 per 10 s: after the first window the job waits ~10 s for the next one's slots.
    const input = job(env, shop, csvFeed(env, 'RSP', 30), { allowance: { limit: 10, windowMs: 10_000 } });
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    await waitFor('the first window', async () => (await getProgress(env.client, input.jobId)).done >= 10);
    // The next window's slots are granted within a moment, to open ~10 s later: the job waits on its timer.
    await new Promise((r) => setTimeout(r, 2_000));
    await pauseJob(env.client, input.jobId);
    const sent = products(env, shop.sellerId, 'RSP').length;
    await new Promise((r) => setTimeout(r, 13_000)); // past the next window's opening
    expect(products(env, shop.sellerId, 'RSP').length).toBe(sent);
    expect(await getProgress(env.client, input.jobId)).toMatchObject({ state: 'paused', done: sent });
    await resumeJob(env.client, input.jobId);
    expect(await handle.result()).toMatchObject({ state: 'finished', done: 30, failed: 0 });
  }, 120_000);
});

describe('requests outside the pacing ring (N14)', () => {
  it('a create refused for another reason than a duplicate SKU costs no lookup', async () => {
    const shop = env.shop('rs-422');
    await addFault(env, {
      type: 'error_422',
      operationId: 'products.create',
      code: 'ingest_picture_error',
      message: 'a picture could not be downloaded: https://img.example/x.jpg',
    });
    const lookups = await countLookups();
    const input = job(env, shop, csvFeed(env, 'RSF', 5));
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', done: 0, failed: 5 });
    const report = await reportOf(env, input.jobId);
    expect(report.map((r) => r.code)).toEqual(new Array(5).fill('ingest_picture_error'));
    expect(await lookups()).toBe(0);
  }, 60_000);

  it("a create's 504 is verified by the workflow alone: one GET, not the client's too", async () => {
    const shop = env.shop('rs-504');
    await addFault(env, {
      type: 'timeout_after_commit',
      operationId: 'products.create',
      sku: 'RSV-2',
      count: 1,
    });
    const lookups = await countLookups();
    const input = job(env, shop, csvFeed(env, 'RSV', 3));
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', done: 3, failed: 0, verified: 1 });
    expect(await lookups()).toBe(1);
  }, 60_000);
});

describe('a create in doubt whose SKU was listed before the job (R17)', () => {
  it('verification finds the older listing: failed sku_exists, not ok with its id', async () => {
    const shop = env.shop('rs-old');
    const seller = env.sim.world.sellers.get(shop.sellerId)!;
    // Listed an hour before the job on the server's clock (the simulator's runs ahead ×10: said outright).
    const before = await createListing(env.sim.world, env.sim.config, seller, listingBody('RSO-2') as never, {
      now: Date.now() - 3_600_000,
      skipPictureFetch: true,
    });
    // The create's answer is lost before the service runs it: in doubt, verified by SKU.
    await addFault(env, {
      type: 'timeout_before_commit',
      operationId: 'products.create',
      sku: 'RSO-2',
      count: 1,
    });
    const input = job(env, shop, csvFeed(env, 'RSO', 3));
    const result = await (await startBulkJob(env.client, input, env.taskQueue)).result();
    expect(result).toMatchObject({ state: 'finished', done: 2, failed: 1, verified: 0 });
    const line = (await reportOf(env, input.jobId)).find((r) => r.sku === 'RSO-2');
    expect(line).toMatchObject({ status: 'failed', code: 'sku_exists' });
    expect(line!.message).toContain(String(before.productId));
    expect(line!.productId).toBeUndefined();
  }, 60_000);
});
