// `jobs report` and `jobs status` on another host: the worker (`selling-kit worker`, its job store in its
// own home) runs the jobs; a second CLI home — another machine: no report folder, no job store, only
// Temporal and the codec key in common — reads the report through a worker and exports it to its own
// report folder. A many-shop job's report names each line's shop and exports a file per shop.
// @needs temporal
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bulkWorkflowId } from '@selling-kit/temporal-workflows/contract';
import {
  cliEnv,
  cliStackPerFile,
  expectFailure,
  readLines,
  runCli,
  writeCreatesFeed,
  type CliEnv,
} from './helpers.ts';

const run = promisify(execFile);
const stack = cliStackPerFile(
  { DEMO_KEY: 'pak_demo_selling_kit', US_KEY: 'pak_demo_selling_kit_us' },
  { 'shop-r': 'DEMO_KEY', 'shop-us': 'US_KEY' },
);
/** The other host: its own home, the worker's task queue and codec key. */
let other: CliEnv;

beforeAll(() => {
  other = cliEnv({ SELLING_KIT_CODEC_KEY: stack.ctx.env.SELLING_KIT_CODEC_KEY });
  other.taskQueue = stack.ctx.taskQueue;
  other.env.SELLING_KIT_TASK_QUEUE = stack.ctx.taskQueue;
});

/** A feed of `n` valid creates `<prefix>-<i>` and one invalid row (reported, never sent). */
function feed(prefix: string, n: number): string {
  return writeCreatesFeed(stack.ctx.home, prefix, n, [`${prefix}-bad,,oops`]);
}

/** Starts a job detached and waits for its end with `jobs watch` (on the worker's host). */
async function runJob(args: string[], jobId: string): Promise<void> {
  expect((await stack.cli(['--json', 'bulk', ...args, '--detach', '--job-id', jobId])).code).toBe(0);
  expect([0, 3]).toContain((await stack.cli(['--json', 'jobs', 'watch', jobId])).code);
}

describe('reports read on another host', () => {
  it("jobs report: every line through a worker, exported to this host's report folder; --failed", async () => {
    await runJob([feed('RP', 6), '--shop', 'shop-r', '--op', 'create'], 'rep-1');
    expect(existsSync(join(other.home, 'reports'))).toBe(false);
    expect(existsSync(join(other.home, 'jobs'))).toBe(false);

    const human = await runCli(other, ['jobs', 'report', 'rep-1', '--failed']);
    expect(human.code).toBe(0);
    const exported = join(other.home, 'reports', 'rep-1.ndjson');
    expect(human.stderr).toContain(`exported to ${exported}`);
    expect(human.stdout).toMatch(/\n7\s+invalid\s+malformed_row/);
    expect(human.stdout).not.toMatch(/\bok\b/);

    // Read again: the job had ended before its export was written, and it has every line: read as it is.
    const r = await runCli(other, ['--json', 'jobs', 'report', 'rep-1']);
    expect(r.code).toBe(0);
    expect(r.json.map((l: { line: number; status: string }) => [l.line, l.status])).toEqual([
      ...Array.from({ length: 6 }, (_, i) => [i + 1, 'ok']),
      [7, 'invalid'],
    ]);
    expect(readLines(readFileSync(exported, 'utf8')).map((l) => JSON.parse(l))).toEqual(r.json);
    // The worker's host has nothing of this host's, nor this host of the worker's.
    expect(existsSync(join(other.home, 'jobs'))).toBe(false);
    const again = await runCli(other, ['jobs', 'report', 'rep-1']);
    expect(again.stderr).toContain(`the export written after job rep-1 ended: ${exported}`);

    const unknown = await runCli(other, ['--json', 'jobs', 'report', 'rep-none']);
    expectFailure(unknown, 4, {
      code: 'report_not_found',
      message: expect.stringContaining('no job "rep-none"'),
    });
  }, 240_000);

  it("a many-shop job: each line's shop, a file per shop", async () => {
    await runJob([feed('RM', 4), '--shop', 'shop-r', '--shop', 'shop-us', '--op', 'create'], 'rep-many');
    const r = await runCli(other, ['--json', 'jobs', 'report', 'rep-many']);
    expect(r.code).toBe(0);
    expect(r.json.map((l: { shopId: string; line: number }) => `${l.shopId}:${l.line}`)).toEqual(
      ['shop-r', 'shop-us'].flatMap((s) => Array.from({ length: 5 }, (_, i) => `${s}:${i + 1}`)),
    );
    const folder = join(other.home, 'reports', 'rep-many');
    expect(readdirSync(folder).sort()).toEqual(['shop-r.ndjson', 'shop-us.ndjson']);
    expect(readLines(readFileSync(join(folder, 'shop-us.ndjson'), 'utf8'))).toHaveLength(5);
    const human = await runCli(other, ['jobs', 'report', 'rep-many', '--failed']);
    expect(human.stdout).toMatch(/\n5\s+shop-r\s+invalid\s+malformed_row/);
    expect(human.stdout).toMatch(/\n5\s+shop-us\s+invalid\s+malformed_row/);
  }, 240_000);

  it("jobs status of a terminated job: the report's figures, read through a worker", async () => {
    expect(
      (
        await stack.cli([
          '--json',
          'bulk',
          feed('RT', 400),
          '--shop',
          'shop-r',
          '--op',
          'create',
          '--detach',
          '--job-id',
          'rep-term',
        ])
      ).code,
    ).toBe(0);
    // Some lines reported (the first windows'), then an operator stop.
    await new Promise((r) => setTimeout(r, 4000));
    await run(process.env.TEMPORAL_CLI_PATH!, [
      ...['workflow', 'terminate', '--workflow-id', bulkWorkflowId('rep-term'), '--reason', 'operator stop'],
      ...['--address', other.address, '--namespace', 'default'],
    ]);
    const status = await runCli(other, ['jobs', 'status', 'rep-term']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^job rep-term: failed \(terminated: .*operator stop/);
    const ok = Number(
      /\n\s+(\d+) ok, 0 failed, 0 invalid, 0 cancelled in the report/.exec(status.stdout)?.[1],
    );
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBeLessThan(400);
  }, 240_000);
});
