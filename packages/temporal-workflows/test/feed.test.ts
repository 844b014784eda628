// Feed reading without a server: chunks, local validation, and malformed CSV rows reported per row.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readChunk } from '../src/activities/feed.ts';

const header = 'sku,description,price_amount,price_currency,quantity';

function csv(lines: string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'sk-feed-')), 'feed.csv');
  writeFileSync(path, [header, ...lines].join('\n') + '\n');
  return path;
}

describe('CSV feeds', () => {
  it('reports a row with too many or too few fields as malformed and keeps every other row', async () => {
    const path = csv([
      'A-1,Blue tee,10.00,GBP,1',
      'A-2,Red tee,12.00',
      'A-3,Green tee,11.00,GBP,1,extra',
      'A-4,"Quoted, with comma",9.00,GBP,2',
    ]);
    const chunk = await readChunk({ path, format: 'csv' }, 0, 10, 'patch');
    expect(chunk.total).toBe(4);
    expect(chunk.items.map((i) => i.line)).toEqual([1, 4]);
    expect(chunk.invalid).toEqual([
      expect.objectContaining({ line: 2, status: 'invalid', code: 'malformed_row', field: '(row)' }),
      expect.objectContaining({ line: 3, status: 'invalid', code: 'malformed_row', field: '(row)' }),
    ]);
    expect(chunk.invalid[0]!.message).toMatch(/CSV line 3 has 3 fields, the header has 5/);
    expect(chunk.invalid[1]!.message).toMatch(/CSV line 4 has 6 fields, the header has 5/);
  });

  it('an unclosed quote makes the whole file unreadable (a visible failure, not silent loss)', async () => {
    const path = csv(['A-1,Blue tee,10.00,GBP,1', 'A-2,"Red tee,12.00,GBP,1', 'A-3,Green,1.00,GBP,1']);
    await expect(readChunk({ path, format: 'csv' }, 0, 10, 'patch')).rejects.toThrow(
      /cannot be read.*Quote Not Closed/i,
    );
  });
});
