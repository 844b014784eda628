// The CLI end to end: real Temporal, a real worker process (`selling-kit worker`), the simulator over
// HTTP, every command parsed from --json.
// @needs temporal
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_FEED, readLines, cliStackPerFile, expectFailure } from './helpers.ts';

const DEMO_KEY_ENV = { DEMO_KEY: 'pak_demo_selling_kit' };

const stack = cliStackPerFile(DEMO_KEY_ENV, { 'shop-b': 'DEMO_KEY' });

/** The example feed's expectations, line by line (1-based item numbers). */
const INVALID = new Map([
  [17, 'quantity'],
  [42, 'price_amount'],
  [63, 'discount_price'],
  [121, 'condition'],
  [150, 'description'],
  [177, 'pictures'],
  [190, '(row)'],
  [203, 'colour'],
  [229, 'sku'],
  [251, 'price_amount'],
  [274, 'national_shipping_cost'],
]);
const REFUSED_BY_API = new Set([88, 296]);

async function api(path: string) {
  const res = await fetch(`${stack.sim.url}${path}`, {
    headers: { authorization: 'Bearer pak_demo_selling_kit' },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('selling-kit bulk', () => {
  it('runs the example feed to the end; the report is right item by item and matches the shop', async () => {
    const run = await stack.cli(['--json', 'bulk', EXAMPLE_FEED, '--shop', 'shop-b', '--op', 'create']);
    expect(run.stderr).not.toContain('pak_demo_selling_kit');
    expect(run.code).toBe(3); // finished, with invalid and refused items
    const summary = run.json;
    expect(summary).toMatchObject({
      state: 'finished',
      total: 300,
      ok: 287,
      failed: 2,
      invalid: 11,
      cancelled: 0,
    });

    const report = readLines(readFileSync(summary.report, 'utf8')).map((l) => JSON.parse(l));
    expect(report).toHaveLength(300);
    const byLine = new Map(report.map((r) => [r.line, r]));
    expect([...byLine.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    for (const [line, item] of byLine) {
      if (INVALID.has(line)) {
        expect({ line, status: item.status, field: item.field }).toEqual({
          line,
          status: 'invalid',
          field: INVALID.get(line),
        });
      } else if (REFUSED_BY_API.has(line)) {
        expect(item).toMatchObject({
          status: 'failed',
          code: expect.any(String),
          errorId: expect.any(String),
        });
      } else {
        expect(item).toMatchObject({ status: 'ok', sku: `SK-DEMO-${String(line).padStart(4, '0')}` });
        expect(item.productId).toEqual(expect.any(Number));
      }
    }
    // Every ok item exists in the shop under its SKU with the reported id; nothing else was created.
    const ok = report.filter((r) => r.status === 'ok');
    for (const item of ok.filter((_, i) => i % 10 === 0)) {
      const got = await api(`/api/v1/products/by-sku/${item.sku}/`);
      expect(got.status).toBe(200);
      expect(got.body.id ?? got.body.product_id).toBe(item.productId);
    }
    const seller = stack.sim.world.sellers.get(1001)!;
    const created = [...seller.products.values()].filter((p) => p.sku?.startsWith('SK-DEMO-'));
    expect(created).toHaveLength(287);

    // `jobs report --failed --json` gives the same failures.
    const failed = await stack.cli(['--json', 'jobs', 'report', summary.jobId, '--failed']);
    expect(failed.code).toBe(0);
    expect(failed.json.map((r: { line: number }) => r.line).sort((a: number, b: number) => a - b)).toEqual(
      [...INVALID.keys(), ...REFUSED_BY_API].sort((a, b) => a - b),
    );
    // A job id names one job and its report: reusing it is refused, nothing is sent again.
    const again = await stack.cli([
      '--json',
      'bulk',
      EXAMPLE_FEED,
      '--shop',
      'shop-b',
      '--op',
      'create',
      '--job-id',
      summary.jobId,
    ]);
    expectFailure(again, 2, 'job_exists');
    const listed = await stack.cli(['--json', 'jobs', 'list']);
    expect(listed.json).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ jobId: summary.jobId, status: 'completed', shop: 'shop-b' }),
      ]),
    );
  }, 240_000);

  it('pause holds a job, resume continues it, cancel ends it with every item accounted for', async () => {
    const feed = join(stack.ctx.home, 'big.csv');
    const header = readFileSync(EXAMPLE_FEED, 'utf8').split('\n')[0];
    const rows = Array.from(
      { length: 1000 },
      (_, i) =>
        `PR-${i},"Vintage tee ${i} #nike",20.00,GBP,1,3.50,https://img.example/${i}.png,menswear,tshirts,used_good,Nike,GB,black,,,`,
    );
    writeFileSync(feed, [header, ...rows].join('\n') + '\n');
    const started = await stack.cli([
      '--json',
      'bulk',
      feed,
      '--shop',
      'shop-b',
      '--op',
      'create',
      '--detach',
      '--job-id',
      'pause-test',
    ]);
    expect(started.code).toBe(0);
    expect(started.json).toMatchObject({ jobId: 'pause-test', state: 'running' });

    const paused = await stack.cli(['--json', 'jobs', 'pause', 'pause-test', '--reason', 'price review']);
    expect(paused.code).toBe(0);
    expect(paused.json.state).toBe('paused');
    // The window in flight drains, then nothing moves while paused.
    const status = async () => (await stack.cli(['--json', 'jobs', 'status', 'pause-test'])).json;
    let a = await status();
    let b = a;
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 2000));
      b = await status();
      if (b.done === a.done) break;
      a = b;
    }
    expect(b).toMatchObject({ state: 'paused', reason: 'price review' });
    expect(b.done).toBe(a.done);
    expect(b.done).toBeLessThan(1000);

    const resumed = await stack.cli(['--json', 'jobs', 'resume', 'pause-test']);
    expect(resumed.json.state).toBe('running');
    // The next window of the shop's allowance (200 per 10 s) opens within ~10 s.
    let c = b;
    for (let i = 0; i < 40 && c.done <= b.done; i++) {
      await new Promise((r) => setTimeout(r, 500));
      c = (await stack.cli(['--json', 'jobs', 'status', 'pause-test'])).json;
    }
    expect(c.done).toBeGreaterThan(b.done);

    const cancelled = await stack.cli(['--json', 'jobs', 'cancel', 'pause-test']);
    expect(cancelled.code).toBe(0);
    const watched = await stack.cli(['--json', 'jobs', 'watch', 'pause-test']);
    expect(watched.code).toBe(7);
    expect(watched.json).toMatchObject({ state: 'cancelled', total: 1000 });
    expect(watched.json.ok + watched.json.cancelled + watched.json.unknown).toBe(1000);
    expect(watched.json.cancelled).toBeGreaterThan(0);
    const report = await stack.cli(['--json', 'jobs', 'report', 'pause-test']);
    expect(new Set(report.json.map((r: { line: number }) => r.line)).size).toBe(1000);
    // `jobs status` shows the workflow's own figures: cancelled items as cancelled, not failed — as in
    // the report (a create left in doubt by the cancel counts as cancelled, reported `unknown`).
    const final = await stack.cli(['--json', 'jobs', 'status', 'pause-test']);
    expect(final.code).toBe(0);
    const reported = (...s: string[]) =>
      report.json.filter((r: { status: string }) => s.includes(r.status)).length;
    expect(final.json).toMatchObject({
      state: 'cancelled',
      done: watched.json.ok,
      failed: reported('failed', 'invalid'),
      cancelled: reported('cancelled', 'unknown'),
    });
    const human = await stack.cli(['jobs', 'status', 'pause-test']);
    expect(human.stdout).toContain(
      `done ${final.json.done}, failed ${final.json.failed}, cancelled ${final.json.cancelled}, pending`,
    );
    const seller = stack.sim.world.sellers.get(1001)!;
    expect([...seller.products.values()].filter((p) => p.sku?.startsWith('PR-'))).toHaveLength(
      watched.json.ok,
    );
  }, 240_000);

  it('schedules: create, list and delete a feed sync and an orders reconciliation', async () => {
    const feed = join(stack.ctx.home, 'sync.csv');
    writeFileSync(feed, readFileSync(EXAMPLE_FEED, 'utf8').split('\n').slice(0, 3).join('\n') + '\n');
    // The same command twice: the second is refused.
    const createSync = () =>
      stack.cli([
        '--json',
        'schedules',
        'create',
        'sync-1',
        '--kind',
        'feed-sync',
        '--shop',
        'shop-b',
        '--feed',
        feed,
        '--every',
        '1h',
      ]);
    const a = await createSync();
    expect(a.code).toBe(0);
    const b = await stack.cli([
      '--json',
      'schedules',
      'create',
      'orders-1',
      '--kind',
      'orders-reconciliation',
      '--shop',
      'shop-b',
      '--order-flows',
    ]);
    expect(b.code).toBe(0);
    expect(b.json).toMatchObject({ cron: '0 3 * * *', orderFlows: true });
    const again = await createSync();
    expectFailure(again, 2, 'schedule_exists');
    let list = await stack.cli(['--json', 'schedules', 'list']);
    // Schedules are listed through the visibility store, which may lag a moment.
    for (
      let i = 0;
      i < 20 &&
      list.json.filter((s: { scheduleId: string }) => ['sync-1', 'orders-1'].includes(s.scheduleId)).length <
        2;
      i++
    ) {
      await new Promise((r) => setTimeout(r, 500));
      list = await stack.cli(['--json', 'schedules', 'list']);
    }
    expect(list.json).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ scheduleId: 'sync-1', kind: 'feed-sync' }),
        expect.objectContaining({ scheduleId: 'orders-1', kind: 'orders-reconciliation' }),
      ]),
    );
    for (const id of ['sync-1', 'orders-1'])
      expect((await stack.cli(['--json', 'schedules', 'delete', id])).code).toBe(0);
    const gone = await stack.cli(['--json', 'schedules', 'delete', 'sync-1']);
    expectFailure(gone, 4, 'schedule_not_found');
  }, 240_000);
});
