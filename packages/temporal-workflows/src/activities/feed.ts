// Reading a feed chunk by offset (CSV, JSON array or NDJSON) and checking each item with the client
// core's rules, so bad items go to the report and never to the API.
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { checkProductWrite } from '@selling-kit/api-client/core';
import type { FeedChunk, FeedItem, FeedRef, ItemResult } from '../types.ts';

const NUMERIC = new Set(['quantity', 'size_set_id', 'size_id', 'brand_id']);
const LISTS = new Set(['colour', 'style', 'age', 'source']);

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
    else if (key === 'is_boosted') body[key] = value === 'true';
    else body[key] = value;
  }
  return body;
}

async function readAll(feed: FeedRef): Promise<Record<string, unknown>[]> {
  const text = await readFile(feed.path, 'utf8');
  if (feed.format === 'json') return JSON.parse(text) as Record<string, unknown>[];
  if (feed.format === 'ndjson') {
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  return (
    parse(text, { columns: true, skip_empty_lines: true, relax_column_count: true }) as Record<
      string,
      string
    >[]
  ).map(rowToBody);
}

/**
 * Items [offset, offset + size) of the feed, split into valid items and invalid ones (with the rule
 * they break). SPEC GAP-free but simple: the file is re-read per chunk, fine for feeds of thousands.
 */
export async function readChunk(
  feed: FeedRef,
  offset: number,
  size: number,
  operation: 'create' | 'upsert',
): Promise<FeedChunk> {
  const all = await readAll(feed);
  const slice = all.slice(offset, offset + size);
  const items: FeedItem[] = [];
  const invalid: ItemResult[] = [];
  slice.forEach((body, i) => {
    const line = offset + i + 1;
    const sku = typeof body.sku === 'string' ? body.sku : null;
    const { sku: _sku, ...putBody } = body;
    const violations =
      sku === null
        ? [
            {
              field: 'sku',
              rule: 'required',
              code: 'validation',
              message: 'sku: every feed item needs a SKU (it is how jobs verify and resume)',
            },
          ]
        : operation === 'create'
          ? checkProductWrite('create', body)
          : checkProductWrite('put', { attributes: {}, ...putBody });
    const first = violations[0];
    if (first)
      invalid.push({
        line,
        sku,
        status: 'invalid',
        code: first.code,
        message: first.message,
        field: first.field,
        rule: first.rule,
      });
    else items.push({ line, sku: sku!, body });
  });
  return {
    items,
    invalid,
    nextOffset: offset + slice.length,
    done: offset + slice.length >= all.length,
    total: all.length,
  };
}
