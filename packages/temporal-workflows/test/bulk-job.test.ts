// The bulk job's state and transitions (workflows/bulk-job.ts) without Temporal: a window's outcomes
// counted, retries backed off and given up, creates in doubt verified, and the effects (pauses, report
// parts, in order) the workflow applies. The workflow around them is tested on the dev server and by the
// recorded histories' replay.
import type { BatchResult, FeedItem, SendOutcome, SlotBatch } from '../src/types.ts';
import {
  drained,
  fillWindow,
  handBack,
  newCarry,
  progressOf,
  releaseDue,
  retryOrFail,
  settled,
  verified,
  type BulkCarry,
  type BulkRules,
} from '../src/workflows/bulk-job.ts';

const RULES: BulkRules = { maxTries: 3, minWaitMs: 1_000, verifyDelaysMs: [1_000, 2_000, 4_000] };
const NOW = 1_700_000_000_000;

const fresh = (): BulkCarry => newCarry({ allowance: { limit: 200, windowMs: 10_000 }, startedAt: NOW });
const item = (line: number, over: Partial<FeedItem> = {}): FeedItem => ({
  line,
  sku: `SKU-${line}`,
  ...over,
});
const batchOf = (...items: FeedItem[]): SlotBatch[] => [{ slot: 0, notBefore: NOW, items }];
const result = (outcomes: SendOutcome[], over: Partial<BatchResult> = {}): BatchResult => ({
  ok: [],
  outcomes,
  slots: [],
  attempt: 1,
  ...over,
});

describe('newCarry', () => {
  it('is a job before its first run: nothing read or sent, paced at the allowance, schema current', () => {
    const s = fresh();
    expect(s).toMatchObject({ offset: 0, feedDone: false, runs: 0, seq: 0, rate: 200, startedAt: NOW });
    expect(s.counts).toEqual({ total: 0, done: 0, failed: 0, cancelled: 0, rateLimited: 0, verified: 0 });
    expect([s.queue, s.later, s.unknown, s.report]).toEqual([[], [], [], []]);
  });
});

describe('retryOrFail', () => {
  it('backs off 1 s, 2 s, … (sorted by when due), then fails with a report line after maxTries', () => {
    const s = fresh();
    expect(retryOrFail(s, item(2, { tries: 1 }), { code: 'server_error', message: '502' }, NOW, RULES)).toBe(
      undefined,
    );
    expect(retryOrFail(s, item(1), { code: 'server_error', message: '503' }, NOW, RULES)).toBe(undefined);
    expect(s.later.map((i) => [i.line, i.tries, i.notBefore! - NOW, i.resend])).toEqual([
      [1, 1, 1_000, true],
      [2, 2, 2_000, true],
    ]);
    const line = retryOrFail(s, item(3, { tries: 2 }), { code: 'server_error', message: '500' }, NOW, RULES);
    expect(line).toMatchObject({
      line: 3,
      status: 'failed',
      code: 'server_error',
      message: 'gave up after 3 tries: 500',
    });
    expect(s.counts.failed).toBe(1);
  });
});

describe('settled', () => {
  it('counts each kind of outcome and queues 429s first again', () => {
    const s = fresh();
    s.queue.push(item(9));
    const e = settled(
      s,
      result(
        [
          { line: 2, status: 'failed', code: 'invalid_price', message: 'no' },
          { line: 3, status: 'rate_limited', retryAfterMs: 5_000 },
          { line: 4, status: 'unknown', code: 'gateway_timeout', reason: '504' },
          { line: 5, status: 'retry', reason: 'not sent before the deadline' },
        ],
        { ok: [1], retryAfterMs: 5_000, attempt: 2 },
      ),
      batchOf(item(1), item(2), item(3), item(4), item(5)),
      7,
      NOW,
      RULES,
    );
    expect(e).toEqual({ pauses: [], reports: [] });
    expect(s.counts).toMatchObject({ done: 1, failed: 1, rateLimited: 1 });
    expect(s.queue.map((i) => i.line)).toEqual([3, 5, 9]);
    expect(s.unknown).toEqual([
      expect.objectContaining({ rounds: 0, dueAt: NOW + 1_000, item: expect.objectContaining({ line: 4 }) }),
    ]);
    expect(s.retryAfterMs).toBe(5_000);
    expect(s.accepted).toEqual({ 7: 2 });
  });

  it('answers one report part per item given up, in order, and a refused credential as a pause', () => {
    const s = fresh();
    const e = settled(
      s,
      result([
        { line: 1, status: 'retry', reason: '502', sent: true, code: 'server_error' },
        { line: 2, status: 'reauthorization_required', message: 'invalid_grant' },
        { line: 3, status: 'retry', reason: '503', sent: true, code: 'server_error' },
      ]),
      batchOf(item(1, { tries: 2 }), item(2), item(3, { tries: 2 })),
      1,
      NOW,
      RULES,
    );
    expect(e.reports.map((lines) => lines.map((l) => l.line))).toEqual([[1], [3]]);
    expect(e.pauses).toEqual([{ reason: 'reauthorization required: invalid_grant', cause: 'reauthorize' }]);
    expect(s.queue.map((i) => i.line)).toEqual([2]);
  });

  it('pauses when nothing reaches the API, window after window', () => {
    const s = fresh();
    const unreachable = () =>
      settled(
        s,
        result([{ line: 1, status: 'retry', reason: 'ECONNREFUSED', code: 'network_error' }]),
        batchOf(item(1)),
        1,
        NOW,
        RULES,
      );
    const pauses: string[] = [];
    for (let i = 0; i < 10 && pauses.length === 0; i++)
      pauses.push(...unreachable().pauses.map((p) => p.cause));
    expect(pauses).toEqual(['api']);
    expect(s.unreachable).toBeGreaterThan(1);
  });
});

