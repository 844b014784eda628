// Attack on `selling-kit dev`'s worker (review, item 9): it read job feeds from whatever folder `dev`
// ran in, on an unauthenticated local stack — any job could name any file there. Now its feed roots
// are the package's examples, SELLING_KIT_FEED_ROOTS and each `--feed-root <dir>`, never the working
// folder.
// @needs temporal
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLE_FEED } from '../../src/commands/dev.ts';
import { cliEnv, runCli } from '../helpers.ts';

/** A folder holding a two-item feed (the example's first rows): the folder `dev` runs in. */
const folder = mkdtempSync(join(tmpdir(), 'sk-dev-cwd-'));
const feed = join(folder, 'listings.csv');
writeFileSync(feed, readFileSync(EXAMPLE_FEED, 'utf8').split('\n').slice(0, 3).join('\n') + '\n');

const devArgs = [
  '--json',
  'dev',
  '--feed',
  feed,
  '--sim-port',
  '0',
  '--codec-port',
  '0',
  '--exit-when-done',
  '--no-n8n',
  '--use-running-temporal',
];

/** No roots from the environment (the tests' env allows all of tmpdir): only dev's own. */
const env = { SELLING_KIT_FEED_ROOTS: '' };

describe('attack: selling-kit dev feed roots', () => {
  it('a feed in the folder dev runs in is refused: the working folder is no feed root', async () => {
    const ctx = cliEnv();
    const r = await runCli(ctx, [...devArgs, '--ui-port', '18291'], { env, cwd: folder, timeoutMs: 180_000 });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain(
      `${feed} is outside this worker's feed roots (SELLING_KIT_FEED_ROOTS)`,
    );
  }, 240_000);

  it('--feed-root <dir> lets the dev worker read feeds there', async () => {
    const ctx = cliEnv();
    const r = await runCli(ctx, [...devArgs, '--ui-port', '18290', '--feed-root', folder], {
      env,
      cwd: folder,
      timeoutMs: 180_000,
    });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ state: 'finished', total: 2 });
  }, 240_000);
});
