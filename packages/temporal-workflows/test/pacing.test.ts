// The pure planners, without Temporal: the pacing ring (per shop × group) and the app-wide budget ledger.
import {
  acquire,
  DEFAULT_ALLOWANCES,
  DEFAULT_MARGIN_MS,
  newRing,
  type AcquireResult,
  type Ring,
  type SlotGrant,
} from '../src/workflows/pacing.ts';
import { lease, newBudget } from '../src/workflows/app-budget.ts';
import { maxInAnyWindow } from './sliding-log.ts';

/** Runs jobs against a ring: each slot's requests go out at notBefore, answered `latency` ms later. */
function drive(
  ring: Ring,
  jobs: string[],
  rounds: number,
  latency: (i: number) => number,
  spreadFirstUse = false,
) {
  const sent: number[] = [];
  let now = 0;
  const held = new Map<string, SlotGrant[]>();
  for (let r = 0; r < rounds; r++) {
    for (const job of jobs) {
      const report = (held.get(job) ?? []).map((g) => {
        const start = Math.max(g.notBefore, now - 50);
        for (let k = 0; k < ring.slotSize; k++) sent.push(start + k);
        return { slot: g.slot, lastAt: start + ring.slotSize + latency(sent.length) };
      });
      const res = acquire(
        ring,
        { jobId: job, want: ring.slots, report },
        now,
        DEFAULT_MARGIN_MS,
        spreadFirstUse,
      );
      held.set(job, res.slots);
      now += res.slots.length ? 30 : res.waitMs;
    }
    now = Math.max(now, ...[...held.values()].flat().map((g) => g.notBefore));
  }
  return sent;
}

