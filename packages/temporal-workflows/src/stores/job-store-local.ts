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
import { mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
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
} from './job-store.ts';
import {
  createOnce,
  isMissing,
  orMissing,
  PRIVATE_DIR,
  readAt,
  readJson,
  TMP,
  writeDurable,
} from './job-store-local-files.ts';
import {
  INDEX,
  META,
  OFFSET_BYTES,
  RECORDS,
  snapshotMeta,
  snapshotWriter,
} from './job-store-local-snapshot.ts';

export { PRIVATE_DIR, PRIVATE_FILE } from './job-store-local-files.ts';
const STORE_FILE = 'store.json';
const JOBS = 'jobs';
/** `starts/<sha256 of the start id>.json`: which job a start id started (claimStart). */
const STARTS = 'starts';
const JOB_FILE = 'job.json';
const SNAPSHOT = 'snapshot';
const PARTS = 'parts';
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

export function createLocalJobStore(dir: string): JobStore {
  const f = openFolder(dir);
  return {
    kind: 'local',
    location: `${hostname()}:${f.root}`,
    ...jobMethods(f),
    ...snapshotMethods(f),
    ...outcomeMethods(f),
    async close() {},
  };
}

/** The store's folder as its methods use it: paths, the store's identity, job records. */
interface Folder {
  root: string;
  jobsDir: string;
  jobDir: (key: JobKey) => string;
  snapshotDir: (key: JobKey) => string;
  partsDir: (key: JobKey) => string;
  tmpName: (parent: string, what?: string) => string;
  /** store.json, created by the first worker that gets there (the others read its id). */
  storeFile: () => Promise<StoreFile>;
  getJob: (key: JobKey) => Promise<JobRecord | undefined>;
  /** Recent merges (merged()), by parts folder. */
  merges: Map<string, { signature: string; lines: ItemResult[] }>;
}

function openFolder(dir: string): Folder {
  const root = resolve(dir);
  const jobsDir = join(root, JOBS);
  const jobDir = (key: JobKey) => join(jobsDir, jobFolderName(key));
  return {
    root,
    jobsDir,
    jobDir,
    snapshotDir: (key) => join(jobDir(key), SNAPSHOT),
    partsDir: (key) => join(jobDir(key), PARTS),
    tmpName: (parent, what = '') => join(parent, `${TMP}${what}${randomUUID()}`),
    async storeFile() {
      // 0700 / 0600 throughout (PRIVATE_DIR, PRIVATE_FILE): feeds, snapshots and reports are the owner's.
      await mkdir(jobsDir, { recursive: true, mode: PRIVATE_DIR });
      const path = join(root, STORE_FILE);
      const mine: StoreFile = { id: randomUUID(), host: hostname(), createdAt: new Date().toISOString() };
      await createOnce(path, JSON.stringify(mine, null, 2) + '\n', root);
      const found = await readJson<StoreFile>(path);
      if (!found?.id) throw new Error(`the job store ${root} has no valid ${STORE_FILE}`);
      return found;
    },
    getJob: (key) => readJson<JobRecord>(join(jobDir(key), JOB_FILE)),
    merges: new Map(),
  };
}

/** The job's record, created (first writer wins) when missing. */
async function ensureJob(f: Folder, job: JobRef): Promise<JobRecord> {
  const existing = await f.getJob(job);
  if (existing) return existing;
  const folder = f.jobDir(job);
  await mkdir(folder, { recursive: true, mode: PRIVATE_DIR });
  const record: JobRecord = {
    key: { workflowId: job.workflowId, firstRunId: job.firstRunId },
    jobId: job.jobId,
    ...(job.parentJobId !== undefined && { parentJobId: job.parentJobId }),
    ...(job.shopId !== undefined && { shopId: job.shopId }),
    createdAt: new Date().toISOString(),
  };
  await createOnce(join(folder, JOB_FILE), JSON.stringify(record, null, 2) + '\n', folder);
  return (await f.getJob(job))!;
}

