// Jobs while no worker runs: a closed job's state comes from Temporal alone (its result, or its failure);
// a running one's is a one-line "no worker" (exit 8) within seconds — never a 30 s wait and a stack trace.
// @needs temporal
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { bulkWorkflowId } from '@selling-kit/temporal-workflows/contract';
import { cliEnv, runCli, startCliWorker, writeCreatesFeed, type CliEnv, type CliResult } from './helpers.ts';

const run = promisify(execFile);
let sim: RunningSimulator;
/** Had a worker, stopped during the tests. */
let ctx: CliEnv;
/** Never had a worker. */
let idle: CliEnv;

beforeAll(async () => {
  sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
  ctx = cliEnv({ DEMO_KEY: 'pak_demo_selling_kit' });
  idle = cliEnv({ DEMO_KEY: 'pak_demo_selling_kit' });
  for (const c of [ctx, idle])
    expect(
      (await runCli(c, ['shops', 'add', 'shop-n', '--api-key-env', 'DEMO_KEY', '--base-url', sim.url])).code,
    ).toBe(0);
}, 90_000);

afterAll(async () => {
  await sim?.close();
}, 120_000);

/** A feed of `n` valid creates with SKUs `<prefix>-<i>`. */
function feed(c: CliEnv, prefix: string, n: number): string {
  return writeCreatesFeed(c.home, prefix, n);
}

const terminate = (c: CliEnv, jobId: string, reason: string) =>
  run(process.env.TEMPORAL_CLI_PATH!, [
    ...['workflow', 'terminate', '--workflow-id', bulkWorkflowId(jobId), '--reason', reason],
    ...['--address', c.address, '--namespace', 'default'],
  ]);

/** One line on stderr, no stack trace, the SDK's own error never shown. */
function expectOneLine(r: CliResult): void {
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/Failed to query|\n\s+at /);
}

describe('jobs without a worker', () => {
  it('a running job no worker ever polled: status, watch, pause and bulk say so in one line (exit 8)', async () => {
    const started = await runCli(idle, [
      ...['--json', 'bulk', feed(idle, 'NW', 5), '--shop', 'shop-n', '--op', 'create'],
      ...['--detach', '--job-id', 'idle-1'],
    ]);
    expect(started.code).toBe(0);

    const status = await runCli(idle, ['--json', 'jobs', 'status', 'idle-1']);
    expect(status.code).toBe(8);
    expect(status.json.error).toMatchObject({
      code: 'no_worker',
      message: expect.stringContaining(`no worker is polling task queue ${idle.taskQueue}`),
    });
    expect(status.json.error.message).toContain('start one with `selling-kit worker`');
    expectOneLine(status);
    const human = await runCli(idle, ['jobs', 'status', 'idle-1']);
    expect(human.code).toBe(8);
    expect(human.stderr).toMatch(/^error: job idle-1 is running, but no worker is polling task queue/);
    expectOneLine(human);

    for (const args of [
      ['jobs', 'watch', 'idle-1'],
      ['jobs', 'pause', 'idle-1'],
    ]) {
      const r = await runCli(idle, ['--json', ...args]);
      expect({ args, code: r.code, error: r.json?.error?.code }).toEqual({
        args,
        code: 8,
        error: 'no_worker',
      });
      expectOneLine(r);
    }

    // `bulk` starts the job, then says at once that nothing will run it.
    const bulk = await runCli(idle, [
      ...['--json', 'bulk', feed(idle, 'NW2', 3), '--shop', 'shop-n', '--op', 'create'],
      ...['--job-id', 'idle-2'],
    ]);
    expect(bulk.code).toBe(8);
    expect(bulk.json.error.message).toContain('job idle-2 is running, but no worker is polling');
    await terminate(idle, 'idle-2', 'test clean-up');
  }, 240_000);

  it('a terminated job: its state and the reason from Temporal, no worker needed', async () => {
    await terminate(idle, 'idle-1', 'operator stop');
    const status = await runCli(idle, ['--json', 'jobs', 'status', 'idle-1']);
    expect(status.code).toBe(0);
    expect(status.json).toMatchObject({
      jobId: 'idle-1',
      state: 'failed',
      execution: 'terminated',
      reason: expect.stringContaining('operator stop'),
    });
    const human = await runCli(idle, ['jobs', 'status', 'idle-1']);
    expect(human.stdout).toMatch(/^job idle-1: failed \(terminated: .*operator stop.*\)/);
    const watched = await runCli(idle, ['--json', 'jobs', 'watch', 'idle-1']);
    expect(watched.code).toBe(7);
    // No worker ran it, nothing reported: the feed's size is not known, and not made up.
    expect(watched.json).toMatchObject({ jobId: 'idle-1', state: 'failed', total: null, ok: 0 });
  }, 240_000);

  it('after the worker stopped: a finished job from its result; a running one is exit 8, not a hang', async () => {
    const worker = await startCliWorker(ctx);
    let stopped = false;
    try {
      const done = await runCli(ctx, [
        ...['--json', 'bulk', feed(ctx, 'FIN', 3), '--shop', 'shop-n', '--op', 'create'],
        ...['--job-id', 'fin-1'],
      ]);
      expect(done.code).toBe(0);
      const started = await runCli(ctx, [
        ...['--json', 'bulk', feed(ctx, 'RUN', 600), '--shop', 'shop-n', '--op', 'create'],
        ...['--detach', '--job-id', 'run-1'],
      ]);
      expect(started.code).toBe(0);
      expect((await runCli(ctx, ['--json', 'jobs', 'pause', 'run-1'])).code).toBe(0);
      await worker.stop();
      stopped = true;

      const status = await runCli(ctx, ['--json', 'jobs', 'status', 'fin-1']);
      expect(status.code).toBe(0);
      expect(status.json).toMatchObject({ jobId: 'fin-1', state: 'finished', total: 3, done: 3, failed: 0 });
      const human = await runCli(ctx, ['jobs', 'status', 'fin-1']);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain('done 3, failed 0, cancelled 0, pending 0 of 3');
      const watched = await runCli(ctx, ['--json', 'jobs', 'watch', 'fin-1']);
      expect(watched.code).toBe(0);
      expect(watched.json).toMatchObject({ state: 'finished', ok: 3, failed: 0, cancelled: 0 });
      const report = await runCli(ctx, ['--json', 'jobs', 'report', 'fin-1']);
      expect(report.code).toBe(0);
      expect(report.json).toHaveLength(3);

      // The stopped worker is still listed by the server for a while: the query is what tells.
      const running = await runCli(ctx, ['--json', 'jobs', 'status', 'run-1']);
      expect(running.code).toBe(8);
      expect(running.json.error.code).toBe('no_worker');
      expect(running.json.error.message).toMatch(
        new RegExp(`no worker (on|is polling) task queue ${ctx.taskQueue}`),
      );
      expectOneLine(running);
    } finally {
      if (!stopped) await worker.stop();
      await terminate(ctx, 'run-1', 'test clean-up').catch(() => undefined);
    }
  }, 240_000);
});
