// Attack (L5): with the default umask (022) the CLI's home, reports, the job store's snapshots and
// parts were world-readable: another local user could read buyers' orders, feeds and reports. Now the
// home and its folders are created 0700 and what is written in them 0600, whatever the umask.
// @needs temporal
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { EXAMPLE_FEED, cliEnv, runCli, startCliWorker, type CliEnv } from '../helpers.ts';
import { privateTreeProblems } from './private-tree.ts';

let sim: RunningSimulator;
let ctx: CliEnv;
let worker: { stop(): Promise<void> } | undefined;
let feedDir: string;

beforeAll(async () => {
  sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
  // A home that does not exist yet (cliEnv's mkdtemp folder is 0700 already): the CLI creates it.
  ctx = cliEnv({ KEY: 'pak_demo_selling_kit' });
  const parent = ctx.home;
  ctx.home = join(parent, 'home');
  ctx.env.SELLING_KIT_HOME = ctx.home;
  // Path feeds are read only under the worker's roots: this test's feed folder.
  feedDir = mkdtempSync(join(tmpdir(), 'sk-modes-'));
  ctx.env.SELLING_KIT_FEED_ROOTS = feedDir;
  // The attack needs the usual permissive umask (the one this process passes on to what it spawns).
  process.umask(0o022);
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await sim?.close();
}, 60_000);

describe('attack: reading another user’s selling-kit files', () => {
  it('shops add creates the home 0700 and credentials.json 0600', async () => {
    const r = await runCli(ctx, [
      '--json',
      'shops',
      'add',
      'shop-m',
      '--api-key-env',
      'KEY',
      '--base-url',
      sim.url,
    ]);
    expect(r.code).toBe(0);
    expect(statSync(ctx.home).mode & 0o777).toBe(0o700);
    expect(statSync(join(ctx.home, 'credentials.json')).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('a job: its job store (snapshot, parts) and the exported report are private', async () => {
    worker = await startCliWorker(ctx);
    const feed = join(feedDir, 'feed.csv');
    writeFileSync(feed, readFileSync(EXAMPLE_FEED, 'utf8').split('\n').slice(0, 4).join('\n') + '\n');
    const r = await runCli(
      ctx,
      ['--json', 'bulk', feed, '--shop', 'shop-m', '--op', 'create', '--no-check'],
      {
        timeoutMs: 180_000,
      },
    );
    expect([0, 3]).toContain(r.code);
    expect(statSync(r.json.report).mode & 0o777).toBe(0o600);
    expect(privateTreeProblems(ctx.home)).toEqual([]);
  }, 240_000);
});
