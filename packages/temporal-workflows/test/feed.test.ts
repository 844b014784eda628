// Feed reading without a server: a snapshot of the feed in a local job store, chunks of items without
// bodies, bodies read back by line, local validation, and bad input (spreadsheet exports, broken lines,
// wrong types, binary files, JSON arrays of every shape) reported per line or refused with a clear,
// printable message; a JSON array read item by item as its bytes arrive.
import { readFileSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readChunk as readChunkFrom, readItems as readItemsFrom } from '../src/activities/feed.ts';
import { jsonArrayItems } from '../src/activities/json-array.ts';
import { readSnapshotRecords, takeSnapshot } from '../src/activities/snapshot.ts';
import { jobFolderName } from '../src/stores/job-store-local.ts';
import type { BulkOperation, FeedFormat, FeedSnapshot } from '../src/types.ts';
import { basicCsv, failure, feedFile, newJob, tempStore, testFeed } from './feed-files.ts';

const EXAMPLE = new URL('../../cli/examples/listings.csv', import.meta.url);

/** One store for the file's snapshots (each its own job). */
const store = tempStore();
const readChunk = (s: FeedSnapshot, offset: number, size: number, operation: BulkOperation) =>
  readChunkFrom(store, s, offset, size, operation);
const readItems = (s: FeedSnapshot, lines: number[], operation: BulkOperation) =>
  readItemsFrom(store, s, lines, operation);
const records = (s: FeedSnapshot, from: number, to: number) => readSnapshotRecords(store, s, from, to);

/** A feed file with `content`, snapshotted for a job of its own. */
async function snapshot(content: string | Buffer, format: FeedFormat, name = `feed.${format}`) {
  const { path } = feedFile(content, name);
  return takeSnapshot({ path, format }, store, newJob(), testFeed);
}

const csv = (lines: string[]) => snapshot(basicCsv(lines), 'csv');

describe('CSV feeds', () => {
  it('reports a row with too many or too few fields as malformed and keeps every other row', async () => {
    const s = await csv([
      'A-1,Blue tee,10.00,GBP,1',
      'A-2,Red tee,12.00',
      'A-3,Green tee,11.00,GBP,1,extra',
      'A-4,"Quoted, with comma",9.00,GBP,2',
    ]);
    const chunk = await readChunk(s, 0, 10, 'patch');
    expect(chunk.total).toBe(4);
    expect(chunk.items).toEqual([
      { line: 1, sku: 'A-1' },
      { line: 4, sku: 'A-4' },
    ]);
    expect(chunk.invalid).toEqual([
      expect.objectContaining({ line: 2, status: 'invalid', code: 'malformed_row', field: '(row)' }),
      expect.objectContaining({ line: 3, status: 'invalid', code: 'malformed_row', field: '(row)' }),
    ]);
    expect(chunk.invalid[0]!.message).toMatch(/CSV line 3 has 3 fields, the header has 5/);
    expect(chunk.invalid[1]!.message).toMatch(/CSV line 4 has 6 fields, the header has 5/);
  });

  it('an unclosed quote makes the whole file unreadable (a visible failure, not silent loss)', async () => {
    const e = await failure(
      csv(['A-1,Blue tee,10.00,GBP,1', 'A-2,"Red tee,12.00,GBP,1', 'A-3,Green,1.00,GBP,1']),
    );
    expect(e.type).toBe('FeedUnreadable');
    expect(e.nonRetryable).toBe(true);
    expect(e.message).toMatch(/cannot be read.*Quote Not Closed/i);
  });

  it('a spreadsheet export (UTF-8 BOM, CRLF line ends) reads exactly like the plain file', async () => {
    const plain = readFileSync(EXAMPLE, 'utf8');
    const excel = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(plain.replace(/\r?\n/g, '\r\n')),
    ]);
    const [a, b] = [await snapshot(plain, 'csv'), await snapshot(excel, 'csv', 'export.csv')];
    const [fromPlain, fromExcel] = [
      await readChunk(a, 0, 1000, 'create'),
      await readChunk(b, 0, 1000, 'create'),
    ];
    // The example feed holds a few deliberately broken rows (a zero quantity, a missing SKU…).
    expect(fromExcel.total).toBe(300);
    expect(fromExcel.items.length).toBeGreaterThan(250);
    expect(fromExcel.items.length + fromExcel.invalid.length).toBe(300);
    expect(fromExcel.invalid).toEqual(fromPlain.invalid);
    expect(fromExcel.items[0]).toEqual({ line: 1, sku: 'SK-DEMO-0001' });
    expect(fromExcel.items).toEqual(fromPlain.items);
    const lines = fromExcel.items.map((i) => i.line);
    expect(await readItems(b, lines, 'create')).toEqual(await readItems(a, lines, 'create'));
  });
});

