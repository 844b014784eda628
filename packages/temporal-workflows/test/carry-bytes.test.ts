// What a bulk job hands Temporal in one piece is bounded in BYTES (review N9): its continue-as-new carry
// (a ContinueAsNew over the 2 MiB blob limit terminates the run) and a window's heartbeat details. Pure
// functions, no Temporal: the carry is built with the workflow's own rules (when it reads, how an item
// backs off), a heartbeat with the activity's.
import { randomUUID } from 'node:crypto';
import {
  backedOff,
  fitsOnePayload,
  jsonBytes,
  mayRead,
  PAYLOAD_BUDGET_BYTES,
} from '../src/workflows/carry-bytes.ts';
import { boundedProgress } from '../src/activities/batch-heartbeat.ts';
import { DEFAULT_ALLOWANCES } from '../src/workflows/pacing.ts';
import type { FeedItem, SendOutcome } from '../src/types.ts';

/** A 5xx answer's message of 200 characters (what the carry held per item before). */
const longError = () => ({ code: 'generic_error', message: 'm'.repeat(200), errorId: randomUUID() });
const sku = (line: number) => `SKU-${String(line).padStart(12, '0')}`;

describe('the continue-as-new carry', () => {
  it('a general-group job whose every item backs off with a 200-character message carries < 512 KiB', () => {
    // The workflow reads another chunk while queue + backlog hold less than a window (5,700 requests on
    // the general group) and the carry may grow (mayRead); each item read fails and backs off.
    const rate = DEFAULT_ALLOWANCES.general.limit;
    const carry = { queue: [] as FeedItem[], later: [] as FeedItem[], unknown: [] as unknown[] };
    let line = 0;
    while (carry.queue.length + carry.later.length < rate && mayRead(carry))
      for (let i = 0; i < 200; i++, line++)
        carry.later.push(backedOff({ line, sku: sku(line) }, longError(), 1, 1_764_000_000_000 + line));
    expect(jsonBytes(carry)).toBeLessThan(PAYLOAD_BUDGET_BYTES);
    expect(fitsOnePayload(carry)).toBe(true);
    // What it no longer holds waits in the feed: reading stopped, it was not dropped.
    expect(carry.later.length).toBeLessThan(rate);
    expect(carry.later.length).toBeGreaterThan(500);
  });

  it('an item carries its error code and id whole, its message short', () => {
    const error = longError();
    const item = backedOff({ line: 7, sku: 'A' }, error, 3, 5);
    expect(item).toMatchObject({ line: 7, sku: 'A', resend: true, tries: 3, notBefore: 5 });
    expect(item.lastError).toMatchObject({ code: error.code, errorId: error.errorId });
    expect(item.lastError!.message.length).toBeLessThanOrEqual(80);
  });

  it('5,700 backed-off items as the workflow carried them before (2 MiB) do not fit one payload', () => {
    const carry = {
      later: Array.from({ length: 5_700 }, (_, line) => ({
        line,
        sku: sku(line),
        resend: true,
        tries: 1,
        notBefore: 1_764_000_000_000,
        lastError: longError(),
      })),
    };
    expect(jsonBytes(carry)).toBeGreaterThan(2 * 1024 * 1024);
    expect(fitsOnePayload(carry)).toBe(false);
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(jsonBytes('é')).toBe(4); // "é": 2 quotes + 2 bytes
    expect(jsonBytes('😀')).toBe(6);
  });
});

describe("a window's heartbeat", () => {
  const window = (n: number) => {
    const outcomes: Record<number, SendOutcome> = {};
    for (let line = 0; line < n; line++)
      outcomes[line] =
        line % 2
          ? { line, status: 'failed', code: 'validation', message: 'm'.repeat(200), errorId: randomUUID() }
          : { line, status: 'ok', productId: 1_000_000 + line, slug: `seller-vintage-tee-${line}` };
    return { outcomes, lastAt: { 0: 1_764_000_000_000 } };
  };

  it('a small window is heartbeated as it is', () => {
    const progress = window(50);
    expect(boundedProgress(progress)).toBe(progress);
  });

  it('5,700 answered items with long messages are heartbeated in < 512 KiB, keys and codes kept', () => {
    const progress = window(5_700);
    expect(jsonBytes(progress)).toBeGreaterThan(PAYLOAD_BUDGET_BYTES);
    const beat = boundedProgress(progress);
    expect(jsonBytes(beat)).toBeLessThanOrEqual(PAYLOAD_BUDGET_BYTES);
    expect(beat.lastAt).toEqual(progress.lastAt);
    const kept = Object.values(beat.outcomes);
    // What is left out is in doubt for a retried attempt; most of it stays.
    expect(kept.length).toBeGreaterThan(3_000);
    expect(beat.outcomes[1]).toMatchObject({ status: 'failed', code: 'validation', message: '' });
    expect(beat.outcomes[0]).toEqual(progress.outcomes[0]);
  });
});
