// Attack (L11): two `shops add` (or `dev`) at once each read credentials.json, add their shop and
// rename their copy into place: the last rename wins and the other shop is silently lost. The
// read-modify-write now holds the store's lock, so every concurrent add is kept.
// @needs temporal
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, runCli } from '../helpers.ts';

describe('attack: concurrent shops add', () => {
  it('eight concurrent adds keep eight shops, the file stays 0600 and no lock is left behind', async () => {
    const ctx = cliEnv({ KEY: 'pak_concurrent_0123456789' });
    const names = Array.from({ length: 8 }, (_, i) => `shop-${i}`);
    const runs = await Promise.all(
      names.map((name) =>
        runCli(ctx, ['--json', 'shops', 'add', name, '--api-key-env', 'KEY', '--no-check']),
      ),
    );
    for (const r of runs) expect(r.code).toBe(0);
    const file = join(ctx.home, 'credentials.json');
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8'))).sort()).toEqual(names);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(() => statSync(`${file}.lock`)).toThrow();
  }, 120_000);
});