/** Every job record (a scan: fine for one host's jobs), with its folder. */
async function allJobs(f: Folder): Promise<{ folder: string; record?: JobRecord }[]> {
  const names = await readdir(f.jobsDir).catch(orMissing(() => [] as string[]));
  const out: { folder: string; record?: JobRecord }[] = [];
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const folder = join(f.jobsDir, name);
    out.push({ folder, record: await readJson<JobRecord>(join(folder, JOB_FILE)) });
  }
  return out;
}

/** Removes a folder atomically for readers: renamed to a temporary name first, then deleted. */
async function remove(f: Folder, path: string, parent: string): Promise<boolean> {
  const gone = f.tmpName(parent, 'del-');
  try {
    await rename(path, gone);
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
  await rm(gone, { recursive: true, force: true });
  return true;
}

/** Writes a file whole into place (temporary name, synced, renamed). */
async function replaceFile(f: Folder, dir: string, name: string, text: string): Promise<void> {
  const tmp = f.tmpName(dir);
  try {
    await writeDurable(tmp, text);
    await rename(tmp, join(dir, name));
  } finally {
    await rm(tmp, { force: true });
  }
}

/** The store's id, jobs' records, start claims, expiry and the health probe. */
function jobMethods(
  f: Folder,
): Pick<JobStore, 'id' | 'migrate' | 'getJob' | 'findJobs' | 'expire' | 'claimStart' | 'probe'> {
  const { root, jobsDir } = f;
  let identity: Promise<StoreFile> | undefined;
  const id = async () => {
    identity ??= f.storeFile().catch((error: unknown) => {
      identity = undefined; // a failed read is tried again by the next call
      throw error;
    });
    return (await identity).id;
  };
  return {
    id,
    async migrate() {
      await id();
    },
    getJob: f.getJob,

    async findJobs(jobId) {
      return (await allJobs(f))
        .map(({ record }) => record)
        .filter((r): r is JobRecord => r !== undefined && (r.jobId === jobId || r.parentJobId === jobId))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    },

    async expire(before) {
      let jobs = 0;
      for (const { folder, record } of await allJobs(f)) {
        if (record) {
          if (Date.parse(record.createdAt) < before.getTime() && (await remove(f, folder, jobsDir))) jobs++;
          continue;
        }
        // A folder whose record was never written (a crash between the two): by its own age.
        const st = await stat(folder).catch(orMissing(() => undefined));
        if (st && st.mtimeMs < before.getTime()) await remove(f, folder, jobsDir);
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
      await f.storeFile();
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
      await f.storeFile();
      const tmp = f.tmpName(jobsDir, 'probe-');
      try {
        await writeDurable(tmp, 'probe');
        if ((await readFile(tmp, 'utf8')) !== 'probe')
          throw new Error(`the job store ${root} read back another text`);
      } finally {
        await rm(tmp, { force: true });
      }
    },
  };
}

/** Snapshots: written into a temporary folder, renamed into place by the first commit. */
function snapshotMethods(
  f: Folder,
): Pick<JobStore, 'getSnapshot' | 'createSnapshot' | 'readRecords' | 'deleteSnapshot'> {
  return {
    async getSnapshot(job) {
      const meta = await readJson<SnapshotMeta>(join(f.snapshotDir(job), META));
      return meta && snapshotMeta(meta);
    },

    async createSnapshot(job) {
      await ensureJob(f, job);
      const tmp = f.tmpName(f.jobDir(job), 'snapshot-');
      await mkdir(tmp, { mode: PRIVATE_DIR });
      return snapshotWriter(tmp, f.snapshotDir(job));
    },

    readRecords: (job, from, to) => readRecords(f.snapshotDir(job), from, to),

    async deleteSnapshot(job) {
      const folder = f.jobDir(job);
      await remove(f, f.snapshotDir(job), folder);
      // The job has ended: a snapshot still being written for it (a crashed attempt's) is garbage.
      const names = await readdir(folder).catch(orMissing(() => [] as string[]));
      for (const name of names)
        if (name.startsWith(`${TMP}snapshot-`))
          await rm(join(folder, name), { recursive: true, force: true });
    },
  };
}

/** Records [from, to) of the snapshot in `dir`: two positioned reads (the index's offsets, then the text). */
async function readRecords(dir: string, from: number, to: number): Promise<string[]> {
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
}

/** Outcome parts, the report merged from them, and the end of a job (its merge rule kept). */
function outcomeMethods(
  f: Folder,
): Pick<JobStore, 'writePart' | 'readOutcomes' | 'countOutcomes' | 'finalize'> {
  return {
    async writePart(job, part, lines) {
      await ensureJob(f, job);
      const dir = f.partsDir(job);
      await mkdir(dir, { recursive: true, mode: PRIVATE_DIR });
      const id: PartId = { seq: part.seq, attempt: part.attempt, piece: part.piece ?? 0 };
      for (const [name, value] of Object.entries(id))
        if (!Number.isSafeInteger(value) || value < 0)
          throw new Error(`part ${name} must be a whole number ≥ 0, not ${value}`);
      const header: PartHeader = { part: { ...id, kind: part.kind } };
      const text = [header, ...lines].map((l) => JSON.stringify(l) + '\n').join('');
      await replaceFile(f, dir, partName(id), text);
    },

    async readOutcomes(job, page = {}) {
      const all = await merged(f, job, await ruleFor(f, job, page));
      const from = page.afterLine === undefined ? 0 : firstAfter(all, page.afterLine);
      const limit = Math.max(0, page.limit ?? Infinity);
      // Copies: the merge may be cached for the next page.
      const lines = all.slice(from, from + limit).map((line) => ({ ...line }));
      if (from + lines.length >= all.length) return { lines };
      return { lines, nextAfterLine: lines.at(-1)?.line ?? page.afterLine ?? 0 } satisfies OutcomePage;
    },

    async countOutcomes(job, rule) {
      return (await merged(f, job, await ruleFor(f, job, rule))).length;
    },

    async finalize(job, end) {
      const record = await ensureJob(f, job);
      const rule: MergeRule = { accepted: end.accepted, upToSeq: end.upToSeq };
      const lines = (await merged(f, job, rule)).length;
      const ended: JobRecord = {
        ...record,
        endedAt: record.endedAt ?? new Date().toISOString(),
        state: end.state,
        ...(rule.accepted !== undefined && { accepted: rule.accepted }),
        ...(rule.upToSeq !== undefined && { upToSeq: rule.upToSeq }),
      };
      if (rule.accepted === undefined) delete ended.accepted;
      if (rule.upToSeq === undefined) delete ended.upToSeq;
      await replaceFile(f, f.jobDir(job), JOB_FILE, JSON.stringify(ended, null, 2) + '\n');
      return { lines };
    },
  };
}

/** The rule readers merge by: the stored one once the job ended, else the caller's. */
async function ruleFor(f: Folder, key: JobKey, rule: MergeRule | undefined): Promise<MergeRule> {
  const record = await f.getJob(key);
  if (record?.state) return { accepted: record.accepted, upToSeq: record.upToSeq };
  return { accepted: rule?.accepted, upToSeq: rule?.upToSeq };
}

/**
 * The merged report, sorted by line: for each line, the outcome in the highest seq among the accepted
 * parts (the accepted attempt of each seq, default 1; seqs above `upToSeq` ignored).
 */
async function merged(f: Folder, key: JobKey, rule: MergeRule): Promise<ItemResult[]> {
  const dir = f.partsDir(key);
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
  const cached = f.merges.get(dir);
  if (cached?.signature === signature) return cached.lines;

  const byLine = new Map<number, ItemResult>();
  for (const { name } of parts) {
    // A part removed since the listing (the job expired meanwhile) counts as empty.
    const text = await readFile(join(dir, name), 'utf8').catch(orMissing(() => ''));
    for (const result of parsePart(text)) byLine.set(result.line, result);
  }
  const lines = [...byLine.values()].sort((a, b) => a.line - b.line);
  remember(f.merges, dir, { signature, lines });
  return lines;
}

/**
 * Recent merges (a report read page by page merges the same parts once), a few at a time and for a
 * short while: a worker does not keep reports in memory.
 */
function remember(merges: Folder['merges'], dir: string, merge: { signature: string; lines: ItemResult[] }) {
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
