// Attack (L6, L3): a secret on the command line is readable by every local user (`ps`, /proc/<pid>/
// cmdline) for as long as the process runs. A database URL with a password on `worker --token-store`
// and the simulator's `--admin-token` are refused, naming where the secret goes instead; the value is
// never echoed and nothing is started.
// @needs temporal
import { TOKEN_STORE_ENV } from '../../src/config.ts';
import { cliEnv, expectFailure, runCli } from '../helpers.ts';

describe('attack: secrets on argv', () => {
  it('worker --token-store with a password in the URL is refused, naming the variable; nothing connects', async () => {
    const ctx = cliEnv();
    for (const url of [
      'postgres://worker:hunter2pass@127.0.0.1:1/selling_kit',
      'postgresql://worker:hunter2pass@127.0.0.1:1/selling_kit?sslmode=disable',
      'postgres://127.0.0.1:1/selling_kit?password=hunter2pass',
    ]) {
      const r = await runCli(ctx, ['--json', 'worker', '--token-store', url]);
      expectFailure(r, 2, {
        code: 'secret_on_argv',
        message: `--token-store holds a password, which any local user can read on the command line: put the URL in ${TOKEN_STORE_ENV} (or the password in PGPASSWORD)`,
      });
      expect(r.stdout + r.stderr).not.toContain('hunter2pass');
      expect(r.stderr).not.toContain('Ctrl-C stops it');
    }
  });

  it('selling-kit simulator --admin-token <value> is refused, the value never echoed', async () => {
    const ctx = cliEnv();
    const r = await runCli(ctx, ['simulator', '--port', '0', '--admin-token', 'adm_on_argv_0123']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--admin-token is refused');
    expect(r.stderr).toContain('SELLING_KIT_SIMULATOR_ADMIN_TOKEN');
    expect(r.stdout + r.stderr).not.toContain('adm_on_argv_0123');
  });
});
