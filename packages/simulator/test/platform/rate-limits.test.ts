// The gateway's rate limits: the spec's per-shop/seller groups, the app-wide budget of OAuth clients,
// the 429 body (RateLimitBody) and an exact Retry-After. Windows are shrunk with the time scale or moved
// with the simulated clock; no assertion depends on how fast this machine is.
import { RateLimitBody, GRANT_ENDPOINT_PATH } from '@selling-kit/api-client/core';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createApiKey,
  createOAuthClient,
  createSeller,
  type RunningSimulator,
  type StartSimulatorOptions,
} from '../../src/index.ts';
import { adminCall, call, probeHandlers, startTestShop, type CallResult, type TestShop } from '../helpers.ts';

const CREATE = ['POST', '/api/v1/products/'] as const;
const INSIGHTS = ['GET', '/api/v1/insights/shop/live/'] as const;
const GENERAL = ['GET', '/api/v1/shop/'] as const;

const running: RunningSimulator[] = [];
afterAll(() => Promise.all(running.map((s) => s.close())));

async function shopWith(options: StartSimulatorOptions = {}): Promise<TestShop> {
  const shop = await startTestShop({ handlers: probeHandlers, ...options });
  running.push(shop.sim);
  return shop;
}

/** Runs `n` calls, `width` at a time. */
async function burst(n: number, fn: () => Promise<CallResult>, width = 25): Promise<CallResult[]> {
  const out: CallResult[] = [];
  for (let done = 0; done < n;) {
    const batch = Math.min(width, n - done);
    out.push(...(await Promise.all(Array.from({ length: batch }, fn))));
    done += batch;
  }
  return out;
}

function expect429(res: CallResult, group: string) {
  expect(res.status).toBe(429);
  const body = RateLimitBody.parse(res.body);
  expect(body.group).toBe(group);
  expect(typeof res.body.id).toBe('string');
  const header = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(header)).toBe(true);
  expect(header).toBe(Math.ceil(body.retry_after_ms / 1000));
  return body;
}

/**
 * Fills a window: one request alone (its simulated arrival is bracketed by t1Lo..t1Hi), then the
 * rest. Returns the bracket so the announced wait can be checked exactly.
 */
async function fill(shop: TestShop, req: readonly [string, string], limit: number, gapMs = 0) {
  const clock = shop.sim.world.clock;
  const t1Lo = clock.now();
  const first = await shop.call(req[0], req[1], req[0] === 'POST' ? {} : undefined);
  const t1Hi = clock.now();
  expect(first.status).toBe(200);
  // Optionally set the first request apart from the rest by a jump of the simulated clock.
  if (gapMs) clock.advance(gapMs);
  const rest = await burst(limit - 1, () => shop.call(req[0], req[1], req[0] === 'POST' ? {} : undefined));
  expect(rest.every((r) => r.status === 200)).toBe(true);
  return { t1Lo, t1Hi };
}

/** The announced real wait must be the real time until the first request leaves the window. */
function expectExactWait(
  shop: TestShop,
  retryAfterMs: number,
  bracket: { t1Lo: number; t1Hi: number },
  tLo: number,
  tHi: number,
  windowMs: number,
) {
  const scale = shop.sim.config.timeScale;
  expect(retryAfterMs).toBeGreaterThanOrEqual(Math.floor((bracket.t1Lo + windowMs - tHi) / scale));
  expect(retryAfterMs).toBeLessThanOrEqual(Math.ceil((bracket.t1Hi + windowMs - tLo) / scale));
}

describe('create or full update: 200 per 10 s per shop', () => {
  test('the 201st request in 10 s gets the gateway 429; waiting Retry-After then succeeds', async () => {
    const shop = await shopWith({ config: { timeScale: 4 } }); // the 10 s window lasts 2.5 real seconds
    const clock = shop.sim.world.clock;
    const bracket = await fill(shop, CREATE, 200);
    const tLo = clock.now();
    const limited = await shop.call(...CREATE, {});
    const tHi = clock.now();
    const body = expect429(limited, 'create_update');
    expect(body.code).toBe('too_many_requests');
    expectExactWait(shop, body.retry_after_ms, bracket, tLo, tHi, 10_000);
    expect(body.retry_after_ms).toBeLessThanOrEqual(2500);

    // Other groups of the same shop are unaffected.
    expect((await shop.call(...GENERAL)).status).toBe(200);

    await sleep(body.retry_after_ms);
    const after = await shop.call(...CREATE, {});
    expect(after.status).toBe(200);

    const counters = (await adminCall(shop.sim, 'GET', '/admin/counters')).body;
    expect(counters.rateLimits[`shop:${shop.seller.id}`].create_update).toEqual({ allowed: 201, limited: 1 });
  });
});

describe('live insights: 600 per 5 min per shop', () => {
  test('the 601st request gets 429 with the exact remaining wait; the window reopens when it passes', async () => {
    const shop = await shopWith();
    const clock = shop.sim.world.clock;
    const bracket = await fill(shop, INSIGHTS, 600, 10_000);
    const tLo = clock.now();
    const limited = await shop.call(...INSIGHTS);
    const tHi = clock.now();
    const body = expect429(limited, 'insights');
    expectExactWait(shop, body.retry_after_ms, bracket, tLo, tHi, 300_000);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(280); // 300 s - the 10 s gap - the burst
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(290);

    // Rejected requests are not counted: still 600 in the window.
    expect(shop.sim.rateLimiter.inWindow(`shop:${shop.seller.id}`, 'insights')).toBe(600);
    await adminCall(shop.sim, 'POST', '/admin/clock/advance', { ms: body.retry_after_ms });
    expect((await shop.call(...INSIGHTS)).status).toBe(200);
    // Only the first request left the window (the others came 10 simulated seconds later).
    expect((await shop.call(...INSIGHTS)).status).toBe(429);
  });
});

