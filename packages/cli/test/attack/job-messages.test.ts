// Attacks on issue 22's bulk-job messages through the CLI: a CLI acting as a client scoped to shop a
// (SELLING_KIT_CLIENT_KEY) cannot pause or cancel shop b's job, nor read its report — each refused with
// its reason (exit 2), the job untouched. The CLI names the job's shops as the job answers them; the
// worker's codec refuses a key not granted them, the job (or the report) shops that are not its own.
// `selling-kit worker`, the simulator, a real Temporal server.
// @needs temporal
import { cliStackPerFile, expectFailure, writeCreatesFeed } from '../helpers.ts';

// Two shop names for the demo seller's key: what the client may name is the question, not whose key.
const stack = cliStackPerFile({ DEMO_KEY: 'pak_demo_selling_kit' }, { a: 'DEMO_KEY', b: 'DEMO_KEY' });

/** A feed of `n` creates `<prefix>-<i>`: long enough to be held before its end. */
function feed(prefix: string, n: number): string {
  return writeCreatesFeed(stack.ctx.home, prefix, n);
}

describe('attack: a key for shop a and shop b\u2019s job, through the CLI', () => {
  it('pause, cancel and report of b\u2019s job with a key for a: refused with the reason; the job untouched', async () => {
    const issued = await stack.cli(['keys', 'issue', '--id', 'jm-a', '--shops', 'a']);
    expect(issued.code).toBe(0);
    const asA = { env: { SELLING_KIT_CLIENT_KEY: issued.stdout.trim() } };
    const started = await stack.cli([
      ...['--json', 'bulk', feed('JMB', 1000), '--shop', 'b', '--op', 'create'],
      ...['--detach', '--job-id', 'jm-b'],
    ]);
    expect(started.code).toBe(0);
    // The operator holds it: what the attacks would change (its state, its reason) stays still meanwhile.
    const held = await stack.cli(['--json', 'jobs', 'pause', 'jm-b', '--reason', 'held by the operator']);
    expect(held.json).toMatchObject({ state: 'paused' });

    // The CLI names the job's shops ([b], as the job answers): the worker's codec refuses the key.
    for (const args of [
      ['jobs', 'pause', 'jm-b', '--reason', 'mine now'],
      ['jobs', 'resume', 'jm-b'],
      ['jobs', 'cancel', 'jm-b'],
    ]) {
      const r = await stack.cli(['--json', ...args], asA);
      expectFailure(r, 2, 'job_message_refused');
      expect(r.json.error.message).toContain('client key jm-a may not name shop b');
    }
    const status = await stack.cli(['--json', 'jobs', 'status', 'jm-b']);
    expect(status.json).toMatchObject({
      jobId: 'jm-b',
      state: 'paused',
      reason: 'held by the operator',
      cancelled: 0,
    });

    // The operator ends it; its report is b's alone to read.
    expect((await stack.cli(['--json', 'jobs', 'cancel', 'jm-b'])).code).toBe(0);
    // Followed by `status`, not `watch`: watch would export the report into this home's report folder,
    // which a CLI on this home reads without asking a worker (a file of the operator's, not Temporal's).
    const end = Date.now() + 60_000;
    while ((await stack.cli(['--json', 'jobs', 'status', 'jm-b'])).json.state !== 'cancelled')
      if (Date.now() > end) throw new Error('job jm-b did not end within 60 s of its cancel');
    const asked = await stack.cli(['--json', 'jobs', 'report', 'jm-b'], asA);
    expectFailure(asked, 2, 'report_refused');
    expect(asked.json.error.message).toContain('client key jm-a may not name shop b');
    const named = await stack.cli(['--json', 'jobs', 'report', 'jm-b', '--shops', 'a'], asA);
    expectFailure(named, 2, 'report_refused');
    expect(named.json.error.message).toContain('this message names shops [a]; job jm-b is for shops [b]');
    const own = await stack.cli(['--json', 'jobs', 'report', 'jm-b']);
    expect(own.code).toBe(0);
    expect(new Set(own.json.map((l: { line: number }) => l.line)).size).toBe(1000);
  }, 180_000);
});
