// Budget pacing and the 0.3 ledger, without Temporal (issue 12 §5: 500 sellers of one app). A lane whose
// app share fits one window of the seller's own allowance paces over the budget window with one wide slot;
// the allocator's 0.3 rules (long leases, cuts cooling from the old lease's end, a review time). Checked
// against a gateway's sliding logs: never more than the seller's allowance in any seller window, never
// more than the share in any budget window.
import {
  acquire,
  applyShare,
  budgetPaced,
  newRing,
  renewalDue,
  WIDE_SLOT,
  type Ring,
  type SlotReport,
} from '../src/workflows/pacing.ts';
import { DEFAULT_HEADROOM, lease, LEDGER, LEDGER_0_2, newBudget } from '../src/workflows/app-budget.ts';
import { maxInAnyWindow } from './sliding-log.ts';
import type { Lease } from '../src/types.ts';

const SELLER = { limit: 200, windowMs: 10_000 }; // create_update
const BUDGET_WINDOW = 60_000;

const share = (perWindow: number, until: number, more: Partial<Lease> = {}): Lease => ({
  perWindow,
  windowMs: BUDGET_WINDOW,
  until,
  leaseMs: 150_000,
  ...more,
});

/**
 * One job against a lane: asks, sends each granted slot's requests at its notBefore (answered `latency`
 * later), reports, asks again a moment after the answers; `shareAt(now)` is the lease its worker holds.
 * Returns the send times and how many acquires it took.
 */
function drive(
  ring: Ring,
  endAt: number,
  shareAt: (now: number) => Lease,
  latency = (i: number) => 40 + (i % 7) * 60,
) {
  const sent: number[] = [];
  let now = 0;
  let acquires = 0;
  let report: SlotReport[] = [];
  while (now < endAt) {
    applyShare(ring, shareAt(now), true);
    const r = acquire(ring, { jobId: 'job', want: 20, report }, now);
    acquires++;
    report = [];
    if (r.slots.length === 0) {
      now += r.waitMs;
      continue;
    }
    let last = now;
    for (const g of r.slots) {
      expect(g.notBefore).toBeLessThan(r.deadline);
      const size = g.size ?? r.slotSize;
      for (let k = 0; k < size; k++) sent.push(g.notBefore + k);
      const answered = g.notBefore + size + latency(sent.length);
      report.push({ slot: g.slot, lastAt: answered });
      last = Math.max(last, answered);
    }
    now = last + 300; // the next acquire, after the send activity's answer
  }
  return { sent, acquires };
}

