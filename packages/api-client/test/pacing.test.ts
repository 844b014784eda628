// Pacing math: the sliding-window pacer never schedules more than the allowance in any window, queues
// concurrent callers in order, slows down after a 429 and recovers, and shares the app-wide budget.
import fc from 'fast-check';
import { SlidingWindowPacer, RATE_LIMITS, type PacingKey } from '../src/client/index.ts';
import { json, scriptedClient } from './helpers/scripted.ts';
import { RateLimitedError } from '../src/core/errors.ts';

const key = (identity = 'shop-1', group: PacingKey['group'] = 'create_update', app?: string): PacingKey => ({
  identity,
  group,
  app,
});

/** Most arrival times falling in any half-open window [t, t + windowMs). */
function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let max = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! >= windowMs) lo++;
    max = Math.max(max, hi - lo + 1);
  }
  return max;
}

describe('SlidingWindowPacer', () => {
  const noMargin = { marginMs: 0, marginRatio: 0 };

  it('lets the allowance through, then frees each slot one window after its answer', () => {
    const pacer = new SlidingWindowPacer({
      allowances: { create_update: { limit: 3, windowMs: 1000 } },
      ...noMargin,
    });
    expect([0, 0, 0].map((t) => pacer.acquire(key(), t))).toEqual([0, 0, 0]);
    // All three in flight: nothing frees before an answer + a window.
    expect(pacer.acquire(key(), 5)).toBe(1000);
    pacer.release(key(), 10);
    pacer.release(key(), 40);
    pacer.release(key(), 70);
    expect(pacer.acquire(key(), 100)).toBe(910);
    expect(pacer.acquire(key(), 1010)).toBe(0);
    expect(pacer.acquire(key(), 1010)).toBe(30);
  });

  it('adds the margin to the window', () => {
    const pacer = new SlidingWindowPacer({
      allowances: { general: { limit: 1, windowMs: 1000 } },
      marginMs: 50,
      marginRatio: 0.1,
    });
    expect(pacer.acquire(key('s', 'general'), 0)).toBe(0);
    pacer.release(key('s', 'general'), 0);
    expect(pacer.acquire(key('s', 'general'), 0)).toBe(1150);
  });

  it('keeps each identity and group apart', () => {
    const pacer = new SlidingWindowPacer({
      allowances: { create_update: { limit: 1, windowMs: 1000 } },
      ...noMargin,
    });
    expect(pacer.acquire(key('a'), 0)).toBe(0);
    expect(pacer.acquire(key('b'), 0)).toBe(0);
    expect(pacer.acquire(key('a', 'general'), 0)).toBe(0);
    expect(pacer.acquire(key('a'), 0)).toBeGreaterThan(0);
  });

  it('never lets the gateway count more than the allowance in a window, whatever the latencies (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 50, max: 2000 }),
        fc.integer({ min: 1, max: 16 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.double({ min: 0, max: 1, noNaN: true })), {
          minLength: 1,
          maxLength: 150,
        }),
        (limit, windowMs, workers, requests) => {
          // A discrete-event run: `workers` callers send `requests` (latency, where in flight the
          // gateway counts it); the gateway's sliding window must never exceed `limit`.
          const pacer = new SlidingWindowPacer({ allowances: { general: { limit, windowMs } }, ...noMargin });
          const k = key('s', 'general');
          const ready = Array.from({ length: workers }, () => 0);
          const arrivals: number[] = [];
          let next = 0;
          while (next < requests.length) {
            const w = ready.indexOf(Math.min(...ready));
            const now = ready[w]!;
            const wait = pacer.acquire(k, now);
            if (wait > 0) {
              ready[w] = now + wait;
              continue;
            }
            const [latency, at] = requests[next++]!;
            arrivals.push(now + latency * at);
            ready[w] = now + latency;
            pacer.release(k, now + latency);
          }
          expect(maxInWindow(arrivals, windowMs)).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });

  it('pauses for Retry-After, halves the allowance after a 429 and recovers gradually', () => {
    const windowMs = 1000;
    const pacer = new SlidingWindowPacer({
      allowances: { general: { limit: 100, windowMs } },
      ...noMargin,
      recoveryPerWindow: 0.25,
    });
    pacer.penalize(key('s', 'general'), 'group', 500, 0);
    expect(pacer.acquire(key('s', 'general'), 0)).toBe(500);
    expect(pacer.effectiveLimit('s', 'general', 500)).toBe(50);
    expect(pacer.effectiveLimit('s', 'general', 1500)).toBe(75);
    expect(pacer.effectiveLimit('s', 'general', 2500)).toBe(100);
    // Two 429s in a row: a quarter, never below the floor.
    pacer.penalize(key('t', 'general'), 'group', 0, 0);
    pacer.penalize(key('t', 'general'), 'group', 0, 0);
    expect(pacer.effectiveLimit('t', 'general', 0)).toBe(25);
  });

  it('shares the app-wide budget across the sellers of one application', () => {
    const pacer = new SlidingWindowPacer({
      allowances: { general: { limit: 100, windowMs: 1000 } },
      appWide: { limit: 4, windowMs: 1000 },
      ...noMargin,
    });
    const waits = ['s1', 's2', 's3', 's4', 's5'].map((s) => pacer.acquire(key(s, 'general', 'app-1'), 0));
    expect(waits.slice(0, 4)).toEqual([0, 0, 0, 0]);
    expect(waits[4]).toBeGreaterThan(0);
    // Another application (or an API key) is not affected.
    expect(pacer.acquire(key('s7', 'general', 'app-2'), 0)).toBe(0);
    expect(pacer.acquire(key('s8', 'general'), 0)).toBe(0);
  });

  it('defaults to the spec’s allowances', () => {
    const pacer = new SlidingWindowPacer();
    for (const group of ['create_update', 'insights', 'general'] as const) {
      expect(pacer.effectiveLimit('x', group, 0)).toBe(RATE_LIMITS[group].limit);
    }
  });
});

