// A job's own copy of its feed (FeedSnapshot, types.ts), taken once when the job starts: the live feed
// may be rewritten by its exporter at any time, the snapshot never is, so offsets and lines keep meaning
// the same items for the whole job (and its retries).
//
// The source is streamed once (file or URL): hashed, parsed without blocking the event loop (streaming
// CSV, NDJSON line by line) and written as `records.ndjson` — one JSON record per feed item, or
// `{"__malformed_row": "<why>"}` for an item that could not be read — with `index.bin`, the byte offset
// of every record (Float64 LE, total + 1 entries), so any range of records is one positioned read.
// `meta.json` (the FeedSnapshot) is written last, in a temporary directory renamed into place: a crash
// never leaves half a snapshot.
//
// An inline feed (`feed.content`: the text itself, sealed in the job's input) is snapshotted the same
// way from memory. Its size is bounded (INLINE_FEED_MAX_BYTES) because it travels through Temporal:
// in the job's start payload (refused above 2 MiB), again in this activity's input, and in the start
// event of every run after a continue-as-new; a many-shop job hands it to each child (the client
// bounds how many start at once, so one workflow task stays under 4 MiB). Bigger feeds are files or
// URLs the worker reads.
import { once } from 'node:events';
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse, type CsvError, type Info } from 'csv-parse';
import { ApplicationFailure } from '@temporalio/common';
import type { FeedRef, FeedSnapshot } from '../types.ts';
import { rowToBody } from './csv-row.ts';
import { looksBinary, openSource, printable, redactSource, unreadable } from './feed-source.ts';
import { inlineFeedProblem } from '../contract.ts';

/**
 * The inline feed limits are the job contract's (contract.ts): clients check them before starting a job
 * (the n8n node, startBulkJob), the snapshot again for a job started by anything else.
 */
export { INLINE_FEED_MAX_BYTES } from '../contract.ts';

/** Marks a record that could not be read as an item (its value says why, naming the feed's line). */
export const MALFORMED = '__malformed_row';

const RECORDS = 'records.ndjson';
const INDEX = 'index.bin';
const META = 'meta.json';
/** Records between two progress calls (the activity heartbeats) and two yields to the event loop. */
const PROGRESS_EVERY = 200;
/** Bytes looked at to tell a text feed from a binary file. */
const SNIFF_BYTES = 4096;

/**
 * Takes the snapshot of `feed` into `dir`, or returns the one already there (a retried activity).
 * `onProgress` is called at least every few hundred records. `owner` (the job's run) keeps a job from
 * adopting the snapshot an earlier job of the same id left behind.
 */
