// Feeds: a CSV, JSON array or NDJSON file (path or http(s) URL), read a chunk at a time by offset, and
// each item checked with the client core's rules for its operation, so bad items go to the report and
// never to the API. A parsed feed is cached in the worker (by path, size and mtime; URLs for 5 minutes)
// so chunk after chunk does not parse the file again.
import { readFile, stat } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { ApplicationFailure } from '@temporalio/common';
import { checkProductPatch, checkProductWrite, type RuleViolation } from '@selling-kit/api-client/core';
import type { BulkOperation, FeedChunk, FeedItem, FeedRef, ItemRef, ItemResult } from '../types.ts';

const NUMERIC = new Set(['quantity', 'size_set_id', 'size_id', 'brand_id', 'product_id']);
const LISTS = new Set(['colour', 'style', 'age', 'source']);
const BOOLEAN = new Set(['is_boosted', 'fail_if_active_offers']);
const KEYS = ['sku', 'product_id', 'slug'] as const;

/**
 * CSV columns are the wire field names, with three conveniences: `pictures` holds URLs separated by
 * `|`, `country_code` fills `address.country_code`, and `colour`/`style`/`age`/`source` are `|` lists.
 */
export function rowToBody(row: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(row)) {
    const value = raw.trim();
    if (value === '') continue;
    if (key === 'pictures') body.pictures = value.split('|').map((url) => ({ url: url.trim() }));
    else if (key === 'country_code') body.address = { country_code: value };
    else if (LISTS.has(key)) body[key] = value.split('|').map((v) => v.trim());
    else if (NUMERIC.has(key)) body[key] = Number(value);
    else if (BOOLEAN.has(key)) body[key] = value === 'true';
    else body[key] = value;
  }
  return body;
}

const CACHE_LIMIT = 4;
const URL_TTL_MS = 5 * 60_000;
const cache = new Map<string, { records: Record<string, unknown>[]; until: number }>();

/** Marks a CSV row that could not be read as an item (its message says why). */
const MALFORMED = '__malformed_row';

const isUrl = (path: string) => /^https?:\/\//i.test(path);

function parseFeed(text: string, format: FeedRef['format']): Record<string, unknown>[] {
  if (format === 'json') {
    const data = JSON.parse(text) as unknown;
    if (!Array.isArray(data)) throw new Error('a JSON feed must be an array of items');
    return data as Record<string, unknown>[];
  }
  if (format === 'ndjson') {
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  // Rows whose field count differs from the header are kept (with `info`) and reported as malformed
  // items, so one bad row costs that row only; an unclosed quote makes the file unreadable instead.
  const rows = parse(text, {
    columns: true,
    skip_empty_lines: true,
    relax_column_count: true,
    info: true,
  }) as {
    record: Record<string, string>;
    info: { lines: number; columns: unknown[]; error?: { record?: unknown[] } };
  }[];
  return rows.map(({ record, info }) =>
    info.error
      ? {
          [MALFORMED]: `CSV line ${info.lines} has ${info.error.record?.length ?? '?'} fields, the header has ${info.columns.length}`,
        }
      : rowToBody(record),
  );
}

/** The whole feed, parsed (cached). A feed that cannot be read or parsed fails the job, visibly. */
async function records(feed: FeedRef): Promise<Record<string, unknown>[]> {
  let key: string;
  let load: () => Promise<string>;
  let until = Number.POSITIVE_INFINITY;
  try {
    if (isUrl(feed.path)) {
      key = `${feed.format}|${feed.path}`;
      until = Date.now() + URL_TTL_MS;
      load = async () => {
        const res = await fetch(feed.path);
        if (!res.ok) throw new Error(`GET ${feed.path} answered ${res.status}`);
        return res.text();
      };
    } else {
      const st = await stat(feed.path);
      key = `${feed.format}|${feed.path}|${st.size}|${st.mtimeMs}`;
      load = () => readFile(feed.path, 'utf8');
    }
  } catch (error) {
    throw unreadable(feed, error);
  }
  const hit = cache.get(key);
  if (hit && hit.until > Date.now()) return hit.records;
  let parsed: Record<string, unknown>[];
  try {
    parsed = parseFeed(await load(), feed.format);
  } catch (error) {
    // A URL may answer again later (the activity retries); a file that does not parse will not.
    if (isUrl(feed.path) && !(error instanceof SyntaxError)) throw error;
    throw unreadable(feed, error);
  }
  cache.delete(key);
  cache.set(key, { records: parsed, until });
  while (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return parsed;
}

function unreadable(feed: FeedRef, error: unknown) {
  return ApplicationFailure.nonRetryable(
    `the ${feed.format} feed ${feed.path} cannot be read: ${(error as Error).message}`,
    'FeedUnreadable',
  );
}

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

/** Items [offset, offset + size) of the feed, split into items to send and invalid ones (with the rule). */
export async function readChunk(
  feed: FeedRef,
  offset: number,
  size: number,
  operation: BulkOperation,
): Promise<FeedChunk> {
  const all = await records(feed);
  const slice = all.slice(offset, offset + size);
  const items: FeedItem[] = [];
  const invalid: ItemResult[] = [];
  slice.forEach((raw, i) => {
    const line = offset + i + 1;
    const sku = typeof raw?.sku === 'string' && raw.sku ? raw.sku : null;
    const prepared =
      raw && typeof raw === 'object'
        ? typeof raw[MALFORMED] === 'string'
          ? [{ field: '(row)', rule: 'csv_columns', code: 'malformed_row', message: raw[MALFORMED] }]
          : prepare(operation, raw)
        : missing('(item)', 'each feed item must be an object');
    if (Array.isArray(prepared)) {
      const first = prepared[0]!;
      invalid.push({
        line,
        sku,
        status: 'invalid',
        code: first.code,
        message: first.message,
        field: first.field,
        rule: first.rule,
      });
    } else items.push({ line, sku, ...prepared });
  });
  return {
    items,
    invalid,
    nextOffset: offset + slice.length,
    done: offset + slice.length >= all.length,
    total: all.length,
  };
}