describe('budget pacing (a share that fits one seller window)', () => {
  it('hands out the whole share per budget window as one wide slot: one acquire and one send per minute', () => {
    const ring = newRing(SELLER);
    applyShare(ring, share(57, 400_000), true);
    expect(budgetPaced(ring)).toBe(true);
    const first = acquire(ring, { jobId: 'a', want: 1, report: [] }, 0);
    // In parts of at most one ring slot (10), sent one after another: never 57 requests in flight at once.
    expect(first.slots.map((g) => [g.slot, g.notBefore])).toEqual(first.slots.map(() => [WIDE_SLOT, 0]));
    expect(first.slots.map((g) => g.size)).toEqual([9, 10, 9, 10, 9, 10]);
    expect(first).toMatchObject({ slotSize: 10, rate: 9 });
    // Used and reported: the next use waits one budget window (plus the clock margin) after the answer.
    const again = acquire(ring, { jobId: 'a', want: 1, report: [{ slot: WIDE_SLOT, lastAt: 500 }] }, 900);
    expect(new Set(again.slots.map((g) => g.notBefore))).toEqual(new Set([500 + BUDGET_WINDOW + 250]));
    expect(again.slots).toHaveLength(6);
    // A second job of the shop waits for it.
    expect(acquire(ring, { jobId: 'b', want: 1, report: [] }, 1_000).slots).toHaveLength(0);
  });

  it('never more than the share in any budget window, never more than the allowance in any seller window', () => {
    const ring = newRing(SELLER);
    const { sent, acquires } = drive(ring, 20 * BUDGET_WINDOW, (now) => share(57, now + 100_000));
    expect(sent.length).toBeGreaterThan(19 * 57);
    expect(maxInAnyWindow(sent, BUDGET_WINDOW)).toBeLessThanOrEqual(57);
    expect(maxInAnyWindow(sent, SELLER.windowMs)).toBeLessThanOrEqual(200);
    // The Temporal cost: about one acquire per budget window, against six for the same share per seller window.
    expect(acquires).toBeLessThanOrEqual(21);
    const perSellerWindow = newRing(SELLER);
    const before = drive(perSellerWindow, 20 * BUDGET_WINDOW, (now) =>
      share(57, now + 100_000, { leaseMs: 30_000 }),
    );
    expect(budgetPaced(perSellerWindow)).toBe(false); // a lease shorter than two budget windows (allocators before 0.3)
    expect(before.acquires).toBeGreaterThanOrEqual(5 * acquires);
    expect(maxInAnyWindow(before.sent, BUDGET_WINDOW)).toBeLessThanOrEqual(57);
  });

  it('switching between pacing over the budget window and over the seller window never overlaps the two', () => {
    // The share grows past one seller window (200 → 600 per minute: back to the ring), then shrinks again.
    const ring = newRing(SELLER);
    const shareAt = (now: number) =>
      now < 3 * BUDGET_WINDOW
        ? share(150, now + 100_000)
        : now < 6 * BUDGET_WINDOW
          ? share(600, now + 100_000)
          : share(150, now + 100_000);
    const { sent } = drive(ring, 10 * BUDGET_WINDOW, shareAt);
    expect(maxInAnyWindow(sent, SELLER.windowMs)).toBeLessThanOrEqual(200);
    expect(maxInAnyWindow(sent, BUDGET_WINDOW)).toBeLessThanOrEqual(600);
    // Each stretch alone holds its own share in any budget window.
    const within = (from: number, to: number) => sent.filter((t) => t >= from && t < to);
    expect(maxInAnyWindow(within(0, 3 * BUDGET_WINDOW), BUDGET_WINDOW)).toBeLessThanOrEqual(150);
    expect(maxInAnyWindow(within(6 * BUDGET_WINDOW, 10 * BUDGET_WINDOW), BUDGET_WINDOW)).toBeLessThanOrEqual(
      150,
    );
    // And the switch back waits out the ring's last use by one budget window: at most 600 + nothing.
    expect(within(3 * BUDGET_WINDOW, 6 * BUDGET_WINDOW).length).toBeGreaterThan(0);
  });

  it('the wide slot leaves before its lease ends; a share of 0 waits until more may be free (reviewAt)', () => {
    const ring = newRing(SELLER);
    applyShare(ring, share(57, 50_000), true);
    const r = acquire(ring, { jobId: 'a', want: 1, report: [] }, 0);
    expect(r.deadline).toBeLessThanOrEqual(50_000);
    // Used at 1 s: the next use (61.25 s) would be after the lease's end: nothing, ask again when renewal is due.
    const late = acquire(ring, { jobId: 'a', want: 1, report: [{ slot: WIDE_SLOT, lastAt: 1_000 }] }, 2_000);
    expect(late.slots).toHaveLength(0);
    expect(late.waitMs).toBeGreaterThanOrEqual(2_500);
    // A share of 0 (a fresh allocator's warm-up): wait until its review time, not a quarter window.
    const warm = newRing(SELLER);
    applyShare(warm, share(0, 300_000, { reviewAt: 60_000 }), true);
    const w = acquire(warm, { jobId: 'a', want: 1, report: [] }, 1_000);
    expect(w.slots).toHaveLength(0);
    expect(w.waitMs).toBe(59_000);
    expect(renewalDue(share(0, 300_000, { reviewAt: 60_000 }))).toBe(60_000);
    // A lease of 2.5 budget windows is renewed with two windows left; a short one (before 0.3) half-way.
    expect(renewalDue(share(57, 150_000))).toBe(30_000);
    expect(renewalDue(share(57, 150_000, { leaseMs: 30_000 }))).toBe(135_000);
  });

  it('takes the wide slot back from a job that died, and a lane restarted by hand waits one budget window', () => {
    const ring = newRing(SELLER);
    applyShare(ring, share(57, 1_000_000), true);
    expect(acquire(ring, { jobId: 'dead', want: 1, report: [] }, 0).slots).toHaveLength(6);
    expect(acquire(ring, { jobId: 'b', want: 1, report: [] }, 60_000).slots).toHaveLength(0);
    // Taken back as used just now: not sent before one budget window has passed.
    const later = acquire(ring, { jobId: 'b', want: 1, report: [] }, 121_000, 0);
    expect(new Set(later.slots.map((g) => g.notBefore))).toEqual(new Set([121_000 + BUDGET_WINDOW]));

    const fresh = newRing(SELLER);
    applyShare(fresh, share(57, 1_000_000), true);
    const r = acquire(fresh, { jobId: 'b', want: 1, report: [], usedBefore: true }, 5_000);
    expect(r.slots).toHaveLength(0);
    const next = acquire(fresh, { jobId: 'b', want: 1, report: [] }, 5_000 + r.waitMs);
    expect(next.slots).toHaveLength(6);
    for (const g of next.slots) expect(g.notBefore).toBeGreaterThanOrEqual(5_000 + BUDGET_WINDOW);
  });

  it('applies only a newer share, and paces over the seller window when the share does not fit one', () => {
    const ring = newRing(SELLER);
    applyShare(ring, share(57, 2_000), true);
    applyShare(ring, share(300, 1_000), true); // an older lease (another worker's)
    expect(ring).toMatchObject({ capPerWindow: 9, capSeq: 2_000, share: { perWindow: 57 } });
    applyShare(ring, share(600, 3_000), true); // 600 per minute: more than one seller window holds
    expect(budgetPaced(ring)).toBe(false);
    expect(acquire(ring, { jobId: 'a', want: 20, report: [] }, 0)).toMatchObject({ rate: 100, slotSize: 10 });
    // Without pacing (lanes before 0.3) the share is only the cap it always was.
    const old = newRing(SELLER);
    applyShare(old, share(57, 2_000), false);
    expect(old.share).toBeUndefined();
    expect(old.capPerWindow).toBe(9);
  });
});

