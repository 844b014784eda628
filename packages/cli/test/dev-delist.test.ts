// `selling-kit dev` shows delist on sale: after the demo job, a simulated purchase on the first demo
// shop and the same SKU marked sold on the second, with the measured delay printed; both demo shops
// are stored for other terminals.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, runCli } from './helpers.ts';

it('prints the purchase on "demo", the SKU delisted on "demo-us" and the delay', async () => {
  const ctx = cliEnv();
  const r = await runCli(
    ctx,
    ['dev', '--sim-port', '0', '--ui-port', '18297', '--codec-port', '0', '--exit-when-done', '--no-n8n'],
    { timeoutMs: 180_000 },
  );
  expect(r.code).toBe(0);
  const line = /simulated purchase of (\S+) on "demo" → (\S+) marked sold on "demo-us" in (\d+) ms/.exec(
    r.stderr,
  );
  expect(line).not.toBeNull();
  expect(line![1]).toBe('DEMO-TEE-001');
  expect(line![2]).toBe('DEMO-TEE-001');
  expect(Number(line![3])).toBeLessThan(30_000);
  const shops = JSON.parse(readFileSync(join(ctx.home, 'credentials.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  expect(Object.keys(shops).sort()).toEqual(['demo', 'demo-us']);
}, 240_000);
