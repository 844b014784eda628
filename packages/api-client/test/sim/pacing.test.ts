// Pacing against the simulator's gateway (sliding windows, time-scaled): steady bulk traffic meets no
// 429 — 1,000 creates in the create/full-update group, the "everything else" group, and the
// cross-lister app-wide budget shared by several sellers. Without pacing the same load is limited.
// @needs minutes
import { createClient, type LogEvent } from '../../src/index.ts';
import { createOAuthClient, createSeller, listing, startShop } from '../helpers/sim.ts';

type Snapshot = Record<string, Record<string, { allowed: number; limited: number }>>;
const limited = (s: Snapshot) =>
  Object.values(s).reduce((n, groups) => n + Object.values(groups).reduce((m, c) => m + c.limited, 0), 0);
const allowed = (s: Snapshot, group: string) =>
  Object.values(s).reduce((n, groups) => n + (groups[group]?.allowed ?? 0), 0);

async function pool<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n; i = next++) out[i] = await task(i);
    }),
  );
  return out;
}

/** Real-time allowance of a group on a simulator running `timeScale` times faster. */
const scaled = (limit: number, simWindowMs: number, timeScale: number) => ({
  limit,
  windowMs: simWindowMs / timeScale,
});

describe('pacing: no 429 in steady state', () => {
  it('1,000 creates (create/full-update group, time-scaled ×20): 0 × 429', async () => {
    const timeScale = 20;
    const shop = await startShop({ config: { timeScale } });
    try {
      const events: LogEvent[] = [];
      const client = shop.clientWith({
        logger: (e) => events.push(e),
        pacing: { allowances: { create_update: scaled(200, 10_000, timeScale) } },
      });
      const results = await pool(1000, 50, () => client.products.create(listing()));
      expect(new Set(results.map((r) => r.product_id)).size).toBe(1000);
      const snapshot = shop.sim.rateLimiter.snapshot() as Snapshot;
      expect(allowed(snapshot, 'create_update')).toBe(1000);
      expect(limited(snapshot)).toBe(0);
      expect(events.filter((e) => e.type === 'retry')).toHaveLength(0);
      expect(events.filter((e) => e.type === 'pacing').length).toBeGreaterThan(0);
    } finally {
      await shop.close();
    }
  });

  const generalGroup = async (pacing: boolean) => {
    const timeScale = 60;
    const shop = await startShop({
      config: { timeScale, rateLimits: { general: { limit: 100, windowMs: 60_000 } } },
    });
    try {
      const events: LogEvent[] = [];
      const client = shop.clientWith({
        logger: (e) => events.push(e),
        retry: { maxRateLimitRetries: 50 },
        pacing: pacing ? { allowances: { general: scaled(100, 60_000, timeScale) } } : false,
      });
      await pool(350, 25, () => client.shop.get());
      return { snapshot: shop.sim.rateLimiter.snapshot() as Snapshot, events };
    } finally {
      await shop.close();
    }
  };

  it('350 reads over a 100-per-window allowance: 0 × 429 with pacing', async () => {
    const { snapshot, events } = await generalGroup(true);
    expect(allowed(snapshot, 'general')).toBe(350);
    expect(limited(snapshot)).toBe(0);
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(0);
  });

  it('the same load without pacing is rate limited (and recovered by retries)', async () => {
    const { snapshot, events } = await generalGroup(false);
    expect(allowed(snapshot, 'general')).toBe(350);
    expect(limited(snapshot)).toBeGreaterThan(0);
    expect(events.some((e) => e.type === 'retry' && e.reason === 'rate_limited')).toBe(true);
  });

  it('the cross-lister app-wide budget is shared by all sellers of one client: 0 × 429', async () => {
    const timeScale = 60;
    const shop = await startShop({ config: { timeScale, appWideLimit: { limit: 60, windowMs: 60_000 } } });
    try {
      const app = createOAuthClient(shop.sim.world, 'partner-crosslister', ['https://x.test/cb']);
      const client = createClient({
        baseUrl: shop.sim.url,
        oauth: { clientId: app.clientId, clientSecret: app.clientSecret },
        pacing: { appWide: scaled(60, 60_000, timeScale) },
      });
      const sellers = await Promise.all(
        [0, 1, 2].map(async (i) => {
          const seller =
            i === 0 ? { id: shop.sellerId } : createSeller(shop.sim.world, { username: `xl-${i}` });
          const issued = await shop.admin('POST', '/admin/oauth/tokens', {
            clientId: app.clientId,
            sellerId: seller.id,
          });
          const t = issued.body as { access_token: string; refresh_token: string };
          return client.forSeller({
            sellerId: seller.id,
            tokens: { accessToken: t.access_token, refreshToken: t.refresh_token },
          });
        }),
      );
      await pool(3 * 70, 30, (i) => sellers[i % 3]!.shop.get());
      const snapshot = shop.sim.rateLimiter.snapshot() as Snapshot;
      expect(allowed(snapshot, 'app_wide')).toBe(210);
      expect(limited(snapshot)).toBe(0);
    } finally {
      await shop.close();
    }
  });
});
