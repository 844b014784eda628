// A job's own copy of its feed (FeedSnapshot, types.ts), taken once when the job starts: the live feed
// may be rewritten by its exporter at any time, the snapshot never is, so offsets and lines keep meaning
// the same items for the whole job (and its retries).
//
// The source is streamed once (file or URL, as the worker's feed policy allows: feed-policy.ts): hashed,
// parsed without blocking the event loop (streaming CSV, NDJSON line by line, a JSON array item by item:
// json-array.ts) and sent in batches to the job store (stores/job-store.ts) every worker opens — one JSON
// record per feed item, or `{"__malformed_row": "<why>"}` for an item that could not be read. Nothing is
// visible before the store commits the snapshot whole; a failed or cancelled read aborts it.
//
// The policy's limits are enforced while the bytes stream (M1): total bytes counted as they are hashed,
// one line / CSV record / JSON element at most `maxRecordBytes` (the only thing ever buffered whole),
// items at most `maxItems`. Above one, the read stops at once with a non-retryable error naming the limit
// and its setting: memory stays flat whatever the source sends.
//
// An inline feed (`feed.content`: the text itself, sealed in the job's input) is snapshotted the same
// way from memory. Its size is bounded (INLINE_FEED_MAX_BYTES) because it travels through Temporal:
// in the job's start payload (refused above 2 MiB), again in this activity's input, and in the start
// event of every run after a continue-as-new; a many-shop job hands it to each child (the client
// bounds how many start at once, so one workflow task stays under 4 MiB). Bigger feeds are files or
// URLs the worker reads.
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse, type CsvError, type Info } from 'csv-parse';
import { ApplicationFailure } from '@temporalio/common';
import type { FeedRef, FeedSnapshot } from '../types.ts';
import type { JobKey, JobRef, JobStore, SnapshotWriter } from '../stores/job-store.ts';
import { rowToBody } from './csv-row.ts';
import { looksBinary, openSource, printable, redactSource, unreadable } from './feed-source.ts';
import { jsonArrayItems } from './json-array.ts';
import { inlineFeedProblem } from '../contract.ts';
import { FEED_POLICY_ENV, type FeedPolicy } from './feed-policy.ts';

/**
 * The inline feed limits are the job contract's (contract.ts): clients check them before starting a job
 * (the n8n node, startBulkJob), the snapshot again for a job started by anything else.
 */
export { INLINE_FEED_MAX_BYTES } from '../contract.ts';

/** Marks a record that could not be read as an item (its value says why, naming the feed's line). */
export const MALFORMED = '__malformed_row';

/** Records between two progress calls (the activity heartbeats) and two yields to the event loop. */
const PROGRESS_EVERY = 200;
/** Records sent to the store at a time: at most this many, or about this many bytes. */
const BATCH_RECORDS = 1000;
const BATCH_BYTES = 1 << 20;
/** Bytes looked at to tell a text feed from a binary file. */
const SNIFF_BYTES = 4096;

export interface SnapshotOptions {
  /** What this worker lets the feed be (its roots, hosts, limits): the worker's setting. */
  policy: FeedPolicy;
  /** Called at least every few hundred records (the activity heartbeats from it). */
  onProgress?: () => void;
  /** Stops the read (the activity's cancellation): the store's writer is aborted, nothing is kept. */
  signal?: AbortSignal;
}

/**
 * Takes the snapshot of `feed` for `job` into `store`, or returns the one this job already has (a
 * retried activity; another attempt that committed first). Keyed by the job's workflow id and first run
 * id: a new job of a reused id never adopts an earlier job's snapshot.
 */
