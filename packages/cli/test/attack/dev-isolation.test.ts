// Attacks (L4, L5) on `selling-kit dev`:
// - it wrote the demo shops into the user's own credentials.json and gave its worker (on an
//   unauthenticated dev stack) every production shop: now it keeps its own stores under <home>/dev;
// - it adopted any server already answering on the Temporal address: a local user who starts one first
//   had the victim's worker run the attacker's jobs. Now refused unless --use-running-temporal;
// - what it creates is private to the user (0700 folders, 0600 files).
// @needs temporal
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, expectFailure, runCli } from '../helpers.ts';
import { privateTreeProblems } from './private-tree.ts';

const devArgs = ['dev', '--no-job', '--no-n8n', '--exit-when-done', '--sim-port', '0', '--codec-port', '0'];

describe('attack: selling-kit dev', () => {
  it('refuses a Temporal server it did not start (the test server already answers): nothing started, nothing written', async () => {
    const ctx = cliEnv();
    const r = await runCli(ctx, ['--json', ...devArgs, '--ui-port', '18295']);
    expectFailure(r, 2, {
      code: 'temporal_already_running',
      message: `a Temporal server already answers on ${ctx.address} and this command did not start it: its owner could run jobs as you`,
    });
    expect(r.json.error.hint).toContain('--use-running-temporal');
    expect(existsSync(join(ctx.home, 'dev', 'credentials.json'))).toBe(false);
    expect(r.stderr).not.toContain('embedded stack ready');
  }, 120_000);

  it('keeps its demo shops in <home>/dev, never in the user credentials; everything private', async () => {
    const ctx = cliEnv({ PROD_KEY: 'pak_production_0123456789' });
    const prod = await runCli(ctx, [
      '--json',
      'shops',
      'add',
      'prod',
      '--api-key-env',
      'PROD_KEY',
      '--base-url',
      'https://partnerapi.example.com',
      '--no-check',
    ]);
    expect(prod.code).toBe(0);
    const userShops = readFileSync(join(ctx.home, 'credentials.json'), 'utf8');
    const r = await runCli(ctx, ['--json', ...devArgs, '--ui-port', '18296', '--use-running-temporal'], {
      timeoutMs: 180_000,
    });
    expect(r.code).toBe(0);
    // The user's shops: untouched. The dev stack's: only the demo shops.
    expect(readFileSync(join(ctx.home, 'credentials.json'), 'utf8')).toBe(userShops);
    const devShops = JSON.parse(readFileSync(join(ctx.home, 'dev', 'credentials.json'), 'utf8'));
    expect(Object.keys(devShops).sort()).toEqual(['demo', 'demo-us']);
    expect(existsSync(join(ctx.home, 'dev', 'jobs'))).toBe(true);
    expect(existsSync(join(ctx.home, 'jobs'))).toBe(false);
    expect(statSync(join(ctx.home, 'dev')).mode & 0o777).toBe(0o700);
    expect(privateTreeProblems(ctx.home)).toEqual([]);
  }, 240_000);
});