describe('verified', () => {
  const inDoubt = (s: BulkCarry, line: number, rounds = 0) => {
    const u = { item: item(line), rounds, dueAt: NOW };
    s.unknown.push(u);
    return u;
  };

  it("found → done and verified; an older listing's SKU → failed; absent → next round, then sent again", () => {
    const s = fresh();
    const due = [inDoubt(s, 1), inDoubt(s, 2), inDoubt(s, 3), inDoubt(s, 4, 2)];
    const e = verified(s, due, { found: [1], taken: [2], checked: [1, 2, 3, 4] }, NOW, RULES);
    expect(e).toEqual({ pauses: [], reports: [] });
    expect(s.counts).toMatchObject({ done: 1, verified: 1, failed: 1 });
    expect(s.unknown.map((u) => [u.item.line, u.rounds, u.dueAt - NOW])).toEqual([[3, 1, 2_000]]);
    expect(s.later.map((i) => [i.line, i.resend])).toEqual([[4, true]]);
  });

  it('a lookup that keeps failing is given up as unknown after maxTries, with its report part', () => {
    const s = fresh();
    const u = inDoubt(s, 5);
    const parts = [];
    for (let i = 0; i < RULES.maxTries; i++)
      parts.push(...verified(s, [u], { found: [], taken: [], checked: [] }, NOW, RULES).reports);
    expect(parts).toEqual([
      [expect.objectContaining({ line: 5, status: 'unknown', code: 'outcome_unknown' })],
    ]);
    expect(s.unknown).toEqual([]);
    expect(s.counts.failed).toBe(1);
  });
});

describe('a window', () => {
  it('fills each granted slot from the queue (a wide slot part with its own size); an empty slot is reported unused', () => {
    const s = fresh();
    s.queue.push(item(1), item(2), item(3));
    const batch = fillWindow(s, {
      slotSize: 2,
      slots: [
        { slot: 0, notBefore: NOW },
        { slot: 1, notBefore: NOW + 100, size: 1 },
        { slot: 2, notBefore: NOW + 200 },
      ],
    });
    expect(batch.map((b) => [b.slot, b.items.map((i) => i.line)])).toEqual([
      [0, [1, 2]],
      [1, [3]],
    ]);
    expect(s.report).toEqual([{ slot: 2, lastAt: null }]);
    handBack(s, batch);
    expect(s.queue.map((i) => i.line)).toEqual([1, 2, 3]);
    expect(s.report.map((r) => r.slot)).toEqual([2, 0, 1]);
  });

  it('items whose backoff ended join the queue; the job is drained only when nothing is held and the feed is read', () => {
    const s = fresh();
    s.later.push(item(1, { notBefore: NOW - 1 }), item(2, { notBefore: NOW + 1_000 }));
    releaseDue(s, NOW);
    expect([s.queue.map((i) => i.line), s.later.map((i) => i.line)]).toEqual([[1], [2]]);
    s.queue = [];
    s.feedDone = true;
    expect(drained(s)).toBe(false);
    releaseDue(s, NOW + 1_000);
    s.queue = [];
    expect(drained(s)).toBe(true);
  });

  it('progress: pending and the ETA at the current rate', () => {
    const s = fresh();
    Object.assign(s.counts, { total: 1_000, done: 500, failed: 90, cancelled: 10 });
    s.rate = 200;
    expect(
      progressOf(s, { jobId: 'j', state: 'running', reason: undefined, windowMs: 10_000 }),
    ).toMatchObject({
      pending: 400,
      etaMs: 20_000,
      currentRate: 200,
    });
  });
});