export async function takeSnapshot(
  feed: FeedRef,
  dir: string,
  onProgress: () => void = () => {},
  owner?: string,
): Promise<FeedSnapshot> {
  const source = redactSource(feed.path);
  const mine = (m: Meta | undefined): m is Meta =>
    m?.source === source && m.format === feed.format && m.owner === owner;
  const existing = await readMeta(dir);
  if (mine(existing)) return snapshotOf(existing);

  // Temporary directories of earlier attempts are garbage now (a zombie attempt's result is ignored).
  const parent = dirname(dir);
  const prefix = `${basename(dir)}.tmp-`;
  await mkdir(parent, { recursive: true });
  for (const name of await readdir(parent))
    if (name.startsWith(prefix)) await rm(join(parent, name), { recursive: true, force: true });

  const tmp = join(parent, `${prefix}${randomUUID()}`);
  await mkdir(tmp);
  try {
    const { sha256, total } = await copyRecords(feed, source, tmp, onProgress);
    const snapshot: FeedSnapshot = { dir, source, format: feed.format, sha256, total };
    await writeFile(join(tmp, META), JSON.stringify({ ...snapshot, owner } satisfies Meta));
    try {
      await rename(tmp, dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      // Another attempt finished first: its snapshot is the job's. An earlier job's is replaced.
      const other = await readMeta(dir);
      if (mine(other)) return snapshotOf(other);
      await rm(dir, { recursive: true, force: true });
      await rename(tmp, dir);
    }
    return snapshot;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** `meta.json`: the snapshot, and the run that took it. */
type Meta = FeedSnapshot & { owner?: string };

const snapshotOf = ({ dir, source, format, sha256, total }: Meta): FeedSnapshot => ({
  dir,
  source,
  format,
  sha256,
  total,
});

export async function removeSnapshot(s: FeedSnapshot): Promise<void> {
  await rm(s.dir, { recursive: true, force: true });
}

/** Records [from, to) of the snapshot: one read of the index, one of the records. */
export async function readSnapshotRecords(s: FeedSnapshot, from: number, to: number): Promise<unknown[]> {
  const reader = await openSnapshot(s);
  try {
    return await reader.read(from, to);
  } finally {
    await reader.close();
  }
}

export interface SnapshotReader {
  /** Records [from, to), clamped to the snapshot. */
  read(from: number, to: number): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Opens the snapshot for several reads; fails (not retryable) if it is gone or was replaced. */
export async function openSnapshot(s: FeedSnapshot): Promise<SnapshotReader> {
  const meta = await readMeta(s.dir);
  const gone = (why: string) =>
    ApplicationFailure.nonRetryable(
      `the snapshot of the feed ${s.source} (${s.dir}) ${why}`,
      'FeedUnreadable',
    );
  if (!meta) throw gone('is gone');
  if (meta.sha256 !== s.sha256) throw gone(`was replaced (sha256 ${meta.sha256}, not ${s.sha256})`);
  const index = await open(join(s.dir, INDEX));
  const records = await open(join(s.dir, RECORDS)).catch(async (error: unknown) => {
    await index.close();
    throw error;
  });
  if ((await index.stat()).size !== (s.total + 1) * 8) {
    await Promise.all([index.close(), records.close()]);
    throw gone('is damaged (its index does not match its item count)');
  }
  return {
    async read(from, to) {
      const start = Math.max(0, from);
      const end = Math.min(to, s.total);
      if (end <= start) return [];
      const offsets = await readAt(index, start * 8, (end - start + 1) * 8);
      const first = offsets.readDoubleLE(0);
      const bytes = await readAt(records, first, offsets.readDoubleLE((end - start) * 8) - first);
      const lines = bytes.toString('utf8').split('\n');
      return lines.slice(0, end - start).map((line) => JSON.parse(line) as unknown);
    },
    async close() {
      await Promise.all([index.close(), records.close()]);
    },
  };
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  for (let done = 0; done < length;) {
    const { bytesRead } = await file.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`snapshot file ends before byte ${position + length}`);
    done += bytesRead;
  }
  return buffer;
}

async function readMeta(dir: string): Promise<Meta | undefined> {
  // Only a missing file means "no snapshot": another read error (shared storage) is retried.
  const text = await readFile(join(dir, META), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return text === undefined ? undefined : (JSON.parse(text) as Meta);
}

/** Streams the source into `records.ndjson` and `index.bin`; its sha256 and record count. */
async function copyRecords(
  feed: FeedRef,
  source: string,
  dir: string,
  onProgress: () => void,
): Promise<{ sha256: string; total: number }> {
  const hash = createHash('sha256');
  const fail = (reason: string) => unreadable(source, feed.format, reason);
  const input = feed.content === undefined ? await openSource(feed.path, feed.format) : inline(feed, fail);
  const out = recordWriter(dir, onProgress);
  const shape = feed.cells ? fromCells : (record: unknown) => record;
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    if (feed.format === 'csv')
      await pipeline(input, hashing, textOnly(fail), csvParser(), (rows) => writeCsv(rows, out));
    else if (feed.format === 'ndjson')
      await pipeline(input, hashing, textOnly(fail), (bytes) => writeNdjson(bytes, out, shape));
    else
      await pipeline(input, hashing, textOnly(fail), (bytes) =>
        writeJson(bytes, out, fail, onProgress, shape),
      );
    await out.close();
  } catch (error) {
    out.destroy();
    if (error instanceof ApplicationFailure) throw error;
    if ((error as CsvError).code?.startsWith('CSV_')) throw fail(printable((error as Error).message, 300));
    throw error;
  }
  return { sha256: hash.digest('hex'), total: out.count };
}

/**
 * Rows whose field count differs from the header are kept (with `info.error`) and become malformed
 * records, so one bad row costs that row only; an unclosed quote makes the file unreadable.
 */
const csvParser = () =>
  parse({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: true, info: true });

async function writeCsv(rows: AsyncIterable<CsvRow>, out: RecordWriter): Promise<void> {
  for await (const { record, info } of rows)
    await out.add(
      info.error
        ? {
            [MALFORMED]: `CSV line ${info.lines} has ${info.error.record?.length ?? '?'} fields, the header has ${info.columns.length}`,
          }
        : rowToBody(record),
    );
}

/** An inline feed's text as a stream, refused (not retryable) above the contract's limits. */
function inline(feed: FeedRef, fail: (reason: string) => Error): Readable {
  const problem = inlineFeedProblem(feed.content ?? '');
  if (problem) throw fail(problem);
  return Readable.from([Buffer.from(feed.content ?? '', 'utf8')]);
}

/**
 * A JSON record whose string values are spreadsheet cells, as a request body: the strings read like
 * CSV columns (rowToBody; blank ones dropped), other values (numbers, lists, objects) kept, nulls
 * dropped like blank cells. Anything but a plain object is left for the rules to refuse.
 */
export function fromCells(record: unknown): unknown {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return record;
  const cells: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (typeof value === 'string') cells[key] = value;
    else if (value !== null && value !== undefined) values[key] = value;
  }
  return { ...rowToBody(cells), ...values };
}

/** One record per non-blank line; a line that is not JSON is a malformed record naming its line. */
async function writeNdjson(
  bytes: AsyncIterable<Buffer>,
  out: RecordWriter,
  shape: (record: unknown) => unknown,
): Promise<void> {
  let n = 0;
  for await (const text of lines(bytes)) {
    n++;
    const line = n === 1 ? text.replace(/^\uFEFF/, '') : text;
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      await out.add({ [MALFORMED]: `NDJSON line ${n} is not valid JSON: ${jsonReason(error, true)}` });
      continue;
    }
    await out.add(shape(record));
  }
}

/** A JSON array, parsed whole (one call; progress reported around it); anything else is unreadable. */
async function writeJson(
  bytes: AsyncIterable<Buffer>,
  out: RecordWriter,
  fail: (reason: string) => Error,
  onProgress: () => void,
  shape: (record: unknown) => unknown,
): Promise<void> {
  const pieces: Buffer[] = [];
  for await (const chunk of bytes) pieces.push(chunk);
  const text = Buffer.concat(pieces)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  onProgress();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw fail(`not valid JSON: ${jsonReason(error)}`);
  }
  onProgress();
  if (!Array.isArray(data)) throw fail('a JSON feed must be an array of items');
  for (const item of data as unknown[]) await out.add(shape(item));
}

