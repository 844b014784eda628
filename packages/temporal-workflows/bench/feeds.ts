// Feed files for the benches: CSV feeds of valid listings (harness.ts's HEADER and row), alone or one per
// shop of a many-shop job.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HEADER, row } from './harness.ts';

/** A CSV feed at `path` of `items` listings, SKUs `<prefix>0…`; returns the path. */
export function writeFeedFile(path: string, prefix: string, items: number): string {
  writeFileSync(path, [HEADER, ...Array.from({ length: items }, (_, i) => row(`${prefix}${i}`))].join('\n'));
  return path;
}

/**
 * A many-shop job's shops: seller i lists `items` listings `MANY-<i>-…` from `<dir>/many-<i>.csv`, with
 * the credential `bench-many-<i>`.
 */
export const manyShopFeeds = (dir: string, sellers: { id: number }[], items: number) =>
  sellers.map((s, i) => ({
    // Shop ids are unique per marketplace; simulators that number sellers alike never share one job.
    shopId: `many-${s.id}`,
    credentialRef: `bench-many-${i}`,
    feed: { path: writeFeedFile(join(dir, `many-${i}.csv`), `MANY-${i}-`, items), format: 'csv' as const },
  }));
