// Feed files for the tests that read feeds without a server (feed.test.ts, snapshot.test.ts): CSV text
// of the five basic columns, a feed file in a directory of its own, and the failure a read ends with.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplicationFailure } from '@temporalio/common';

/** The header of a CSV feed of the five basic columns. */
export const BASIC_HEADER = 'sku,description,price_amount,price_currency,quantity';
/** CSV text: that header, then `lines`. */
export const basicCsv = (lines: string[]) => [BASIC_HEADER, ...lines].join('\n') + '\n';

/** A feed file `name` holding `content`, in a new directory of its own. */
export function feedFile(content: string | Buffer, name = 'feed.csv'): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sk-feed-'));
  const path = join(dir, name);
  writeFileSync(path, content);
  return { dir, path };
}

/** The rejection of `promise` (it must reject). */
export async function failure(promise: Promise<unknown>): Promise<ApplicationFailure> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: ApplicationFailure) => e,
  );
}
