// The pacing entities (shop lanes, the app-wide budget allocator) on the real dev server, reached through
// the `acquireSlots` activity the way several worker processes reach them: each `createActivities` below
// is one worker with its own caches.
// @needs temporal
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createActivities, type AcquireInput } from '../src/activities/index.ts';
import { laneWorkflowId } from '../src/workflows/shop-lane.ts';
import { appBudgetWorkflowId } from '../src/workflows/app-budget.ts';
import { DEFAULT_ALLOWANCES, type AcquireRequest, type Ring } from '../src/workflows/pacing.ts';
import type { Allowance } from '../src/types.ts';
import { startEnv, type TestEnv } from './helpers.ts';
import { ringQuery, budgetQuery } from '../src/workflows/messages.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startEnv('lanes');
}, 120_000);
afterAll(() => env?.close());

/** One more worker process: its own activity instances (and caches), the same server and task queue. */
const worker = () =>
  createActivities({
    credentials: (ref) => env.keys.get(ref),
    temporal: env.client,
    taskQueue: env.taskQueue,
    jobStore: env.store,
  }).acquireSlots;

const oauthShop = () => ({
  shopId: `lanes-${randomUUID().slice(0, 8)}`,
  credentialRef: 'not-used-here',
  auth: 'oauth' as const,
});
const ask = (jobId: string, want = 1): AcquireRequest => ({ jobId, want, report: [] });
const ringOf = (shopId: string, group: string) =>
  env.client.workflow.getHandle(laneWorkflowId(env.taskQueue, shopId, group)).query(ringQuery);
const budgetOf = (appId: string) =>
  env.client.workflow.getHandle(appBudgetWorkflowId(env.taskQueue, appId)).query(budgetQuery);
/** The lane's cap in requests per window. */
const capOf = (ring: Ring) => ring.capPerWindow;

/** Asks through fresh workers (each renews the lease) until `done`; the last answer's ring. */
async function until(input: () => AcquireInput, done: (ring: Ring) => boolean, tries = 100): Promise<Ring> {
  let ring: Ring | undefined;
  for (let i = 0; i < tries; i++) {
    const { shop, group } = input();
    await worker()(input());
    ring = await ringOf(shop.shopId, group);
    if (done(ring)) return ring;
    await sleep(100);
  }
  return ring!;
}

describe('a lane capped below one slot (B3)', () => {
  it('an app share of 200 per minute on the general group is one slot of 200, not nothing forever', async () => {
    const shop = oauthShop();
    const general = DEFAULT_ALLOWANCES.general; // slots of 285
    // 10 per 3 s across the app is 200 per minute for this (only) shop.
    const appBudget = {
      appId: `app-${randomUUID()}`,
      allowance: { limit: 10, windowMs: 3_000 },
      headroom: 0,
    };
    const input = (): AcquireInput => ({
      shop,
      group: 'general',
      lane: { allowance: general },
      request: ask('job-1'),
      appBudget: { ...appBudget, leaseMs: 60_000 },
    });
    // A fresh allocator warms up for one budget window (R3): nothing yet, and a real wait, not a 1 ms timer.
    const first = await worker()(input());
    expect(first.slots).toHaveLength(0);
    expect(first.waitMs).toBeGreaterThanOrEqual(general.windowMs / 4);
    let grant = first;
    for (let i = 0; i < 100 && grant.slots.length === 0; i++) {
      await sleep(100);
      grant = await worker()(input());
    }
    expect(grant.slots).toHaveLength(1);
    expect(grant).toMatchObject({ slotSize: 200, rate: 200 });
    expect(capOf(await ringOf(shop.shopId, 'general'))).toBe(200);
  }, 60_000);
});