describe('app-wide budget ledger, 0.3 rules', () => {
  const allowance = { limit: 30_000, windowMs: BUDGET_WINDOW };

  it('500 keys at once: each gets its fair share after the warm-up, never more than the budget in all', () => {
    const b = newBudget({ appId: 'app', allowance }, 0, LEDGER);
    expect(b.headroom).toBe(DEFAULT_HEADROOM);
    const keys = Array.from({ length: 500 }, (_, i) => `s${i}:create_update`);
    // The warm-up: nothing yet, and every key is told when the budget frees (not half-way through its lease).
    for (const k of keys) {
      const l = lease(b, k, 1_200, 1_000, LEDGER);
      expect(l).toMatchObject({ perWindow: 0, reviewAt: BUDGET_WINDOW });
      expect(l.leaseMs).toBe(2.5 * BUDGET_WINDOW);
    }
    const grants = keys.map((k, i) => lease(b, k, 1_200, BUDGET_WINDOW + i, LEDGER).perWindow);
    // Max-min fair: every key its fair share while others are left wanting; the last one takes the rest.
    const fair = Math.floor((30_000 * (1 - DEFAULT_HEADROOM)) / 500);
    expect(new Set(grants.slice(0, -1))).toEqual(new Set([fair]));
    expect(grants.at(-1)).toBeGreaterThanOrEqual(fair);
    expect(grants.reduce((a, c) => a + c, 0)).toBeLessThanOrEqual(30_000 * (1 - DEFAULT_HEADROOM));
    // The default headroom leaves ≥ 95 % of the budget to bulk jobs.
    expect(1 - DEFAULT_HEADROOM).toBeGreaterThanOrEqual(0.95);
  });

  it('a cut share stays committed until the old lease ends plus one window (its grants may still be sent)', () => {
    const b = newBudget({
      appId: 'app',
      allowance: { limit: 300, windowMs: 6_000 },
      headroom: 0.1,
      leaseMs: 2_000,
    });
    const first = lease(b, 's1', 270, 0, LEDGER);
    expect(first).toMatchObject({ perWindow: 270, until: 15_000, leaseMs: 15_000 });
    lease(b, 's2', 270, 10, LEDGER); // nothing free: 0, and s1 is now contended
    expect(lease(b, 's1', 270, 1_000, LEDGER).perWindow).toBe(135);
    // The 135 s1 gave up cools until its old lease's end (15 000) plus a window, not the cut plus a window.
    expect(b.cooling).toEqual([{ perWindow: 135, freeAt: 21_000 }]);
    expect(lease(b, 's2', 270, 7_001, LEDGER).perWindow).toBe(0);
    const s2 = lease(b, 's2', 270, 21_001, LEDGER);
    expect(s2.perWindow).toBe(135);
    // The 0.2 rules cooled from the cut.
    const old = newBudget({
      appId: 'app',
      allowance: { limit: 300, windowMs: 6_000 },
      headroom: 0.1,
      leaseMs: 2_000,
    });
    lease(old, 's1', 270, 0, LEDGER_0_2);
    lease(old, 's2', 270, 10, LEDGER_0_2);
    lease(old, 's1', 270, 1_000, LEDGER_0_2);
    expect(old.cooling).toEqual([{ perWindow: 135, freeAt: 7_000 }]);
  });
});