describe('pacing ring', () => {
  it('cuts the allowance into slots that fill it exactly', () => {
    expect(newRing({ limit: 200, windowMs: 10_000 })).toMatchObject({ slots: 20, slotSize: 10 });
    expect(newRing({ limit: 5, windowMs: 500 })).toMatchObject({ slots: 5, slotSize: 1 });
    const odd = newRing({ limit: 30, windowMs: 1000 }, { maxSlots: 20 });
    expect(odd.slots * odd.slotSize).toBeLessThanOrEqual(30);
  });

  it('never lets any window hold more than the allowance, whatever the latency, with one or three jobs', () => {
    for (const jobs of [['a'], ['a', 'b', 'c']]) {
      const ring = newRing({ limit: 200, windowMs: 1000 });
      const sent = drive(ring, jobs, 40, (i) => (i * 37) % 90);
      expect(sent.length).toBeGreaterThan(2000);
      expect(maxInAnyWindow(sent, 1000)).toBeLessThanOrEqual(200);
    }
  });

  it("spreads a fresh ring's first window over a quarter window, and keeps that spacing in later windows", () => {
    const W = 10_000;
    const fresh = acquire(newRing({ limit: 200, windowMs: W }), { jobId: 'a', want: 20, report: [] }, 0);
    expect(new Set(fresh.slots.map((g) => g.notBefore))).toEqual(new Set([0])); // before 0.5: one burst
    const ring = newRing({ limit: 200, windowMs: W });
    const first = acquire(ring, { jobId: 'a', want: 20, report: [] }, 0, DEFAULT_MARGIN_MS, true);
    const opens = first.slots.map((g) => g.notBefore);
    expect(opens).toEqual(Array.from({ length: 20 }, (_, i) => (i * W) / 4 / 20));
    // Each slot answered 40 ms after it opened: the next window keeps the spacing, nothing is spread again.
    const report = first.slots.map((g) => ({ slot: g.slot, lastAt: g.notBefore + 40 }));
    const second = acquire(ring, { jobId: 'a', want: 20, report }, 3_000, DEFAULT_MARGIN_MS, true);
    expect(second.slots.map((g) => g.notBefore)).toEqual(opens.map((t) => t + 40 + W + DEFAULT_MARGIN_MS));
    // Handed out one slot at a time (the order pacer), the spacing is the same: slot k at k steps.
    const single = newRing({ limit: 200, windowMs: W });
    const one = (now: number) =>
      acquire(single, { jobId: 'o', want: 1, report: [] }, now, DEFAULT_MARGIN_MS, true).slots[0]!;
    expect([one(1_000), one(1_010), one(1_020), one(1_900)]).toEqual([
      { slot: 0, notBefore: 1_000 },
      { slot: 1, notBefore: 1_125 },
      { slot: 2, notBefore: 1_250 },
      { slot: 3, notBefore: 1_900 },
    ]);
    // And no window holds more than the allowance, with one job or three.
    for (const jobs of [['a'], ['a', 'b', 'c']]) {
      const driven = newRing({ limit: 200, windowMs: 1000 });
      const sent = drive(driven, jobs, 40, (i) => (i * 37) % 90, true);
      expect(sent.length).toBeGreaterThan(2000);
      expect(maxInAnyWindow(sent, 1000)).toBeLessThanOrEqual(200);
    }
  });

  it('shares a ring fairly between jobs that ask at once', () => {
    const ring = newRing({ limit: 200, windowMs: 1000 });
    const a1 = acquire(ring, { jobId: 'a', want: 20, report: [] }, 0);
    expect(a1.slots).toHaveLength(20); // alone: the whole allowance
    expect(acquire(ring, { jobId: 'b', want: 20, report: [] }, 10).slots).toHaveLength(0); // all held by a
    const report = a1.slots.map((g) => ({ slot: g.slot, lastAt: 100 }));
    const a2 = acquire(ring, { jobId: 'a', want: 20, report }, 400);
    const b2 = acquire(ring, { jobId: 'b', want: 20, report: [] }, 410);
    expect([a2.slots.length, b2.slots.length]).toEqual([10, 10]);
  });

  it('after a 429: waits Retry-After, halves the rate, wins it back over clean windows', () => {
    const ring = newRing({ limit: 200, windowMs: 1000 });
    const first = acquire(ring, { jobId: 'a', want: 20, report: [] }, 0);
    const report = first.slots.map((g) => ({ slot: g.slot, lastAt: 100 }));
    const after = acquire(ring, { jobId: 'a', want: 20, report, retryAfterMs: 3000 }, 200);
    expect(after.rate).toBe(100);
    expect(Math.min(...after.slots.map((g) => g.notBefore), Number.POSITIVE_INFINITY)).toBeGreaterThanOrEqual(
      3200,
    );
    let t = 3200;
    let rate = after.rate;
    let held = after.slots;
    for (let i = 0; i < 12; i++) {
      t += 1100;
      const r = acquire(
        ring,
        { jobId: 'a', want: 20, report: held.map((g) => ({ slot: g.slot, lastAt: t - 50 })) },
        t,
      );
      held = r.slots;
      rate = r.rate;
    }
    expect(rate).toBe(200);
  });

  it('takes back the slots of a job that died (lease) and adopts a new allowance without overshooting', () => {
    const ring = newRing({ limit: 20, windowMs: 1000 });
    expect(acquire(ring, { jobId: 'dead', want: 20, report: [] }, 0).slots).toHaveLength(20);
    expect(acquire(ring, { jobId: 'b', want: 20, report: [] }, 1000).slots).toHaveLength(0);
    const later = acquire(ring, { jobId: 'b', want: 20, report: [] }, 61_000, 0); // no clock margin here
    expect(later.slots.length).toBeGreaterThan(0);
    for (const g of later.slots) expect(g.notBefore).toBeGreaterThanOrEqual(62_000);
    const bigger = acquire(
      ring,
      { jobId: 'c', want: 20, report: [], allowance: { limit: 200, windowMs: 1000 } },
      61_500,
    );
    expect(ring.slotSize * ring.slots).toBe(200);
    for (const g of bigger.slots) expect(g.notBefore).toBeGreaterThanOrEqual(62_000);
  });
});

