// The chaos harness's verdict for one shop: its feed, the listings the simulator holds and the job's
// report, compared item by item (by SKU: every item of a chaos feed has its own). Pure: no I/O.
import type { ItemResult } from '../src/types.ts';

export interface FeedLine {
  line: number;
  sku: string;
  /** Refused by the API on every try: must be reported `failed`, never listed. */
  poison?: boolean;
}

export interface Listing {
  sku: string | null;
  productId: number;
}

export interface ShopAudit {
  items: number;
  listings: number;
  /** Listings of SKUs not in the feed, plus every listing beyond the first of one SKU. */
  duplicates: number;
  /**
   * Reported ok but not listed (or under another product id); reported failed / unknown / cancelled /
   * invalid but listed; or report lines that contradict each other.
   */
  misreported: number;
  /** Feed items neither listed nor in the report: gone without a trace. */
  lost: number;
  /** Feed items listed in the shop but with no report line: the report is short of what happened. */
  missingLines: number;
  /** Report lines by final status (the last line of an item, as the report is read). */
  byStatus: Record<string, number>;
  /** Items with more than one report line (same status: harmless repeats). */
  repeatedLines: number;
  /** A few examples of each problem, for the printout. */
  examples: string[];
}

const MAX_EXAMPLES = 5;

export function auditShop(feed: FeedLine[], listings: Listing[], report: ItemResult[]): ShopAudit {
  const inFeed = new Set(feed.map((f) => f.sku));
  const listed = new Map<string, number[]>();
  let duplicates = 0;
  const examples: string[] = [];
  const example = (s: string) => {
    if (examples.length < MAX_EXAMPLES * 5) examples.push(s);
  };
  for (const l of listings) {
    if (l.sku === null || !inFeed.has(l.sku)) {
      duplicates++;
      example(`duplicate: listing ${l.productId} has SKU ${l.sku ?? '(none)'}, not in the feed`);
      continue;
    }
    const ids = listed.get(l.sku) ?? [];
    ids.push(l.productId);
    listed.set(l.sku, ids);
    if (ids.length > 1) {
      duplicates++;
      example(`duplicate: SKU ${l.sku} listed ${ids.length} times (${ids.join(', ')})`);
    }
  }

  const lines = new Map<string, ItemResult[]>();
  for (const r of report) {
    if (r.sku === null) continue;
    const rs = lines.get(r.sku) ?? [];
    rs.push(r);
    lines.set(r.sku, rs);
  }
  const byStatus: Record<string, number> = {};
  let misreported = 0;
  let lost = 0;
  let missingLines = 0;
  let repeatedLines = 0;
  for (const f of feed) {
    const rs = lines.get(f.sku);
    const ids = listed.get(f.sku) ?? [];
    if (!rs?.length) {
      if (ids.length) {
        missingLines++;
        example(`missing line: line ${f.line} (${f.sku}) is listed as ${ids.join(', ')}, not in the report`);
      } else {
        lost++;
        example(`lost: line ${f.line} (${f.sku}) has no report line and is not listed`);
      }
      continue;
    }
    const statuses = new Set(rs.map((r) => r.status));
    const last = rs.at(-1)!;
    byStatus[last.status] = (byStatus[last.status] ?? 0) + 1;
    if (rs.length > 1) repeatedLines++;
    if (statuses.size > 1) {
      misreported++;
      example(`misreported: ${f.sku} reported ${[...statuses].join(' and ')}`);
    } else if (last.status === 'ok') {
      if (ids.length === 0) {
        misreported++;
        example(`misreported: ${f.sku} reported ok, not listed`);
      } else if (last.productId !== undefined && !ids.includes(last.productId)) {
        misreported++;
        example(`misreported: ${f.sku} reported ok as ${last.productId}, listed as ${ids.join(', ')}`);
      }
    } else if (ids.length > 0) {
      misreported++;
      example(
        `misreported: ${f.sku} reported ${last.status}${last.code ? ` (${last.code})` : ''}, but listed as ${ids.join(', ')}`,
      );
    }
  }
  const onlyFirst = (kind: string) => examples.filter((e) => e.startsWith(kind)).slice(0, MAX_EXAMPLES);
  return {
    items: feed.length,
    listings: listings.length,
    duplicates,
    misreported,
    lost,
    missingLines,
    byStatus,
    repeatedLines,
    examples: [
      ...onlyFirst('lost'),
      ...onlyFirst('missing line'),
      ...onlyFirst('misreported'),
      ...onlyFirst('duplicate'),
    ],
  };
}

/** The failures of the four figures that must be zero, each line prefixed with `at`, with examples. */
export function auditFailures(at: string, a: ShopAudit, failures: string[]): void {
  if (a.duplicates) failures.push(`${at} ${a.duplicates} duplicate listing(s)`);
  if (a.misreported) failures.push(`${at} ${a.misreported} item(s) misreported`);
  if (a.lost) failures.push(`${at} ${a.lost} item(s) lost (not listed, no report line)`);
  if (a.missingLines) failures.push(`${at} ${a.missingLines} listed item(s) missing from the report`);
  for (const e of a.examples) failures.push(`${at}   e.g. ${e}`);
}