describe('the app-wide budget', () => {
  it('holds one lease per shop AND rate group: a shop with create and patch jobs never over-commits it (B10)', async () => {
    const shop = oauthShop();
    const appId = `app-${randomUUID()}`;
    const allowance: Allowance = { limit: 100, windowMs: 1_000 }; // 90 per second for leases
    const lanes: Record<string, Allowance> = DEFAULT_ALLOWANCES;
    const inGroup = (group: string) => (): AcquireInput => ({
      shop,
      group,
      lane: { allowance: lanes[group]! },
      request: ask(`job-${group}`),
      appBudget: { appId, allowance, headroom: 0.1, leaseMs: 60_000 },
    });
    const asked = new Set<string>();
    /** What the lanes asked so far enforce, per budget window. */
    const enforced = async () => {
      let sum = 0;
      for (const group of asked) {
        const cap = capOf(await ringOf(shop.shopId, group)) ?? 0;
        sum += (cap * allowance.windowMs) / lanes[group]!.windowMs;
      }
      return sum;
    };
    // In turn, past the warm-up, each ask through a worker that renews.
    for (let i = 0; i < 12; i++) {
      for (const group of Object.keys(lanes)) {
        await worker()(inGroup(group)());
        asked.add(group);
        const b = await budgetOf(appId);
        const committed =
          Object.values(b.leases).reduce((n, l) => n + l.perWindow, 0) +
          b.cooling.reduce((n, c) => n + c.perWindow, 0);
        expect(committed).toBeLessThanOrEqual(90);
        expect(await enforced()).toBeLessThanOrEqual(90);
      }
      await sleep(150);
    }
    const b = await budgetOf(appId);
    expect(Object.keys(b.leases).sort()).toEqual([`${shop.shopId}:create_update`, `${shop.shopId}:general`]);
    // Creates ask 20 per second and get them; the general lane gets the rest.
    expect(b.leases[`${shop.shopId}:create_update`]!.perWindow).toBe(20);
    expect(b.leases[`${shop.shopId}:general`]!.perWindow).toBe(70);
    expect(await enforced()).toBe(90);
  }, 60_000);

  it('with two workers, the lane keeps the newest lease: a cut renewed on one worker always reaches it (B11)', async () => {
    const [a, b] = [oauthShop(), oauthShop()];
    const appId = `app-${randomUUID()}`;
    // Budget 800 per 500 ms; leases of 5 s; lanes with the budget's window, so a lane's cap is its lease
    // (and a whole number of slots, as lanes before 0.2 counted it).
    const appBudget = { appId, allowance: { limit: 1_000, windowMs: 500 }, headroom: 0.2, leaseMs: 5_000 };
    const input = (shop: typeof a, limit: number) => (): AcquireInput => ({
      shop,
      group: 'general',
      lane: { allowance: { limit, windowMs: 500 } },
      request: ask(`job-${shop.shopId}`),
      appBudget,
    });
    const leaseOf = async (shop: typeof a) => {
      const { leases } = await budgetOf(appId);
      return leases[`${shop.shopId}:general`] ?? leases[shop.shopId]; // (keyed by shop before 0.2)
    };
    // B takes 400 (once the fresh allocator's warm-up is over).
    expect(capOf(await until(input(b, 400), (r) => capOf(r) === 400))).toBe(400);
    // Worker 1 renews A: the other 400.
    const w1 = worker();
    await w1(input(a, 800)());
    expect(capOf(await ringOf(a.shopId, 'general'))).toBe(400);
    // B stops; once its lease has lapsed and cooled, other workers renew A up to 800.
    expect(capOf(await until(input(a, 800), (r) => capOf(r) === 800))).toBe(800);
    // B comes back (its lease: 0 of 400 wanted), and worker 1 renews A: cut to the fair 400 — the very cap
    // worker 1 applied before. The lane must follow the newest lease, not worker 1's memory of it.
    await worker()(input(b, 400)());
    expect((await leaseOf(b))!.perWindow).toBe(0);
    await w1(input(a, 800)());
    const lease = (await leaseOf(a))!;
    expect(lease.perWindow).toBe(400);
    const ring = await ringOf(a.shopId, 'general');
    expect(capOf(ring)).toBe(lease.perWindow);
    expect(ring.capSeq).toBe(lease.until);
  }, 60_000);
});

describe('acquire is idempotent (R6)', () => {
  it('the same update id twice (a retried activity, on another worker) grants once', async () => {
    const shop = { shopId: `lanes-${randomUUID().slice(0, 8)}`, credentialRef: 'not-used-here' };
    const lane = { allowance: { limit: 20, windowMs: 1_000 } };
    const request = { ...ask('job-r', 2), updateId: `bulk:job-r/run-1/${randomUUID()}` };
    const first = await worker()({ shop, group: 'create_update', lane, request });
    const again = await worker()({ shop, group: 'create_update', lane, request });
    expect(first.slots).toHaveLength(2);
    expect(again).toEqual(first);
    const held = (await ringOf(shop.shopId, 'create_update')).holder.filter((h) => h === 'job-r');
    expect(held).toHaveLength(2);
    // A new request (the next turn) is a new grant.
    const next = await worker()({
      shop,
      group: 'create_update',
      lane,
      request: { ...request, updateId: 'other' },
    });
    expect(next.slots).toHaveLength(2);
  }, 60_000);
});