describe('pacing ring: caps below one slot, waits, clock margin', () => {
  const general = DEFAULT_ALLOWANCES.general; // 5,700 per minute: slots of 285
  /** Every answer that grants nothing asks the job to wait a real while (never a 0 / 1 ms timer). */
  const expectFloored = (r: AcquireResult, W: number, opensInMs = Number.POSITIVE_INFINITY) => {
    expect(r.slots).toHaveLength(0);
    expect(r.waitMs).toBeGreaterThanOrEqual(Math.min(250, W / 4));
    expect(r.waitMs).toBeGreaterThanOrEqual(Math.min(W / 4, opensInMs));
  };

  it('a share smaller than one slot is granted as one smaller slot (B3), and a bigger one in full slots', () => {
    const ring = newRing(general);
    expect(ring.slotSize).toBe(285);
    ring.capPerWindow = 200; // an app-budget lease of 200 per minute
    const r = acquire(ring, { jobId: 'a', want: 1, report: [] }, 1_000);
    expect(r.slots).toHaveLength(1);
    expect(r).toMatchObject({ slotSize: 200, rate: 200 });
    // 400 per minute: two slots of 200 (not one of 285 and a wasted rest).
    const two = newRing(general);
    two.capPerWindow = 400;
    expect(acquire(two, { jobId: 'a', want: 20, report: [] }, 0)).toMatchObject({ slotSize: 200, rate: 400 });
    expect(two.holder.filter((h) => h === 'a')).toHaveLength(2);
    // A larger share is cut into as many slots as it needs, never more than the share per window.
    const many = newRing(general);
    many.capPerWindow = 1_000;
    const m = acquire(many, { jobId: 'a', want: 20, report: [] }, 0);
    expect(m.slots.length * m.slotSize).toBeLessThanOrEqual(1_000);
    expect(m.slots).toHaveLength(4);
  });

  it('never answers a wait of 0 or 1 ms when nothing is granted (B3)', () => {
    const W = general.windowMs;
    const ring = newRing(general);
    ring.capPerWindow = 0; // no share at all
    expectFloored(acquire(ring, { jobId: 'a', want: 1, report: [] }, 0), W);
    // Asking for nothing (a job that only reports) is not an invitation to ask again at once.
    expectFloored(acquire(newRing(general), { jobId: 'a', want: 0, report: [] }, 0), W);
    // Every slot held by another job.
    const held = newRing({ limit: 20, windowMs: 1_000 });
    expect(acquire(held, { jobId: 'a', want: 20, report: [] }, 0).slots).toHaveLength(20);
    expectFloored(acquire(held, { jobId: 'b', want: 20, report: [] }, 10), 1_000);
    // The only slot was answered a moment ago: it opens in one window, a job asks again in W/4 at most.
    const one = newRing({ limit: 1, windowMs: 60_000 });
    const g = acquire(one, { jobId: 'a', want: 1, report: [] }, 0).slots;
    const r = acquire(one, { jobId: 'a', want: 1, report: [{ slot: g[0]!.slot, lastAt: 100 }] }, 110);
    // (A slot is granted up to one window before it opens: "opens" here is when it can be granted.)
    expectFloored(r, 60_000, 100 + DEFAULT_MARGIN_MS - 110);
    // A slot that becomes grantable within milliseconds still costs at least 250 ms of waiting.
    const soon = newRing({ limit: 1, windowMs: 2_000 });
    acquire(soon, { jobId: 'a', want: 1, report: [] }, 0);
    acquire(soon, { jobId: 'a', want: 0, report: [{ slot: 0, lastAt: 1_000 }] }, 1_000);
    const s = acquire(soon, { jobId: 'a', want: 1, report: [] }, 1_000 + DEFAULT_MARGIN_MS - 5);
    expectFloored(s, 2_000, 5);
    expect(s.waitMs).toBeGreaterThanOrEqual(250);
  });

  it('keeps a margin for clocks that differ between hosts (R4): 250 ms by default, a parameter', () => {
    expect(DEFAULT_MARGIN_MS).toBe(250);
    const ring = newRing({ limit: 20, windowMs: 1_000 });
    const first = acquire(ring, { jobId: 'a', want: 20, report: [] }, 0);
    const report = first.slots.map((g) => ({ slot: g.slot, lastAt: 500 }));
    const next = acquire(ring, { jobId: 'a', want: 20, report }, 800);
    expect(next.slots.length).toBeGreaterThan(0);
    for (const g of next.slots) expect(g.notBefore).toBeGreaterThanOrEqual(500 + 1_000 + 250);
    const tight = newRing({ limit: 20, windowMs: 1_000 });
    const t1 = acquire(tight, { jobId: 'a', want: 20, report: [] }, 0, 0);
    const t2 = acquire(
      tight,
      { jobId: 'a', want: 20, report: t1.slots.map((g) => ({ slot: g.slot, lastAt: 500 })) },
      600,
      0,
    );
    expect(Math.min(...t2.slots.map((g) => g.notBefore))).toBe(1_500);
  });
});

describe('app-wide budget ledger', () => {
  const allowance = { limit: 300, windowMs: 6000 };

  it('grants what is asked while the budget lasts, then cuts every shop to a fair share', () => {
    const b = newBudget({ appId: 'app', allowance, headroom: 0.1, leaseMs: 2000 });
    expect(lease(b, 's1', 120, 0).perWindow).toBe(120);
    expect(lease(b, 's2', 120, 10).perWindow).toBe(120);
    expect(lease(b, 's3', 120, 20).perWindow).toBe(30); // 270 − 240
    // Renewals cut s1 and s2 to the fair share; what they give up is free one budget window later.
    expect(lease(b, 's1', 120, 1500).perWindow).toBe(90);
    expect(lease(b, 's2', 120, 1510).perWindow).toBe(90);
    expect(lease(b, 's3', 120, 1600).perWindow).toBe(30);
    // At 7 600 the leases of s1 and s2 have lapsed (3 500): still counted until one window later.
    expect(lease(b, 's3', 120, 7600).perWindow).toBe(90);
    expect(lease(b, 's3', 120, 9600).perWindow).toBe(120);
    // Never more than the budget, counting what cools down.
    const total = Object.values(b.leases).reduce((n, l) => n + l.perWindow, 0);
    expect(total).toBeLessThanOrEqual(270);
  });

  it('a lapsed lease frees its share only after one budget window', () => {
    const b = newBudget({ appId: 'app', allowance, headroom: 0.1, leaseMs: 2000 });
    lease(b, 's1', 270, 0);
    expect(lease(b, 's2', 100, 2500).perWindow).toBe(0); // s1 lapsed at 2000, still counted until 8000
    expect(lease(b, 's2', 100, 8001).perWindow).toBe(100);
  });
});