describe('pacing in the pipeline', () => {
  it('waits before sending once the window is full, per credential and group', async () => {
    const t = scriptedClient(
      [],
      { pacing: { allowances: { general: { limit: 2, windowMs: 1000 } }, marginMs: 0, marginRatio: 0 } },
      json(200, { id: 1, username: 'a', country_code: 'GB' }),
    );
    for (let i = 0; i < 5; i++) await t.client.shop.get();
    expect(t.clock.sleeps).toEqual([1000, 1000]);
    expect(t.events.filter((e) => e.type === 'pacing')).toHaveLength(2);
  });

  it('slows the group down after a 429', async () => {
    const t = scriptedClient(
      [json(429, { message: 'x', code: 'too_many_requests', group: 'general', retry_after_ms: 200 })],
      { pacing: { allowances: { general: { limit: 10, windowMs: 1000 } }, marginMs: 0, marginRatio: 0 } },
      json(200, { id: 1, username: 'a', country_code: 'GB' }),
    );
    await t.client.shop.get();
    const pacer = (t.client as unknown as { ctx: { requester: { config: { pacer: SlidingWindowPacer } } } })
      .ctx.requester.config.pacer;
    expect(pacer.effectiveLimit(t.client.credential!.identity, 'general', t.clock.time)).toBe(5);
  });

  it('a group paused longer than a call may wait fails at once as a rate limit with its wait, unsent', async () => {
    const t = scriptedClient(
      [json(429, { message: 'x', code: 'too_many_requests', group: 'general', retry_after_ms: 90_000 })],
      { retry: { maxRetryAfterMs: 30_000 }, totalTimeoutMs: 20_000 },
      json(200, { id: 1, username: 'a', country_code: 'GB' }),
    );
    await expect(t.client.shop.get()).rejects.toMatchObject({
      name: 'RateLimitedError',
      retryAfterMs: 90_000,
    });
    const sent = t.transport.requests.length;
    const next = await t.client.shop.get().catch((e: unknown) => e);
    expect(next).toBeInstanceOf(RateLimitedError);
    expect(next).toMatchObject({ code: 'too_many_requests', group: 'general', status: undefined });
    expect((next as RateLimitedError).retryAfterMs).toBeGreaterThan(80_000);
    expect((next as Error).message).toMatch(
      /was not sent: the general allowance .* paused for another \d+ s/,
    );
    expect(t.transport.requests.length).toBe(sent);
  });

  it('a credential that fails before sending does not hold its pacing slot forever', async () => {
    let calls = 0;
    const auth = {
      identity: 'seller:flaky',
      authorization: async () => {
        if (calls++ === 0) throw new Error('token store unavailable');
        return 'Bearer pat_ok_0123456789';
      },
      secrets: () => [],
    };
    const t = scriptedClient(
      [],
      {
        apiKey: undefined,
        auth,
        pacing: { allowances: { general: { limit: 1, windowMs: 60_000 } }, marginMs: 0, marginRatio: 0 },
      },
      json(200, { id: 1, username: 'a', country_code: 'GB' }),
    );
    await expect(t.client.shop.get()).rejects.toThrow('token store unavailable');
    await expect(t.client.shop.get()).resolves.toMatchObject({ id: 1 });
    // The slot counts as used for one window (the pacer cannot know nothing was sent), then is free:
    // not held in flight for good, which would starve the credential's allowance.
    expect(t.clock.sleeps).toEqual([60_000]);
    expect(t.transport.requests).toHaveLength(1);
  });

  it('withAuth / forSeller clients share one pacer (one app-wide budget)', async () => {
    const t = scriptedClient(
      [],
      {
        apiKey: undefined,
        oauth: { clientId: 'app-1', clientSecret: 'secret_abcdefghijkl' },
        pacing: { appWide: { limit: 3, windowMs: 1000 }, marginMs: 0, marginRatio: 0 },
      },
      json(200, { id: 1, username: 'a', country_code: 'GB' }),
    );
    const sellers = [1, 2, 3, 4].map((id) =>
      t.client.forSeller({
        sellerId: id,
        tokens: { accessToken: `pat_${id}_0123456789`, refreshToken: `prt_${id}_0123456789` },
      }),
    );
    for (const s of sellers) await s.shop.get();
    expect(t.clock.sleeps).toEqual([1000]);
    expect(new Set(sellers.map((s) => s.credential!.identity)).size).toBe(4);
  });
});
