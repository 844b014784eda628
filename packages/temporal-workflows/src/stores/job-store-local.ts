// The embedded job store (stores/job-store.ts): a folder on this host, for `selling-kit dev` and single-host
// deployments. Plain files rather than SQLite: no native module to build on every platform the CLI runs
// on, a person can read a job's data with `cat`, and the snapshot keeps the format the worker already
// streams (records.ndjson + index.bin, any range of records one positioned read).
//
//   <dir>/store.json                     { id, host, createdAt }: the store's identity, created once
//   <dir>/jobs/<sha256 of the job key>/  one folder per job (the name is injective; the ids are inside)
//       job.json                         the JobRecord
//       snapshot/                        meta.json, records.ndjson, index.bin (Float64 LE offsets)
//       parts/<seq>-<attempt>-<piece>.ndjson   a header line { part }, then one ItemResult per line
//
// Every file appears whole or not at all: it is written under a temporary name (`.tmp-<uuid>`, never a
// process id — it is 1 in every container) and renamed into place, or hard-linked when only the first
// writer may win (store.json, job.json). A snapshot is a directory renamed into place: the first commit
// wins. Names starting with `.` are temporary and never read.
//
// The folder is this host's: a worker on another host opens another folder, so another store id, and
// the activities fail retryably with JobStoreNotShared (activities/job-data.ts) instead of writing where
// nobody merges. Listing jobs (findJobs, expire) scans the job records: fine for one host's jobs.
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { link, mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import type { ItemResult } from '../types.ts';
import type {
  JobKey,
  JobRecord,
  JobRef,
  JobStore,
  MergeRule,
  OutcomePage,
  OutcomePart,
  SnapshotMeta,
  SnapshotWriter,
} from './job-store.ts';

/** Modes of what the local stores write: only the owner may enter or read (reports hold buyers' data). */
export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;
const STORE_FILE = 'store.json';
const JOBS = 'jobs';
/** `starts/<sha256 of the start id>.json`: which job a start id started (claimStart). */
const STARTS = 'starts';
const JOB_FILE = 'job.json';
const SNAPSHOT = 'snapshot';
const PARTS = 'parts';
const RECORDS = 'records.ndjson';
const INDEX = 'index.bin';
const META = 'meta.json';
/** Every temporary name starts with it (readers skip names starting with `.`). */
const TMP = '.tmp-';
/** Bytes of one index entry (a Float64 byte offset). */
const OFFSET_BYTES = 8;
/** Merged reports kept in memory, and for how long (readers page through one report at a time). */
const MERGES_KEPT = 2;
const MERGE_KEPT_MS = 60_000;

/** What `store.json` holds. */
interface StoreFile {
  id: string;
  /** The host that created the folder (for a person: which host's disk this is). */
  host: string;
  createdAt: string;
}

/** A part file's first line. */
interface PartHeader {
  part: Required<OutcomePart>;
}

/**
 * The job's folder name: sha256 of the length-prefixed (workflowId, firstRunId). Injective where a
 * sanitised name is not (`a:b` and `a_b`), and of fixed length whatever the ids.
 */
export function jobFolderName(key: JobKey): string {
  const { workflowId: w, firstRunId: r } = key;
  return createHash('sha256').update(`${w.length}:${w}${r.length}:${r}`).digest('hex');
}

// eslint-disable-next-line max-lines-per-function -- over the house's limit: to be split (issue 25)
export function createLocalJobStore(dir: string): JobStore {
  const root = resolve(dir);
  const jobsDir = join(root, JOBS);
  const jobDir = (key: JobKey) => join(jobsDir, jobFolderName(key));
  const snapshotDir = (key: JobKey) => join(jobDir(key), SNAPSHOT);
  const partsDir = (key: JobKey) => join(jobDir(key), PARTS);
  const tmpName = (parent: string, what = '') => join(parent, `${TMP}${what}${randomUUID()}`);

  let identity: Promise<StoreFile> | undefined;
  /** store.json, created by the first worker that gets there (the others read its id). */
  async function storeFile(): Promise<StoreFile> {
    // 0700 / 0600 throughout (PRIVATE_DIR, PRIVATE_FILE): feeds, snapshots and reports are the owner's.
    await mkdir(jobsDir, { recursive: true, mode: PRIVATE_DIR });
    const path = join(root, STORE_FILE);
    const mine: StoreFile = { id: randomUUID(), host: hostname(), createdAt: new Date().toISOString() };
    await createOnce(path, JSON.stringify(mine, null, 2) + '\n', root);
    const found = await readJson<StoreFile>(path);
    if (!found?.id) throw new Error(`the job store ${root} has no valid ${STORE_FILE}`);
    return found;
  }

  async function getJob(key: JobKey): Promise<JobRecord | undefined> {
    return readJson<JobRecord>(join(jobDir(key), JOB_FILE));
  }

  /** The job's record, created (first writer wins) when missing. */
  async function ensureJob(job: JobRef): Promise<JobRecord> {
    const existing = await getJob(job);
    if (existing) return existing;
    const folder = jobDir(job);
    await mkdir(folder, { recursive: true, mode: PRIVATE_DIR });
    const record: JobRecord = {
      key: { workflowId: job.workflowId, firstRunId: job.firstRunId },
      jobId: job.jobId,
      ...(job.parentJobId !== undefined && { parentJobId: job.parentJobId }),
      ...(job.shopId !== undefined && { shopId: job.shopId }),
      createdAt: new Date().toISOString(),
    };
    await createOnce(join(folder, JOB_FILE), JSON.stringify(record, null, 2) + '\n', folder);
    return (await getJob(job))!;
  }

  /** Every job record (a scan: fine for one host's jobs), with its folder. */
  async function allJobs(): Promise<{ folder: string; record?: JobRecord }[]> {
    const names = await readdir(jobsDir).catch(orMissing(() => [] as string[]));
    const out: { folder: string; record?: JobRecord }[] = [];
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const folder = join(jobsDir, name);
      out.push({ folder, record: await readJson<JobRecord>(join(folder, JOB_FILE)) });
    }
    return out;
  }

  /** The rule readers merge by: the stored one once the job ended, else the caller's. */
  async function ruleFor(key: JobKey, rule: MergeRule | undefined): Promise<MergeRule> {
    const record = await getJob(key);
    if (record?.state) return { accepted: record.accepted, upToSeq: record.upToSeq };
    return { accepted: rule?.accepted, upToSeq: rule?.upToSeq };
  }

  /**
   * The merged report, sorted by line: for each line, the outcome in the highest seq among the accepted
   * parts (the accepted attempt of each seq, default 1; seqs above `upToSeq` ignored).
   */
  async function merged(key: JobKey, rule: MergeRule): Promise<ItemResult[]> {
    const dir = partsDir(key);
    const names = await readdir(dir).catch(orMissing(() => [] as string[]));
    const parts = names
      .map((name) => ({ name, id: parsePartName(name) }))
      .filter((p): p is { name: string; id: PartId } => p.id !== undefined)
      .filter(({ id }) => id.attempt === (rule.accepted?.[id.seq] ?? 1))
      .filter(({ id }) => rule.upToSeq === undefined || id.seq <= rule.upToSeq)
      .sort((a, b) => a.id.seq - b.id.seq || a.id.piece - b.id.piece);
    // Which files, in which version: a rewritten part is a new file (renamed into place), so a new inode
    // and change time. The same files as a recent merge give its result without reading them again.
    const versions = await Promise.all(
      parts.map(({ name }) =>
        stat(join(dir, name), { bigint: true }).then(
          (st) => `${name}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`,
          orMissing(() => `${name}:gone`),
        ),
      ),
    );
    const signature = versions.join('|');
    const cached = merges.get(dir);
    if (cached?.signature === signature) return cached.lines;

    const byLine = new Map<number, ItemResult>();
    for (const { name } of parts) {
      // A part removed since the listing (the job expired meanwhile) counts as empty.
      const text = await readFile(join(dir, name), 'utf8').catch(orMissing(() => ''));
      for (const result of parsePart(text)) byLine.set(result.line, result);
    }
    const lines = [...byLine.values()].sort((a, b) => a.line - b.line);
    remember(dir, { signature, lines });
    return lines;
  }

  /**
   * Recent merges (a report read page by page merges the same parts once), a few at a time and for a
   * short while: a worker does not keep reports in memory.
   */
  const merges = new Map<string, { signature: string; lines: ItemResult[] }>();
  function remember(dir: string, merge: { signature: string; lines: ItemResult[] }) {
    merges.delete(dir);
    merges.set(dir, merge);
    for (const oldest of merges.keys()) {
      if (merges.size <= MERGES_KEPT) break;
      merges.delete(oldest);
    }
    setTimeout(() => {
      if (merges.get(dir) === merge) merges.delete(dir);
    }, MERGE_KEPT_MS).unref();
  }

  async function count(key: JobKey, rule: MergeRule): Promise<number> {
    return (await merged(key, rule)).length;
  }

  /** Removes a folder atomically for readers: renamed to a temporary name first, then deleted. */
  async function remove(path: string, parent: string): Promise<boolean> {
    const gone = tmpName(parent, 'del-');
    try {
      await rename(path, gone);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    await rm(gone, { recursive: true, force: true });
    return true;
  }

  return {
    kind: 'local',
    location: `${hostname()}:${root}`,

    async id() {
      identity ??= storeFile().catch((error: unknown) => {
        identity = undefined; // a failed read is tried again by the next call
        throw error;
      });
      return (await identity).id;
    },

    async migrate() {
      await this.id();
    },

    getJob,

    async findJobs(jobId) {
      return (await allJobs())
        .map(({ record }) => record)
        .filter((r): r is JobRecord => r !== undefined && (r.jobId === jobId || r.parentJobId === jobId))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    },

    async getSnapshot(job) {
      const meta = await readJson<SnapshotMeta>(join(snapshotDir(job), META));
      return meta && snapshotMeta(meta);
    },

    async createSnapshot(job) {
      await ensureJob(job);
      const tmp = tmpName(jobDir(job), 'snapshot-');
      await mkdir(tmp, { mode: PRIVATE_DIR });
      return snapshotWriter(tmp, snapshotDir(job));
    },

    async readRecords(job, from, to) {
      const dir = snapshotDir(job);
      const meta = await readJson<SnapshotMeta>(join(dir, META));
      if (!meta) return [];
      const start = Math.max(0, Math.floor(from));
      const end = Math.min(Math.floor(to), meta.total);
      if (end <= start) return [];
      let index: FileHandle | undefined;
      let records: FileHandle | undefined;
      try {
        index = await open(join(dir, INDEX));
        records = await open(join(dir, RECORDS));
        if ((await index.stat()).size !== (meta.total + 1) * OFFSET_BYTES)
          throw new Error(
            `the snapshot in ${dir} is damaged: its index does not match its ${meta.total} records`,
          );
        const offsets = await readAt(index, start * OFFSET_BYTES, (end - start + 1) * OFFSET_BYTES);
        const at = (i: number) => offsets.readDoubleLE(i * OFFSET_BYTES);
        const first = at(0);
        const bytes = await readAt(records, first, at(end - start) - first);
        const out: string[] = [];
        for (let i = 0; i < end - start; i++) {
          // Each record ends with `\n`; offsets (not a split) delimit them.
          out.push(bytes.toString('utf8', at(i) - first, at(i + 1) - first - 1));
        }
        return out;
      } catch (error) {
        // Deleted while read (the job ended): no snapshot, as if read a moment later.
        if (isMissing(error)) return [];
        throw error;
      } finally {
        await Promise.all([index?.close(), records?.close()]);
      }
    },

    async deleteSnapshot(job) {
      const folder = jobDir(job);
      await remove(snapshotDir(job), folder);
      // The job has ended: a snapshot still being written for it (a crashed attempt's) is garbage.
      const names = await readdir(folder).catch(orMissing(() => [] as string[]));
      for (const name of names)
        if (name.startsWith(`${TMP}snapshot-`))
          await rm(join(folder, name), { recursive: true, force: true });
    },

    async writePart(job, part, lines) {
      await ensureJob(job);
      const dir = partsDir(job);
      await mkdir(dir, { recursive: true, mode: PRIVATE_DIR });
      const id: PartId = { seq: part.seq, attempt: part.attempt, piece: part.piece ?? 0 };
      for (const [name, value] of Object.entries(id))
        if (!Number.isSafeInteger(value) || value < 0)
          throw new Error(`part ${name} must be a whole number ≥ 0, not ${value}`);
      const header: PartHeader = { part: { ...id, kind: part.kind } };
      const text = [header, ...lines].map((l) => JSON.stringify(l) + '\n').join('');
      const tmp = tmpName(dir);
      try {
        await writeDurable(tmp, text);
        await rename(tmp, join(dir, partName(id)));
      } finally {
        await rm(tmp, { force: true });
      }
    },

    async readOutcomes(job, page = {}) {
      const all = await merged(job, await ruleFor(job, page));
      const from = page.afterLine === undefined ? 0 : firstAfter(all, page.afterLine);
      const limit = Math.max(0, page.limit ?? Infinity);
      // Copies: the merge may be cached for the next page.
      const lines = all.slice(from, from + limit).map((line) => ({ ...line }));
      if (from + lines.length >= all.length) return { lines };
      return { lines, nextAfterLine: lines.at(-1)?.line ?? page.afterLine ?? 0 } satisfies OutcomePage;
    },

    async countOutcomes(job, rule) {
      return count(job, await ruleFor(job, rule));
    },

    async finalize(job, end) {
      const record = await ensureJob(job);
      const rule: MergeRule = { accepted: end.accepted, upToSeq: end.upToSeq };
      const lines = await count(job, rule);
      const ended: JobRecord = {
        ...record,
        endedAt: record.endedAt ?? new Date().toISOString(),
        state: end.state,
        ...(rule.accepted !== undefined && { accepted: rule.accepted }),
        ...(rule.upToSeq !== undefined && { upToSeq: rule.upToSeq }),
      };
      if (rule.accepted === undefined) delete ended.accepted;
      if (rule.upToSeq === undefined) delete ended.upToSeq;
      const folder = jobDir(job);
      const tmp = tmpName(folder);
      try {
        await writeDurable(tmp, JSON.stringify(ended, null, 2) + '\n');
        await rename(tmp, join(folder, JOB_FILE));
      } finally {
        await rm(tmp, { force: true });
      }
      return { lines };
    },

    async expire(before) {
      let jobs = 0;
      for (const { folder, record } of await allJobs()) {
        if (record) {
          if (Date.parse(record.createdAt) < before.getTime() && (await remove(folder, jobsDir))) jobs++;
          continue;
        }
        // A folder whose record was never written (a crash between the two): by its own age.
        const st = await stat(folder).catch(orMissing(() => undefined));
        if (st && st.mtimeMs < before.getTime()) await remove(folder, jobsDir);
      }
      // Claims of starts as old as the jobs removed (a claim outlives nothing it guards).
      const starts = join(root, STARTS);
      for (const name of await readdir(starts).catch(orMissing(() => [] as string[]))) {
        const claim = await readJson<{ createdAt: string }>(join(starts, name)).catch(() => undefined);
        if (claim && Date.parse(claim.createdAt) < before.getTime())
          await rm(join(starts, name), { force: true });
      }
      return { jobs };
    },

    async claimStart(startId, job) {
      await storeFile();
      const dir = join(root, STARTS);
      await mkdir(dir, { recursive: true, mode: PRIVATE_DIR });
      const path = join(dir, `${createHash('sha256').update(startId).digest('hex')}.json`);
      const mine = {
        workflowId: job.workflowId,
        firstRunId: job.firstRunId,
        createdAt: new Date().toISOString(),
      };
      await createOnce(path, JSON.stringify(mine) + '\n', dir);
      const first = await readJson<typeof mine>(path);
      if (!first) throw new Error(`the job store ${root} lost the claim of a start it just wrote`);
      return { workflowId: first.workflowId, firstRunId: first.firstRunId };
    },

    // A file written, read back and removed where jobs are kept (a read-only or full disk fails here).
    async probe() {
      await storeFile();
      const tmp = tmpName(jobsDir, 'probe-');
      try {
        await writeDurable(tmp, 'probe');
        if ((await readFile(tmp, 'utf8')) !== 'probe')
          throw new Error(`the job store ${root} read back another text`);
      } finally {
        await rm(tmp, { force: true });
      }
    },
    async close() {},
  };
}

/** A snapshot written into `tmp`, published as `target` by commit. */
function snapshotWriter(tmp: string, target: string): SnapshotWriter {
  // flush: each file is fsynced when it closes, before the directory is renamed into place.
  const records = createWriteStream(join(tmp, RECORDS), { flush: true, mode: PRIVATE_FILE });
  const index = createWriteStream(join(tmp, INDEX), { flush: true, mode: PRIVATE_FILE });
  let position = 0;
  let count = 0;
  let closed = false;
  const write = async (stream: WriteStream, data: string | Buffer) => {
    if (!stream.write(data)) await once(stream, 'drain');
  };
  const first = Buffer.alloc(OFFSET_BYTES); // offset 0: where the first record starts
  index.write(first);
  // An error surfaces on the next append or commit (not as an unhandled 'error' event).
  let failed: unknown;
  for (const s of [records, index]) s.on('error', (e) => (failed ??= e));
  const check = () => {
    if (failed) throw failed;
    if (closed) throw new Error('the snapshot writer was already committed or aborted');
  };

  return {
    async append(batch) {
      check();
      if (batch.length === 0) return;
      const offsets = Buffer.alloc(batch.length * OFFSET_BYTES);
      let text = '';
      batch.forEach((record, i) => {
        const line = `${record}\n`;
        text += line;
        position += Buffer.byteLength(line);
        offsets.writeDoubleLE(position, i * OFFSET_BYTES);
      });
      count += batch.length;
      await write(records, text);
      await write(index, offsets);
      check();
    },

    async commit(meta) {
      check();
      closed = true;
      try {
        if (meta.total !== count)
          throw new Error(`snapshot meta says ${meta.total} records, ${count} were appended`);
        records.end();
        index.end();
        await Promise.all([finished(records), finished(index)]);
        if (failed) throw failed;
        const own = snapshotMeta(meta);
        await writeDurable(join(tmp, META), JSON.stringify(own, null, 2) + '\n');
        try {
          await rename(tmp, target);
          return own;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
          // Another attempt committed first: its snapshot is the job's.
          const winner = await readJson<SnapshotMeta>(join(target, META));
          if (!winner) throw error;
          return snapshotMeta(winner);
        }
      } finally {
        records.destroy();
        index.destroy();
        await rm(tmp, { recursive: true, force: true });
      }
    },

    async abort() {
      closed = true;
      records.destroy();
      index.destroy();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

const snapshotMeta = ({ source, format, sha256, total }: SnapshotMeta): SnapshotMeta => ({
  source,
  format,
  sha256,
  total,
});

interface PartId {
  seq: number;
  attempt: number;
  piece: number;
}

/** `<seq>-<attempt>-<piece>.ndjson`, seq zero-padded so a listing reads in write order. */
const partName = ({ seq, attempt, piece }: PartId) =>
  `${String(seq).padStart(10, '0')}-${attempt}-${piece}.ndjson`;

function parsePartName(name: string): PartId | undefined {
  const m = /^(\d+)-(\d+)-(\d+)\.ndjson$/.exec(name);
  return m ? { seq: Number(m[1]), attempt: Number(m[2]), piece: Number(m[3]) } : undefined;
}

/** A part file's outcomes (its header line skipped). */
function parsePart(text: string): ItemResult[] {
  const out: ItemResult[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const value = JSON.parse(line) as ItemResult | PartHeader;
    if ('line' in value) out.push(value);
  }
  return out;
}

/** The index of the first line after `line` in lines sorted by line (binary search). */
function firstAfter(lines: ItemResult[], line: number): number {
  let [lo, hi] = [0, lines.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (lines[mid]!.line <= line) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException)?.code === 'ENOENT';

/** A catch handler: a missing file or folder gives `fallback()`, any other error is rethrown. */
const orMissing =
  <T>(fallback: () => T) =>
  (error: unknown): T => {
    if (isMissing(error)) return fallback();
    throw error;
  };

async function readJson<T>(path: string): Promise<T | undefined> {
  const text = await readFile(path, 'utf8').catch(orMissing(() => undefined));
  return text === undefined ? undefined : (JSON.parse(text) as T);
}

/** Writes `text` to a new file and syncs it to disk (it is renamed or linked into place next). */
async function writeDurable(path: string, text: string): Promise<void> {
  const file = await open(path, 'wx', PRIVATE_FILE);
  try {
    await file.writeFile(text);
    await file.datasync();
  } finally {
    await file.close();
  }
}

/**
 * Creates `path` holding `text` unless it exists: written whole under a temporary name, then hard-linked
 * into place (a link fails if the name exists), so racing writers agree on one file and a reader never
 * sees half of it. Answers whether this call created it.
 */
async function createOnce(path: string, text: string, parent: string): Promise<boolean> {
  const tmp = join(parent, `${TMP}${randomUUID()}`);
  try {
    await writeDurable(tmp, text);
    await link(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(tmp, { force: true });
  }
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
