// Items of a job's feed, read from its snapshot (snapshot.ts) in the job store by offset or by line, and
// each checked with the client core's rules for its operation (its `prepare`, bulk-operations.ts), so bad
// items go to the report and never to the API. The workflow holds items without their bodies; the
// activity that sends them reads the bodies again here. The store passed in is the one holding the
// snapshot: activities check that first (`storeOf`, job-data.ts).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { RuleViolation } from '@selling-kit/api-client/core';
import type {
  BulkOperation,
  FeedFormat,
  FeedItem,
  FeedRef,
  FeedSnapshot,
  ItemResult,
  PreparedItem,
} from '../types.ts';
import type { JobStore } from '../stores/job-store.ts';
import { createLocalJobStore } from '../stores/job-store-local.ts';
import { MALFORMED, openSnapshot, readSnapshotRecords, takeSnapshot } from './snapshot.ts';
import { feedPolicy, type FeedPolicy } from './feed-policy.ts';
import { BULK_OPERATION_SPECS, missing, skuOf, type ItemRequest } from './bulk-operations.ts';

export { rowToBody } from './csv-row.ts';

/** Lines closer than this are read together by `readItems` (one read instead of two). */
const GAP = 32;

/** The rule a malformed record broke: a CSV row's field count, an NDJSON line's syntax. */
const malformedRule = (format: FeedFormat) => (format === 'csv' ? 'csv_columns' : 'json_syntax');

/** A record of the snapshot as an item to send, or the rule it breaks (as a report line). */
function check(
  format: FeedFormat,
  operation: BulkOperation,
  raw: unknown,
  line: number,
): PreparedItem | ItemResult {
  const record =
    raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
  const sku = record ? skuOf(record) : null;
  const prepared: ItemRequest | (Omit<RuleViolation, 'code'> & { code: string })[] = !record
    ? missing('(item)', 'each feed item must be an object')
    : typeof record[MALFORMED] === 'string'
      ? [{ field: '(row)', rule: malformedRule(format), code: 'malformed_row', message: record[MALFORMED] }]
      : BULK_OPERATION_SPECS[operation].prepare(record);
  if (!Array.isArray(prepared)) return { line, sku, ...prepared };
  const first = prepared[0]!;
  return {
    line,
    sku,
    status: 'invalid',
    code: first.code,
    message: first.message,
    field: first.field,
    rule: first.rule,
  };
}

const isInvalid = (r: PreparedItem | ItemResult): r is ItemResult => 'status' in r;

/** Items [offset, offset + size) of the snapshot, without bodies, and the invalid ones (with the rule). */
export async function readChunk(
  store: JobStore,
  s: FeedSnapshot,
  offset: number,
  size: number,
  operation: BulkOperation,
): Promise<{ items: FeedItem[]; invalid: ItemResult[]; nextOffset: number; done: boolean; total: number }> {
  const records = await readSnapshotRecords(store, s, offset, offset + size);
  const items: FeedItem[] = [];
  const invalid: ItemResult[] = [];
  records.forEach((raw, i) => {
    const r = check(s.format, operation, raw, offset + i + 1);
    if (isInvalid(r)) invalid.push(r);
    else
      items.push(
        'sku' in r.ref && r.ref.sku === r.sku
          ? { line: r.line, sku: r.sku }
          : { line: r.line, sku: r.sku, ref: r.ref },
      );
  });
  const nextOffset = offset + records.length;
  return { items, invalid, nextOffset, done: nextOffset >= s.total, total: s.total };
}

/**
 * The items at the given (1-based) lines with their request bodies, in the order asked; nearby lines are
 * read together. A line that is not a valid item fails the read: the snapshot cannot change, so the
 * caller asked for a line `readChunk` never handed out.
 */
export async function readItems(
  store: JobStore,
  s: FeedSnapshot,
  lines: number[],
  operation: BulkOperation,
): Promise<PreparedItem[]> {
  const notAnItem = (line: number, why = '') =>
    ApplicationFailure.nonRetryable(
      `line ${line} of the feed ${s.source} is not an item to send${why}`,
      'FeedUnreadable',
    );
  const wanted = [...new Set(lines)].sort((a, b) => a - b);
  const outside = wanted.find((line) => !Number.isInteger(line) || line < 1 || line > s.total);
  if (outside !== undefined) throw notAnItem(outside, ` (the feed has ${s.total} items)`);
  const found = new Map<number, PreparedItem>();
  const reader = await openSnapshot(store, s);
  for (let i = 0; i < wanted.length;) {
    let j = i;
    while (j + 1 < wanted.length && wanted[j + 1]! - wanted[j]! <= GAP) j++;
    const first = wanted[i]!;
    const records = await reader.read(first - 1, wanted[j]!);
    for (const line of wanted.slice(i, j + 1)) {
      const r = check(s.format, operation, records[line - first], line);
      if (isInvalid(r)) throw notAnItem(line, `: ${r.message}`);
      found.set(line, r);
    }
    i = j + 1;
  }
  return lines.map((line) => found.get(line)!);
}

/**
 * Reads a whole feed once with the worker's reader and rules, in a snapshot taken into a throw-away local
 * store (a temporary directory, removed after): what the CLI checks before it starts a job. The CLI reads
 * the user's own file as the user, so the default policy's one root is the file's folder (and the
 * default limits apply); the worker applies its own policy again when the job reads the feed.
 */
export async function checkFeed(
  feed: FeedRef,
  operation: BulkOperation,
  policy: FeedPolicy = feedPolicy({ roots: [dirname(feed.path)] }),
): Promise<{ total: number; valid: number; invalid: ItemResult[] }> {
  const tmp = await mkdtemp(join(tmpdir(), 'selling-kit-feed-'));
  const store = createLocalJobStore(tmp);
  try {
    const id = randomUUID();
    const job = { workflowId: `check:${id}`, firstRunId: id, jobId: 'check' };
    const s = await takeSnapshot(feed, store, job, { policy });
    let valid = 0;
    const invalid: ItemResult[] = [];
    for (let offset = 0; offset < s.total; offset += 1000) {
      const chunk = await readChunk(store, s, offset, 1000, operation);
      valid += chunk.items.length;
      invalid.push(...chunk.invalid);
    }
    return { total: s.total, valid, invalid };
  } finally {
    await store.close();
    await rm(tmp, { recursive: true, force: true });
  }
}
