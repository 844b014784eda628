// `selling-kit dev` shows delist on sale: after the demo job, a simulated purchase on the first demo
// shop and the same SKU marked sold on the second, with the measured delay printed; the purchase's order
// flow hands the order off, reminds, and ships it; both demo shops are stored for other terminals; a second
// run on the same Temporal data does it again.
// @needs temporal
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, runCli } from './helpers.ts';

const ctx = cliEnv();
const runDev = () =>
  runCli(
    ctx,
    [
      'dev',
      '--sim-port',
      '0',
      '--ui-port',
      '18297',
      '--codec-port',
      '0',
      '--exit-when-done',
      '--no-n8n',
      '--use-running-temporal',
    ],
    { timeoutMs: 180_000 },
  );

it('prints the purchase on "demo", the SKU delisted on "demo-us" and the delay', async () => {
  const r = await runDev();
  expect(r.code).toBe(0);
  const line = /simulated purchase of (\S+) on "demo" → (\S+) marked sold on "demo-us" in (\d+) ms/.exec(
    r.stderr,
  );
  expect(line).not.toBeNull();
  expect(line![1]).toBe('DEMO-TEE-001');
  expect(line![2]).toBe('DEMO-TEE-001');
  expect(Number(line![3])).toBeLessThan(30_000);
  // The purchase's order flow: handed off, reminded a "day" later, shipped through the flow (the
  // simulator's parcel carries the tracking).
  const flow = /order flow of (\S+) \(order:demo:\1;/.exec(r.stderr);
  expect(flow).not.toBeNull();
  const purchaseId = flow![1]!;
  expect(r.stderr).toContain(`order event: order.ready for order ${purchaseId}`);
  expect(r.stderr).toContain(`order event: order.reminder #1 for order ${purchaseId}`);
  expect(r.stderr).toContain(
    `the simulator's order ${purchaseId}: SHIPPED, parcel shipped with ROYAL_MAIL DEV0000000001GB`,
  );
  // In the dev stack's own credentials (<home>/dev), never the user's.
  const shops = JSON.parse(readFileSync(join(ctx.home, 'dev', 'credentials.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  expect(Object.keys(shops).sort()).toEqual(['demo', 'demo-us']);
}, 240_000);

it('a second run on the same Temporal data delists again (the fresh simulator never reuses a purchase id)', async () => {
  // Temporal keeps the first run's delist workflows (keyed by order); the simulator starts afresh.
  const again = await runDev();
  expect(again.stderr).not.toMatch(/was not marked sold/);
  expect(again.code).toBe(0);
  expect(again.stderr).toMatch(
    /simulated purchase of DEMO-TEE-001 on "demo" → DEMO-TEE-001 marked sold on "demo-us"/,
  );
}, 240_000);
