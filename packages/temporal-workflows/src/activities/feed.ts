// Items of a job's feed, read from its snapshot (snapshot.ts) by offset or by line, and each checked with
// the client core's rules for its operation, so bad items go to the report and never to the API. The
// workflow holds items without their bodies; the activity that sends them reads the bodies again here.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { checkProductPatch, checkProductWrite, type RuleViolation } from '@selling-kit/api-client/core';
import type {
  BulkOperation,
  FeedFormat,
  FeedItem,
  FeedRef,
  FeedSnapshot,
  ItemRef,
  ItemResult,
  PreparedItem,
} from '../types.ts';
import { MALFORMED, openSnapshot, readSnapshotRecords, takeSnapshot } from './snapshot.ts';

export { rowToBody } from './csv-row.ts';

const KEYS = ['sku', 'product_id', 'slug'] as const;
/** Lines closer than this are read together by `readItems` (one read instead of two). */
const GAP = 32;

function refOf(body: Record<string, unknown>): ItemRef | null {
  if (typeof body.product_id === 'number' && Number.isFinite(body.product_id))
    return { productId: body.product_id };
  if (typeof body.slug === 'string' && body.slug) return { slug: body.slug };
  if (typeof body.sku === 'string' && body.sku) return { sku: body.sku };
  return null;
}

export function withoutKeys(body: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...body };
  for (const k of KEYS) delete rest[k];
  return rest;
}

const missing = (field: string, message: string): RuleViolation[] => [
  { field, rule: 'required', code: 'validation', message },
];

/** The item's key and request body for the operation, or the rules it breaks. */
export function prepare(
  operation: BulkOperation,
  raw: Record<string, unknown>,
): { ref: ItemRef; body: Record<string, unknown> } | RuleViolation[] {
  const sku = typeof raw.sku === 'string' && raw.sku ? raw.sku : null;
  switch (operation) {
    case 'create':
      if (!sku)
        return missing('sku', 'sku: every created item needs a SKU (it is how jobs verify and resume)');
      return violationsOr(checkProductWrite('create', raw), { sku }, raw);
    case 'upsert': {
      if (!sku) return missing('sku', 'sku: an upsert is a PUT by SKU');
      const body = { attributes: {}, ...withoutKeys(raw) };
      return violationsOr(checkProductWrite('put', body), { sku }, body);
    }
    case 'update': {
      const ref = refOf(raw);
      if (!ref) return missing('sku', 'a full update needs product_id, slug or sku');
      const body = { attributes: {}, ...withoutKeys(raw) };
      return violationsOr(checkProductWrite('put', body), ref, body);
    }
    case 'patch': {
      const ref = refOf(raw);
      if (!ref) return missing('sku', 'a patch needs product_id, slug or sku');
      const body = withoutKeys(raw);
      return violationsOr(checkProductPatch(body), ref, body);
    }
    case 'delete':
    case 'mark_as_sold': {
      const ref = refOf(raw);
      if (!ref) return missing('sku', `${operation} needs product_id, slug or sku`);
      return { ref, body: operation === 'delete' ? withoutKeys(raw) : {} };
    }
  }
}

function violationsOr(violations: RuleViolation[], ref: ItemRef, body: Record<string, unknown>) {
  return violations.length > 0 ? violations : { ref, body };
}

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
  const sku = typeof record?.sku === 'string' && record.sku ? record.sku : null;
  const prepared: ReturnType<typeof prepare> | (Omit<RuleViolation, 'code'> & { code: string })[] = !record
    ? missing('(item)', 'each feed item must be an object')
    : typeof record[MALFORMED] === 'string'
      ? [{ field: '(row)', rule: malformedRule(format), code: 'malformed_row', message: record[MALFORMED] }]
      : prepare(operation, record);
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
  s: FeedSnapshot,
  offset: number,
  size: number,
  operation: BulkOperation,
): Promise<{ items: FeedItem[]; invalid: ItemResult[]; nextOffset: number; done: boolean; total: number }> {
  const records = await readSnapshotRecords(s, offset, offset + size);
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
  const reader = await openSnapshot(s);
  try {
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
  } finally {
    await reader.close();
  }
  return lines.map((line) => found.get(line)!);
}

/**
 * Reads a whole feed once with the worker's reader and rules, in a snapshot taken in a temporary
 * directory and removed after: what the CLI checks before it starts a job.
 */
export async function checkFeed(
  feed: FeedRef,
  operation: BulkOperation,
): Promise<{ total: number; valid: number; invalid: ItemResult[] }> {
  const tmp = await mkdtemp(join(tmpdir(), 'selling-kit-feed-'));
  try {
    const s = await takeSnapshot(feed, join(tmp, 'snapshot'));
    let valid = 0;
    const invalid: ItemResult[] = [];
    for (let offset = 0; offset < s.total; offset += 1000) {
      const chunk = await readChunk(s, offset, 1000, operation);
      valid += chunk.items.length;
      invalid.push(...chunk.invalid);
    }
    return { total: s.total, valid, invalid };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