export async function takeSnapshot(
  feed: FeedRef,
  store: JobStore,
  job: Omit<JobRef, 'storeId'>,
  { policy, onProgress = () => {}, signal }: SnapshotOptions,
): Promise<FeedSnapshot> {
  const storeId = await store.id();
  const ref: JobRef = { ...job, storeId };
  const key: JobKey = { workflowId: job.workflowId, firstRunId: job.firstRunId };
  if (job.startId !== undefined) {
    const first = await store.claimStart(job.startId, key);
    if (first.workflowId !== key.workflowId || first.firstRunId !== key.firstRunId)
      throw ApplicationFailure.nonRetryable(
        `refused: this job's start input already started run ${first.firstRunId} of ${first.workflowId} — ` +
          'a copy of a start input never runs again (start the job anew for another run)',
        INPUT_REPLAYED,
      );
  }
  const existing = await store.getSnapshot(ref);
  if (existing) return { ...existing, job: key, storeId };

  signal?.throwIfAborted();
  const source = redactSource(feed.path);
  const writer = await store.createSnapshot(ref);
  try {
    const { sha256, total } = await copyRecords(feed, source, writer, policy, onProgress, signal);
    const meta = await writer.commit({ source, format: feed.format, sha256, total });
    return { ...meta, job: key, storeId };
  } catch (error) {
    await writer.abort().catch(() => {});
    // A cancelled read ends with the cancellation, whatever the stream said as it was torn down.
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/** The failure type of a start input started a second time (not retryable: it never runs). */
export const INPUT_REPLAYED = 'InputReplayed';

/** A ref to look the snapshot up by: the store reads it by its job key (`jobId` is for messages). */
const snapshotRef = (s: FeedSnapshot): JobRef => ({ ...s.job, jobId: s.job.workflowId, storeId: s.storeId });

/** The snapshot cannot be read any more (not retryable: no retry brings it back). */
const gone = (s: FeedSnapshot, why: string) =>
  ApplicationFailure.nonRetryable(
    `the snapshot of the feed ${s.source} (job ${s.job.workflowId}) ${why}`,
    'FeedUnreadable',
  );

export interface SnapshotReader {
  /** Records [from, to), clamped to the snapshot, parsed. */
  read(from: number, to: number): Promise<unknown[]>;
}

/**
 * The snapshot `s` for several reads from `store` — which must be the store holding it (activities call
 * `storeOf` first: another host's store fails retryably, never here). Fails (not retryable) if the
 * snapshot is gone or was replaced by another.
 */
export async function openSnapshot(store: JobStore, s: FeedSnapshot): Promise<SnapshotReader> {
  const meta = await store.getSnapshot(snapshotRef(s));
  if (!meta) throw gone(s, 'is gone');
  if (meta.sha256 !== s.sha256) throw gone(s, `was replaced (sha256 ${meta.sha256}, not ${s.sha256})`);
  if (meta.total !== s.total) throw gone(s, `was replaced (${meta.total} records, not ${s.total})`);
  return {
    async read(from, to) {
      const start = Math.max(0, from);
      const end = Math.min(to, s.total);
      if (end <= start) return [];
      const records = await store.readRecords(s.job, start, end);
      // Fewer records than asked: the snapshot was deleted while read (the job ended meanwhile).
      if (records.length !== end - start) throw gone(s, 'is gone');
      return records.map((text) => JSON.parse(text) as unknown);
    },
  };
}

/** Records [from, to) of the snapshot, parsed (see openSnapshot). */
export async function readSnapshotRecords(
  store: JobStore,
  s: FeedSnapshot,
  from: number,
  to: number,
): Promise<unknown[]> {
  return (await openSnapshot(store, s)).read(from, to);
}

/** Streams the source into the writer; its sha256 and record count. */
async function copyRecords(
  feed: FeedRef,
  source: string,
  writer: SnapshotWriter,
  policy: FeedPolicy,
  onProgress: () => void,
  signal: AbortSignal | undefined,
): Promise<{ sha256: string; total: number }> {
  const hash = createHash('sha256');
  // The first refusal of a stage wins: tearing the pipeline down makes the other stages fail too (an
  // AbortError, a premature close), and pipeline() may report one of those first.
  let first: ApplicationFailure | undefined;
  const keep = (e: ApplicationFailure) => (first ??= e);
  const fail = (reason: string) => keep(unreadable(source, feed.format, reason));
  const overAny = overLimit(source, feed.format);
  const over = (limit: Limit, value: number) => keep(overAny(limit, value));
  const input =
    feed.content === undefined
      ? await openSource(feed.path, feed.format, policy, signal)
      : inline(feed, fail);
  const out = recordWriter(writer, onProgress, policy.maxItems, over);
  const shape = feed.cells ? fromCells : (record: unknown) => record;
  let bytes = 0;
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > policy.maxBytes) return done(over('maxBytes', policy.maxBytes));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const record = policy.maxRecordBytes;
  const options = signal ? { signal } : {};
  try {
    if (feed.format === 'csv')
      await pipeline(
        input,
        hashing,
        textOnly(fail),
        csvParser(record),
        (rows) => writeCsv(rows, out),
        options,
      );
    else if (feed.format === 'ndjson')
      await pipeline(
        input,
        hashing,
        textOnly(fail),
        (bytes) => writeNdjson(lines(bytes, record, over), out, shape),
        options,
      );
    else
      await pipeline(
        input,
        hashing,
        textOnly(fail),
        (bytes) => writeJson(bytes, out, fail, shape, record, () => over('maxRecordBytes', record)),
        options,
      );
    await out.flush();
  } catch (error) {
    input.destroy();
    if (first) throw first;
    if (error instanceof ApplicationFailure) throw error;
    if ((error as CsvError).code === 'CSV_MAX_RECORD_SIZE') throw over('maxRecordBytes', record);
    if ((error as CsvError).code?.startsWith('CSV_')) throw fail(printable((error as Error).message, 300));
    throw error;
  }
  return { sha256: hash.digest('hex'), total: out.count };
}

/**
 * Rows whose field count differs from the header are kept (with `info.error`) and become malformed
 * records, so one bad row costs that row only; an unclosed quote makes the file unreadable.
 */
const csvParser = (maxRecordBytes: number) =>
  parse({
    columns: true,
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    info: true,
    max_record_size: maxRecordBytes,
  });

/**
 * The feed goes past one of the policy's limits (not retryable: the same feed would again): the
 * message names the limit, its value and the setting that raises it.
 */
const LIMIT_TEXT = {
  maxBytes: (n: number) => `exceeds ${FEED_POLICY_ENV.maxBytes} (${n} bytes)`,
  maxRecordBytes: (n: number) =>
    `has a line, CSV record or JSON item above ${FEED_POLICY_ENV.maxRecordBytes} (${n} bytes)`,
  maxItems: (n: number) => `has more items than ${FEED_POLICY_ENV.maxItems} (${n})`,
} as const;
type Limit = keyof typeof LIMIT_TEXT;
const overLimit = (source: string, format: string) => (limit: Limit, value: number) =>
  ApplicationFailure.nonRetryable(`the ${format} feed ${source} ${LIMIT_TEXT[limit](value)}`, 'FeedTooLarge');

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
  return asWritten({ ...rowToBody(cells), ...values });
}