describe('NDJSON and JSON feeds', () => {
  it('a broken NDJSON line is one malformed item naming its line in the file; the rest is sent', async () => {
    const s = await snapshot(
      [
        '{"sku":"N-1","price_amount":"10.00"}',
        '{"sku":"N-2","price_amount":"11.00"}',
        '',
        '{"sku":"N-3","price_amount":"12.00"}',
        '{"sku":"N-4","price_amount": 13.00,}',
        '{"sku":"N-5","price_amount":"14.00"}',
      ].join('\r\n'),
      'ndjson',
    );
    const chunk = await readChunk(s, 0, 10, 'patch');
    expect(chunk.total).toBe(5);
    expect(chunk.items.map((i) => i.sku)).toEqual(['N-1', 'N-2', 'N-3', 'N-5']);
    expect(chunk.invalid).toEqual([
      expect.objectContaining({
        line: 4,
        status: 'invalid',
        code: 'malformed_row',
        field: '(row)',
        rule: 'json_syntax',
      }),
    ]);
    expect(chunk.invalid[0]!.message).toMatch(/^NDJSON line 5 is not valid JSON: /);
    expect(chunk.invalid[0]!.message).not.toMatch(/line 1/);
  });

  it('a JSON array that does not parse refuses the whole file, clearly', async () => {
    const e = await failure(snapshot('[{"sku":"J-1"}, {"sku": "J-2",]', 'json'));
    expect(e.type).toBe('FeedUnreadable');
    expect(e.nonRetryable).toBe(true);
    expect(e.message).toMatch(/the json feed .*feed\.json cannot be read: not valid JSON: /);
    const notArray = await failure(snapshot('{"sku":"J-1"}', 'json'));
    expect(notArray.message).toMatch(/a JSON feed must be an array of items/);
  });

  it('a JSON array with brackets, braces, commas and escapes inside strings reads item by item like JSON.parse', async () => {
    const text = [
      '\uFEFF [',
      '  {"sku":"J-1","description":"a [bracket], a {brace}, a comma","tags":["x","y]"],',
      '   "nested":{"a":[1,{"b":"}"}],"c":[[],{}]}},',
      String.raw`  {"sku":"J-2","description":"quote \" and backslash \\","e":"\\","f":"\\\"]"},`,
      String.raw`  {"sku":"J-3","description":"é 😀 \u00e9 \ud83d\ude00 \n\t\/"},`,
      '  "not an object", 42, null, [1, {"sku": "J-9"}],',
      '  {"sku":"J-4","description":""}',
      ']  \n',
    ].join('\r\n');
    const expected = JSON.parse(text.replace(/^\uFEFF/, '')) as unknown[];
    expect(expected).toHaveLength(8);
    const s = await snapshot(text, 'json');
    expect(s.total).toBe(8);
    expect(await records(s, 0, 8)).toEqual(expected);
    expect(await records(s, 1, 2)).toEqual([
      { sku: 'J-2', description: 'quote " and backslash \\', e: '\\', f: '\\"]' },
    ]);

    // Read one byte at a time (every boundary inside strings, escapes and multi-byte characters).
    const bytes = Buffer.from(text);
    const oneByOne = async function* () {
      for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
    };
    const items: unknown[] = [];
    for await (const item of jsonArrayItems(oneByOne(), (r) => new Error(r))) items.push(item);
    expect(items).toEqual(expected);

    // Items that are not objects are malformed items of their own; the others are read on.
    const chunk = await readChunk(s, 0, 10, 'patch');
    expect(chunk.items.map((i) => i.sku)).toEqual(['J-1', 'J-2', 'J-3', 'J-4']);
    expect(chunk.invalid.map((r) => [r.line, r.message])).toEqual(
      [4, 5, 6, 7].map((line) => [line, 'each feed item must be an object']),
    );
    expect((await snapshot(' [ ] ', 'json')).total).toBe(0);
  });

  it('a JSON array is read as its bytes arrive: memory holds one item, never the whole array', async () => {
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    let sentTheEnd = false;
    async function* slowFeed() {
      yield Buffer.from('[{"sku":"S-1","description":"first, [not] the end"}, {"sku"');
      yield Buffer.from(':"S-2"}, ');
      await held; // the rest of the array has not arrived yet
      sentTheEnd = true;
      yield Buffer.from('{"sku":"S-3"}]');
    }
    const items = jsonArrayItems(slowFeed(), (r) => new Error(r));
    expect((await items.next()).value).toEqual({ sku: 'S-1', description: 'first, [not] the end' });
    expect((await items.next()).value).toEqual({ sku: 'S-2' });
    expect(sentTheEnd).toBe(false);
    release();
    expect((await items.next()).value).toEqual({ sku: 'S-3' });
    expect((await items.next()).done).toBe(true);
  });

  it.each([
    ['', /not valid JSON: the file holds no JSON array \(it is blank\)/],
    ['[{"sku":"A"},]', /not valid JSON: an empty item at byte 13 \(a comma too many\?\)/],
    ['[,{"sku":"A"}]', /not valid JSON: an empty item at byte 1/],
    ['[{"sku":"A"} {"sku":"B"}]', /not valid JSON: item 1 \(from byte 1\): /],
    ['[{"sku":"A"}]{"sku":"B"}', /not valid JSON: text after the array's closing "\]" \(at byte 13\)/],
    ['[{"sku":"A"}, {"sku":"B", "d": "cut', /not valid JSON: the file ends inside the array/],
    ['[{"sku":["A"}]]', /not valid JSON: item 1 \(from byte 1\): /],
    ['[{"sku":"A"}}]', /not valid JSON: an unexpected "}" at byte 12/],
    ['["a\\xb"]', /not valid JSON: item 1 \(from byte 1\): Bad escaped character/],
    ['"just a string"', /a JSON feed must be an array of items \(it starts with ""just a string""\)/],
  ])('refuses %j as a whole file, saying where', async (text, reason) => {
    const e = await failure(snapshot(text, 'json'));
    expect(e.type).toBe('FeedUnreadable');
    expect(e.nonRetryable).toBe(true);
    expect(e.message).toMatch(/^the json feed .*feed\.json cannot be read: /);
    expect(e.message).toMatch(reason);
  });

  it('a value of the wrong type names the expected and the received type', async () => {
    const example = await snapshot(readFileSync(EXAMPLE), 'csv');
    const [item] = (await records(example, 0, 1)) as Record<string, unknown>[];
    const s = await snapshot(JSON.stringify([item, { ...item, sku: 'T-2', description: 12 }]), 'json');
    const chunk = await readChunk(s, 0, 10, 'create');
    expect(chunk.items.map((i) => i.line)).toEqual([1]);
    expect(chunk.invalid).toEqual([
      expect.objectContaining({
        line: 2,
        sku: 'T-2',
        field: 'description',
        rule: 'must be string',
        message: 'description: expected a string, received a number',
      }),
    ]);
  });

  it('a binary file is refused with a short printable excerpt, never raw bytes', async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
      Buffer.from('IHDR'),
      randomBytes(2000),
    ]);
    for (const [bytes, format] of [
      [png, 'csv'],
      [randomBytes(5000), 'json'],
      [randomBytes(100), 'ndjson'],
    ] as const) {
      const e = await failure(snapshot(bytes, format, `photo.${format}`));
      expect(e.type).toBe('FeedUnreadable');
      // eslint-disable-next-line no-control-regex
      expect(e.message).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffd]/);
      const excerpt = /it starts with "(.*)"\)/.exec(e.message)?.[1];
      expect(excerpt).toBeDefined();
      expect(excerpt!.length).toBeLessThanOrEqual(41);
      if (format === 'csv') expect(excerpt).toMatch(/^\\x89PNG\\x0D\\x0A\\x1A\\x0A\\x00/);
    }
  });
});