describe('everything else: 6,000 per minute shared across the group', () => {
  test('the allowance is shared by every endpoint of the group (limits overridden to stay small)', async () => {
    const shop = await shopWith({
      config: { timeScale: 20, rateLimits: { general: { limit: 5, windowMs: 20_000 } } },
    });
    expect(shop.sim.config.rateLimits.create_update).toEqual({ limit: 200, windowMs: 10_000 });
    const clock = shop.sim.world.clock;
    const bracket = await fill(shop, GENERAL, 5);
    // A different endpoint of the same group shares the allowance.
    const tLo = clock.now();
    const limited = await shop.call('GET', '/api/v1/orders/');
    const tHi = clock.now();
    const body = expect429(limited, 'general');
    expectExactWait(shop, body.retry_after_ms, bracket, tLo, tHi, 20_000);
    await sleep(body.retry_after_ms);
    expect((await shop.call(...GENERAL)).status).toBe(200);
  });

  test('with the spec default the whole 6,000 fit and the next is refused', async () => {
    const shop = await shopWith();
    const results = await burst(6000, () => shop.call(...GENERAL), 50);
    expect(results.filter((r) => r.status === 200)).toHaveLength(6000);
    expect429(await shop.call(...GENERAL), 'general');
  }, 60_000);
});

describe('allowances are per shop or seller', () => {
  test('one shop exhausting its allowance does not touch another shop’s', async () => {
    const shop = await shopWith({
      config: { rateLimits: { create_update: { limit: 3, windowMs: 10_000 } } },
    });
    const other = createSeller(shop.sim.world, { username: 'other-shop' });
    const { key } = createApiKey(shop.sim.world, 'partner-test', other.id);
    await burst(3, () => shop.call(...CREATE, {}));
    expect429(await shop.call(...CREATE, {}), 'create_update');
    const theirs = await burst(3, () => call(shop.sim.url, ...CREATE, {}, { token: key }));
    expect(theirs.map((r) => r.status)).toEqual([200, 200, 200]);
    const counters = shop.sim.rateLimiter.snapshot();
    expect(counters[`shop:${shop.seller.id}`]!.create_update).toEqual({ allowed: 3, limited: 1 });
    expect(counters[`shop:${other.id}`]!.create_update).toEqual({ allowed: 3, limited: 0 });
  });

  test('config.rateLimitsEnabled=false lifts every limit (and can be toggled through the admin surface)', async () => {
    const shop = await shopWith({
      config: { rateLimitsEnabled: false, rateLimits: { create_update: { limit: 2, windowMs: 10_000 } } },
    });
    const results = await burst(20, () => shop.call(...CREATE, {}));
    expect(results.every((r) => r.status === 200)).toBe(true);
    await adminCall(shop.sim, 'PATCH', '/admin/config', { rateLimitsEnabled: true });
    await burst(2, () => shop.call(...CREATE, {}));
    expect429(await shop.call(...CREATE, {}), 'create_update');
  });
});

describe('app-wide budget of cross-lister applications', () => {
  test('all sellers of one OAuth client share the app-wide budget; API keys and other clients do not', async () => {
    const shop = await shopWith({ config: { appWideLimit: { limit: 6, windowMs: 60_000 } } });
    const world = shop.sim.world;
    const app = createOAuthClient(world, 'crosslister', ['http://127.0.0.1:9/cb']);
    const otherApp = createOAuthClient(world, 'crosslister-2', ['http://127.0.0.1:9/cb']);
    const sellers = [createSeller(world), createSeller(world)];
    const token = async (clientId: string, sellerId: number) =>
      (await adminCall(shop.sim, 'POST', '/admin/oauth/tokens', { clientId, sellerId })).body
        .access_token as string;
    const [a, b] = [await token(app.clientId, sellers[0]!.id), await token(app.clientId, sellers[1]!.id)];

    for (let i = 0; i < 3; i++) {
      expect((await call(shop.sim.url, ...GENERAL, undefined, { token: a })).status).toBe(200);
      expect((await call(shop.sim.url, ...CREATE, {}, { token: b })).status).toBe(200);
    }
    const limited = await call(shop.sim.url, ...INSIGHTS, undefined, { token: a });
    expect429(limited, 'app_wide');
    expect429(await call(shop.sim.url, ...GENERAL, undefined, { token: b }), 'app_wide');

    // Another application serving the same seller has its own budget.
    const c = await token(otherApp.clientId, sellers[0]!.id);
    expect((await call(shop.sim.url, ...GENERAL, undefined, { token: c })).status).toBe(200);
    // Direct partners (API keys) have no application-wide limit.
    const viaKey = await burst(10, () => shop.call(...GENERAL));
    expect(viaKey.every((r) => r.status === 200)).toBe(true);

    const counters = (await adminCall(shop.sim, 'GET', '/admin/counters')).body.rateLimits;
    expect(counters[`app:${app.clientId}`].app_wide).toEqual({ allowed: 6, limited: 2 });
    expect(counters[`oauth:${app.clientId}:seller:${sellers[0]!.id}`].general.allowed).toBe(3);
  });

  test('the token endpoint and /status are not metered', async () => {
    const shop = await shopWith({ config: { rateLimits: { general: { limit: 1, windowMs: 60_000 } } } });
    const results = await burst(5, () => call(shop.sim.url, 'GET', '/status'));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const tokens = await burst(5, () =>
      call(shop.sim.url, 'POST', GRANT_ENDPOINT_PATH, 'grant_type=x', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(tokens.every((r) => r.status === 400)).toBe(true);
  });
});