/**
 * A listing as the Marketplace node reads it, as a listing to write (Get Many → Bulk Job with no mapping
 * step, issue 24): the read model's `brand` is the write's `brand_name` (unless that is given), and a
 * picture read back as `{ url, width, height }` is written as its `url`. Other read-only fields (ids,
 * times, `status`, `url`) go as they are: the API ignores what it does not take.
 */
function asWritten(body: Record<string, unknown>): Record<string, unknown> {
  const { brand, ...rest } = body;
  const out: Record<string, unknown> =
    typeof brand === 'string' && brand.trim() && rest.brand_name === undefined
      ? { ...rest, brand_name: brand.trim() }
      : body;
  if (Array.isArray(out.pictures))
    out.pictures = out.pictures.map((p: unknown) =>
      p && typeof p === 'object' && typeof (p as { url?: unknown }).url === 'string'
        ? { url: (p as { url: string }).url }
        : p,
    );
  return out;
}

/** One record per non-blank line; a line that is not JSON is a malformed record naming its line. */
async function writeNdjson(
  textLines: AsyncIterable<string>,
  out: RecordWriter,
  shape: (record: unknown) => unknown,
): Promise<void> {
  let n = 0;
  for await (const text of textLines) {
    n++;
    const line = n === 1 ? text.replace(/^\uFEFF/, '') : text;
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      await out.add({ [MALFORMED]: `NDJSON line ${n} is not valid JSON: ${jsonReason(error)}` });
      continue;
    }
    await out.add(shape(record));
  }
}

/** A JSON array, item by item (json-array.ts); anything else is unreadable. */
async function writeJson(
  bytes: AsyncIterable<Buffer>,
  out: RecordWriter,
  fail: (reason: string) => Error,
  shape: (record: unknown) => unknown,
  maxItemBytes: number,
  tooLarge: () => Error,
): Promise<void> {
  for await (const item of jsonArrayItems(bytes, fail, maxItemBytes, tooLarge)) await out.add(shape(item));
}

interface CsvRow {
  record: Record<string, string>;
  info: Info & { columns: unknown[]; error?: { record?: unknown[] } };
}

/** JSON.parse's reason for an NDJSON line, printable, with its column (the caller names the line). */
function jsonReason(error: unknown): string {
  const message = (error as Error).message;
  return printable(
    message.replace(/ in JSON at position \d+ \(line \d+ column (\d+)\)/, ' at column $1'),
    200,
  );
}

/**
 * A byte stream's lines (split at `\n`, a trailing `\r` dropped), one string each. A line longer than
 * `maxBytes` stops the read (`over`) as soon as its pending bytes pass it, before its end is seen.
 */
async function* lines(
  bytes: AsyncIterable<Buffer>,
  maxBytes: number,
  over: (limit: Limit, value: number) => Error,
): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const text = (b: Buffer) => b.toString('utf8').replace(/\r$/, '');
  const check = (n: number) => {
    if (n > maxBytes + 1) throw over('maxRecordBytes', maxBytes); // + 1: a CRLF's `\r`
  };
  for await (const chunk of bytes) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      check(pendingBytes + nl - start);
      pending.push(chunk.subarray(start, nl));
      yield text(Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
      start = nl + 1;
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      check(pendingBytes);
    }
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
  /** Sends what is still buffered to the store. */
  flush(): Promise<void>;
  readonly count: number;
}

/** Sends records to the snapshot writer in batches, reporting progress as they go. */
function recordWriter(
  writer: SnapshotWriter,
  onProgress: () => void,
  maxItems: number,
  over: (limit: Limit, value: number) => Error,
): RecordWriter {
  let batch: string[] = [];
  let bytes = 0;
  let count = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const records = batch;
    batch = [];
    bytes = 0;
    await writer.append(records);
  };
  return {
    get count() {
      return count;
    },
    async add(record) {
      if (count >= maxItems) throw over('maxItems', maxItems);
      const text = JSON.stringify(record ?? null);
      batch.push(text);
      bytes += text.length;
      count++;
      if (batch.length >= BATCH_RECORDS || bytes >= BATCH_BYTES) await flush();
      if (count % PROGRESS_EVERY === 0) {
        onProgress();
        await nextTurn();
      }
    },
    flush,
  };
}