describe('reading a snapshot', () => {
  let s: FeedSnapshot;
  const N = 20_000;
  const row = (i: number) => `S-${i},Item ${i},${(i % 90) + 10}.00,GBP,${i % 7}`;
  const record = (i: number) => ({
    sku: `S-${i}`,
    description: `Item ${i}`,
    price_amount: `${(i % 90) + 10}.00`,
    price_currency: 'GBP',
    quantity: i % 7,
  });

  beforeAll(async () => {
    s = await csv(Array.from({ length: N }, (_, i) => row(i + 1)));
  });

  it('indexes every record: any range is one positioned read of exactly its records', async () => {
    expect(s.total).toBe(N);
    const dir = join(store.dir, 'jobs', jobFolderName(s.job), 'snapshot');
    expect(statSync(join(dir, 'index.bin')).size).toBe((N + 1) * 8);
    const index = readFileSync(join(dir, 'index.bin'));
    expect(index.readDoubleLE(N * 8)).toBe(statSync(join(dir, 'records.ndjson')).size);
    expect(await records(s, N - 3, N + 50)).toEqual([N - 2, N - 1, N].map(record));
  });

  it('reads chunk after chunk to the end, each item once', async () => {
    const seen: number[] = [];
    for (let offset = 0, done = false; !done;) {
      const chunk = await readChunk(s, offset, 3000, 'patch');
      expect(chunk.invalid).toEqual([]);
      seen.push(...chunk.items.map((i) => i.line));
      ({ nextOffset: offset, done } = chunk);
    }
    expect(seen).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    const last = await readChunk(s, N - 200, 200, 'patch');
    expect(last).toMatchObject({ nextOffset: N, done: true, total: N });
    expect(last.items.at(-1)).toEqual({ line: N, sku: `S-${N}` });
  });

  it('reads bodies by line, in the order asked, and refuses a line that is not an item', async () => {
    const items = await readItems(s, [19_999, 2, 1, 5000], 'patch');
    expect(items.map((i) => [i.line, i.sku])).toEqual([
      [19_999, 'S-19999'],
      [2, 'S-2'],
      [1, 'S-1'],
      [5000, 'S-5000'],
    ]);
    expect(items[1]).toEqual({
      line: 2,
      sku: 'S-2',
      ref: { sku: 'S-2' },
      body: { description: 'Item 2', price_amount: '12.00', price_currency: 'GBP', quantity: 2 },
    });
    const e = await failure(readItems(s, [1, N + 1], 'patch'));
    expect(e.type).toBe('FeedUnreadable');
    expect(e.message).toMatch(new RegExp(`line ${N + 1} .* not an item`));
  });
});