describe('app-wide budget ledger: keys per shop and group, warm-up', () => {
  const allowance = { limit: 1_000, windowMs: 6_000 };

  it('a shop with a create job and a patch job holds two leases; together never more than the budget (B10)', () => {
    const b = newBudget({ appId: 'app', allowance, headroom: 0.1, leaseMs: 2_000 });
    const committed = () =>
      Object.values(b.leases).reduce((n, l) => n + l.perWindow, 0) +
      b.cooling.reduce((n, c) => n + c.perWindow, 0);
    for (let t = 0; t < 1_000; t += 100) {
      lease(b, 's1:create_update', 600, t);
      expect(committed()).toBeLessThanOrEqual(900);
      lease(b, 's1:general', 900, t + 50);
      expect(committed()).toBeLessThanOrEqual(900);
    }
    expect(Object.keys(b.leases).sort()).toEqual(['s1:create_update', 's1:general']);
  });

  it('a fresh allocator counts the whole budget as cooling for one window (R3: it cannot know the last one)', () => {
    const b = newBudget({ appId: 'app', allowance, headroom: 0.1, leaseMs: 2_000 }, 10_000);
    expect(lease(b, 's1', 500, 10_000).perWindow).toBe(0);
    expect(lease(b, 's1', 500, 15_999).perWindow).toBe(0);
    expect(lease(b, 's1', 500, 16_001).perWindow).toBe(500);
    // Without a start time (a test of the ledger alone) there is no warm-up.
    expect(lease(newBudget({ appId: 'app', allowance }), 's1', 500, 0).perWindow).toBe(500);
  });

  it('renewals of one key end strictly later each time: the lease end orders caps (B11)', () => {
    const b = newBudget({ appId: 'app', allowance, headroom: 0.1, leaseMs: 2_000 });
    const a = lease(b, 's1:general', 100, 1_000);
    const c = lease(b, 's1:general', 50, 1_000); // two renewals in one workflow task: the same clock
    expect(c.until).toBeGreaterThan(a.until);
  });
});

const RATE_LIMITS_MODULE = '@selling-kit/api-client/rate-limits';

describe('workflow code', () => {
  it('imports only @temporalio/workflow, its own siblings and types (the worker bundles it)', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { fileURLToPath } = await import('node:url');
    const dir = fileURLToPath(new URL('../src/workflows/', import.meta.url));
    const shared = [
      '../types.ts',
      '../search-attributes.ts',
      '../observability/metric-names.ts',
      '../contract.ts',
      '../stores/job-store.ts',
    ];
    const bad: string[] = [];
    const check = (file: string, text: string, typesOnly: boolean) => {
      for (const m of text.matchAll(/^import\s+(type\s+)?[\s\S]*?from\s+'([^']+)';/gm)) {
        const [, isType, from] = m;
        if (isType) continue;
        // A shared module may reach another shared module (checked here too), nothing else at run time.
        const ok = typesOnly
          ? shared.includes(`.${from!}`)
          : from === '@temporalio/workflow' ||
            from === RATE_LIMITS_MODULE ||
            (from!.startsWith('./') && from!.endsWith('.ts')) ||
            shared.includes(from!);
        if (!ok) bad.push(`${file}: ${from}`);
      }
    };
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThanOrEqual(8);
    for (const f of files) check(f, readFileSync(dir + f, 'utf8'), false);
    // The shared modules workflow code reaches may import types only (or one another).
    for (const f of shared) check(f, readFileSync(dir + f, 'utf8'), true);
    // The client core's rate-limit table, which workflow code derives its allowances from: no imports.
    const rateLimits = fileURLToPath(import.meta.resolve(RATE_LIMITS_MODULE));
    if (/^import\s/m.test(readFileSync(rateLimits, 'utf8'))) bad.push(`${RATE_LIMITS_MODULE} imports`);
    expect(bad).toEqual([]);
  });
});
