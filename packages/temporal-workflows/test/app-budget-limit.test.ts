// The app-budget allocator at the server's limit (issue 12 §5): the allocator is ONE workflow and the
// server admits at most 10 updates in flight per workflow (`history.maxInFlightUpdates`, default 10; the
// test server keeps the default). 64 lanes on 16 workers ask one allocator at once: every lane gets its
// lease and its cap, none fails (each worker batches its lanes' requests into one update at a time).
// @needs temporal
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createActivities, type AcquireInput } from '../src/activities/index.ts';
import { laneWorkflowId } from '../src/workflows/shop-lane.ts';
import { appBudgetWorkflowId } from '../src/workflows/app-budget.ts';
import { startEnv, type TestEnv } from './helpers.ts';
import { ringQuery, budgetQuery } from '../src/workflows/messages.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startEnv('app-budget-limit');
}, 120_000);
afterAll(() => env?.close());

const WORKERS = 16;
const LANES_PER_WORKER = 4;

it('64 lanes on 16 workers ask one allocator at once: every one gets a lease, none fails', async () => {
  const appId = `app-${randomUUID()}`;
  // 640 per 5 s for 64 lanes that each want 100: contended, 10 each.
  const appBudget = { appId, allowance: { limit: 640, windowMs: 5_000 }, headroom: 0 };
  const lane = { allowance: { limit: 200, windowMs: 10_000 } };
  const workers = Array.from(
    { length: WORKERS },
    () =>
      createActivities({
        credentials: () => undefined,
        temporal: env.client,
        taskQueue: env.taskQueue,
        jobStore: env.store,
      }).acquireSlots,
  );
  const inputs = workers.flatMap((_, w) =>
    Array.from({ length: LANES_PER_WORKER }, (_, i): AcquireInput => ({
      shop: { shopId: `limit-${w}-${i}-${randomUUID().slice(0, 6)}`, credentialRef: 'unused', auth: 'oauth' },
      group: 'create_update',
      lane,
      request: { jobId: `job-${w}-${i}`, want: 1, report: [] },
      appBudget,
    })),
  );
  const askAll = () =>
    Promise.allSettled(inputs.map((input, k) => workers[Math.floor(k / LANES_PER_WORKER)]!(input)));

  // The first round starts the allocator: its warm-up grants nothing yet, but every lane is answered.
  const first = await askAll();
  expect(first.filter((r) => r.status === 'rejected')).toEqual([]);
  const budget = env.client.workflow.getHandle(appBudgetWorkflowId(env.taskQueue, appId));
  const warm = await budget.query(budgetQuery);
  expect(Object.keys(warm.leases)).toHaveLength(inputs.length);
  expect(Object.values(warm.leases).map((l) => l.perWindow)).toEqual(inputs.map(() => 0));

  // After the warm-up (one budget window), every lane renews at once (told to by `reviewAt`): fair shares.
  await sleep(Math.max(...warm.cooling.map((c) => c.freeAt)) - Date.now() + 200);
  const second = await askAll();
  expect(second.filter((r) => r.status === 'rejected')).toEqual([]);
  const { leases } = await budget.query(budgetQuery);
  const shares = Object.values(leases).map((l) => l.perWindow);
  expect(shares).toHaveLength(inputs.length);
  expect(Math.min(...shares)).toBe(10);
  expect(shares.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(640);
  // Each lane got its cap with its acquire (10 per 5 s = 20 per 10 s window), with the lease's end.
  for (const input of inputs) {
    const ring = await env.client.workflow
      .getHandle(laneWorkflowId(env.taskQueue, input.shop.shopId, input.group))
      .query(ringQuery);
    const l = leases[`${input.shop.shopId}:${input.group}`]!;
    expect(ring.capPerWindow).toBe(l.perWindow * 2);
    expect(ring.capSeq).toBe(l.until);
  }
}, 120_000);