interface CsvRow {
  record: Record<string, string>;
  info: Info & { columns: unknown[]; error?: { record?: unknown[] } };
}

/**
 * JSON.parse's reason, printable. Its place ("at position 11 (line 1 column 12)") is the file's for a
 * JSON array; for an NDJSON line only the column is (the line is named by the caller).
 */
function jsonReason(error: unknown, ndjson = false): string {
  const message = (error as Error).message;
  return printable(
    ndjson ? message.replace(/ in JSON at position \d+ \(line \d+ column (\d+)\)/, ' at column $1') : message,
    200,
  );
}

/** A byte stream's lines (split at `\n`, a trailing `\r` dropped), one string each. */
async function* lines(bytes: AsyncIterable<Buffer>): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  const text = (b: Buffer) => b.toString('utf8').replace(/\r$/, '');
  for await (const chunk of bytes) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      pending.push(chunk.subarray(start, nl));
      yield text(Buffer.concat(pending));
      pending = [];
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length) yield text(Buffer.concat(pending));
}

/** Passes text on; refuses, with a printable excerpt, a file whose first bytes are not text. */
function textOnly(fail: (reason: string) => Error): Transform {
  let head: Buffer | null = Buffer.alloc(0);
  const check = (bytes: Buffer) =>
    looksBinary(bytes)
      ? fail(
          `it is not a text file (it starts with "${printable(bytes, 40)}"): a feed is CSV, JSON or NDJSON text`,
        )
      : null;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (head === null) return done(null, chunk);
      head = Buffer.concat([head, chunk]);
      if (head.length < SNIFF_BYTES) return done();
      const bytes = head;
      head = null;
      done(check(bytes), bytes);
    },
    flush(done) {
      if (head === null) return done();
      const bytes = head;
      head = null;
      done(check(bytes), bytes);
    },
  });
}

interface RecordWriter {
  add(record: unknown): Promise<void>;
  close(): Promise<void>;
  destroy(): void;
  readonly count: number;
}

/** Appends records to `records.ndjson` and their offsets to `index.bin`, flushed to disk on close. */
function recordWriter(dir: string, onProgress: () => void): RecordWriter {
  const records = createWriteStream(join(dir, RECORDS), { flush: true });
  const index = createWriteStream(join(dir, INDEX), { flush: true });
  const BATCH = 1024;
  let offsets = Buffer.alloc(BATCH * 8); // offsets[0] = 0: where the first record starts
  let buffered = 1;
  let position = 0;
  let count = 0;
  const write = async (stream: WriteStream, data: string | Buffer) => {
    if (!stream.write(data)) await once(stream, 'drain');
  };
  const flushIndex = async () => {
    await write(index, offsets.subarray(0, buffered * 8));
    offsets = Buffer.alloc(BATCH * 8);
    buffered = 0;
  };
  return {
    get count() {
      return count;
    },
    async add(record) {
      const line = `${JSON.stringify(record ?? null)}\n`;
      position += Buffer.byteLength(line);
      count++;
      offsets.writeDoubleLE(position, 8 * buffered++);
      await write(records, line);
      if (buffered === BATCH) await flushIndex();
      if (count % PROGRESS_EVERY === 0) {
        onProgress();
        await nextTurn();
      }
    },
    async close() {
      await flushIndex();
      records.end();
      index.end();
      await Promise.all([finished(records), finished(index)]);
    },
    destroy() {
      records.destroy();
      index.destroy();
    },
  };
}
