// The client side of job reports: a job's outcomes read through Temporal, a page per run of the report
// workflow (workflows/job-report.ts) on any worker of the task queue — the worker's job store is the
// deployment's shared one, so this host needs no disk of the worker's and the job input no path. Pages
// travel through the client's data converter (the codec seals them) like every other payload.
// `exportReport` writes the NDJSON file the README documents: `<dir>/<jobId>.ndjson`, one line per item
// — a many-shop job one file per shop, `<dir>/<jobId>/<shopId>.ndjson` — through temporary files renamed
// into place (a reader never sees half a file).
import { createHash, randomUUID } from 'node:crypto';
import { innermostMessage, noWorkerMessage, runOnWorker } from './on-worker.ts';
import { mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure, type Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time.js';
import {
  DEFAULT_TASK_QUEUE,
  JOB_REPORT_TIMEOUT,
  jobReportWorkflowId,
  type JobReportInput,
  type JobReportJob,
  type JobReportPage,
  type ReportLine,
} from '../contract.ts';
import { jobReportWorkflow } from '../workflows/index.ts';
import { jobShops } from './job-shops.ts';
import { REPORT_REFUSED } from '../contract.ts';
import { INPUT_REFUSED } from '../workflows/refuse.ts';
import type { ItemResult } from '../types.ts';
import { PRIVATE_DIR, PRIVATE_FILE } from '../stores/job-store-local.ts';

export interface ReadReportOptions {
  /** The task queue whose workers read it (the job's own; default DEFAULT_TASK_QUEUE). */
  taskQueue?: string;
  /** Each page's run may wait this long for a worker (default JOB_REPORT_TIMEOUT). */
  timeout?: Duration;
  /** Smaller pages than the contract's limits (tests; a caller short of memory). */
  maxBytes?: number;
  limit?: number;
  /**
   * Every shop of the job (the worker reads a job only for a reader naming its shops). Absent: the job
   * answers them (`jobShops`): a job gone from Temporal needs them named.
   */
  shopIds?: string[];
}

/**
 * Why a report could not be read: no such job in the store (or, its shops not named, in Temporal), no
 * worker answered, the worker refused the reader (`refused`: its shops are not the job's, or its key is
 * not granted them), or the read failed.
 */
export class JobReportError extends Error {
  readonly reason: 'not_found' | 'no_worker' | 'refused' | 'failed';
  constructor(message: string, reason: JobReportError['reason']) {
    super(message);
    this.name = 'JobReportError';
    this.reason = reason;
  }
}

/** One page: a run of the report workflow, its result. */
async function readPage(
  client: Client,
  input: JobReportInput,
  opts: ReadReportOptions,
): Promise<JobReportPage> {
  return runOnWorker(
    client,
    jobReportWorkflow,
    {
      task: `read job ${input.jobId}'s report`,
      workflowId: (suffix) => jobReportWorkflowId(input.jobId, suffix),
      args: [input],
      taskQueue: opts.taskQueue,
      timeout: opts.timeout ?? JOB_REPORT_TIMEOUT,
    },
    {
      noWorker: (message) => new JobReportError(message, 'no_worker'),
      // Refused by the worker: the shops named are not the job's (the activity), or the reader's key is
      // not granted them (the codec: the run fails at once, InputRefused).
      failed: (e) =>
        new JobReportError(
          `job ${input.jobId}'s report could not be read: ${innermostMessage(e)}`,
          [REPORT_REFUSED, INPUT_REFUSED].includes(failureType(e) ?? '') ? 'refused' : 'failed',
        ),
    },
  );
}

/** The type of the innermost application failure of a chain. */
function failureType(e: Error): string | undefined {
  let type: string | undefined;
  for (let c: unknown = e; c instanceof Error; c = c.cause)
    if (c instanceof ApplicationFailure) type = c.type ?? type;
  return type;
}

/** The shops a read names: the caller's, or the job's own answer (within the read's timeout). */
async function shopsOf(client: Client, jobId: string, opts: ReadReportOptions): Promise<string[]> {
  if (opts.shopIds) return opts.shopIds;
  const taskQueue = opts.taskQueue ?? DEFAULT_TASK_QUEUE;
  const timeout = opts.timeout ?? JOB_REPORT_TIMEOUT;
  const deadline = Date.now() + msToNumber(timeout);
  try {
    return await client.withDeadline(deadline, () => jobShops(client, jobId));
  } catch (e) {
    if (e instanceof WorkflowNotFoundError)
      throw new JobReportError(
        `no job "${jobId}" in Temporal (an unknown id, or one Temporal no longer holds): name its shops (the CLI's --shops) to read its report from the job store`,
        'not_found',
      );
    if (Date.now() >= deadline)
      throw new JobReportError(noWorkerMessage(taskQueue, `answered for job ${jobId}`, timeout), 'no_worker');
    throw e;
  }
}

/** "no job X in the job store": names the store that answered (another store may hold it). */
const notFound = (page: JobReportPage) =>
  new JobReportError(
    `no job "${page.jobId}" in the job store (${page.store}): an unknown id, a job whose data has expired, or workers that do not share one store (SELLING_KIT_JOB_STORE)`,
    'not_found',
  );

/**
 * The report page by page (bounded in bytes: a 100,000-line report never sits in one payload or in
 * memory whole). The first page has the job's summary (`jobs`); an unknown job is one page, `found: false`.
 */
export async function* readReportPages(
  client: Client,
  jobId: string,
  opts: ReadReportOptions = {},
): AsyncGenerator<JobReportPage> {
  const shopIds = await shopsOf(client, jobId, opts);
  let cursor: string | undefined;
  do {
    const page = await readPage(
      client,
      { jobId, shopIds, cursor, maxBytes: opts.maxBytes, limit: opts.limit },
      opts,
    );
    yield page;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}

/** Every line of the job's report (a many-shop job's with `shopId`); JobReportError `not_found` if none. */
export async function readReport(
  client: Client,
  jobId: string,
  opts: ReadReportOptions = {},
): Promise<ReportLine[]> {
  const lines: ReportLine[] = [];
  for await (const page of readReportPages(client, jobId, opts)) {
    if (!page.found) throw notFound(page);
    lines.push(...page.lines);
  }
  return lines;
}

/** The job's records with their lines counted by status, no lines (`found: false` for an unknown job). */
export const readReportSummary = async (
  client: Client,
  jobId: string,
  opts: Omit<ReadReportOptions, 'maxBytes' | 'limit'> = {},
): Promise<JobReportPage> =>
  readPage(client, { jobId, shopIds: await shopsOf(client, jobId, opts), summaryOnly: true }, opts);

export type ReportCounts = Record<ItemResult['status'], number>;
export const emptyReportCounts = (): ReportCounts => ({
  ok: 0,
  failed: 0,
  invalid: 0,
  cancelled: 0,
  unknown: 0,
});

// --- The export ---

/** A name part as a file name: anything but letters, digits, `.`, `_`, `-` becomes `_`. */
const safe = (s: string) => s.replace(/[^\w.-]/g, '_');

/**
 * `<dir>/<jobId>.ndjson`; a many-shop job's shop (`<jobId>/<shopId>`) `<dir>/<jobId>/<shopId>.ndjson`;
 * with `shops`, the folder `<dir>/<jobId>/` of a many-shop job's files.
 */
export function reportExportPath(dir: string, jobId: string, shops = false): string {
  const [job, ...rest] = jobId.split('/');
  if (rest.length) return join(dir, safe(job!), `${safe(rest.join('/'))}.ndjson`);
  return shops ? join(dir, safe(job!)) + '/' : join(dir, `${safe(job!)}.ndjson`);
}

export interface ReportExport {
  /** The file, or a many-shop job's folder (ending in `/`). */
  path: string;
  files: string[];
  lines: number;
  counts: ReportCounts;
  /** The job's records as the first page gave them (a many-shop job: one per shop). */
  jobs: JobReportJob[];
}

/** One file being written: a temporary name until every page is in. */
interface Open {
  path: string;
  tmp: string;
  fh: FileHandle;
}

/**
 * Reads the job's report page by page and writes it to `dir` as NDJSON (one line per item; a many-shop
 * job one file per shop, its lines without `shopId`: the file names the shop), replacing an earlier
 * export whole. `onLine` sees every line as read (with `shopId`). JobReportError `not_found` if none.
 */
export async function exportReport(
  client: Client,
  jobId: string,
  dir: string,
  opts: ReadReportOptions & { onLine?: (line: ReportLine) => void } = {},
): Promise<ReportExport> {
  const files = new Map<string | undefined, Open>();
  const names = new Set<string>();
  const counts = emptyReportCounts();
  let jobs: JobReportJob[] = [];
  let lines = 0;
  let shops = false;
  const fileOf = async (shopId: string | undefined): Promise<Open> => {
    const known = files.get(shopId);
    if (known) return known;
    let path = reportExportPath(dir, shopId === undefined ? jobId : `${jobId}/${shopId}`);
    // Two shop ids that read alike as file names (`a/b`, `a_b`) each keep a file of their own.
    if (names.has(path))
      path = path.replace(
        /\.ndjson$/,
        `-${createHash('sha256').update(shopId!).digest('hex').slice(0, 8)}.ndjson`,
      );
    names.add(path);
    // The export is the owner's alone (0700 folders, a 0600 file): it names buyers' items and errors.
    await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR });
    const tmp = `${path}.${randomUUID().slice(0, 8)}.tmp`;
    const file = { path, tmp, fh: await open(tmp, 'w', PRIVATE_FILE) };
    files.set(shopId, file);
    return file;
  };
  try {
    for await (const page of readReportPages(client, jobId, opts)) {
      if (!page.found) throw notFound(page);
      if (page.jobs) {
        jobs = page.jobs;
        shops = jobs.some((j) => j.shopId !== undefined);
        // Every shop gets its file, also one with no line yet.
        for (const j of jobs) await fileOf(shops ? j.shopId : undefined);
      }
      const text = new Map<Open, string[]>();
      for (const line of page.lines) {
        opts.onLine?.(line);
        counts[line.status] = (counts[line.status] ?? 0) + 1;
        lines++;
        const { shopId, ...item } = line;
        const file = await fileOf(shops ? shopId : undefined);
        const batch = text.get(file) ?? [];
        batch.push(JSON.stringify(shops ? item : line) + '\n');
        text.set(file, batch);
      }
      for (const [file, batch] of text) await file.fh.write(batch.join(''));
    }
    for (const file of files.values()) {
      await file.fh.close();
      await rename(file.tmp, file.path);
    }
  } catch (e) {
    for (const file of files.values()) {
      await file.fh.close().catch(() => undefined);
      await rm(file.tmp, { force: true });
    }
    throw e;
  }
  return {
    path: reportExportPath(dir, jobId, shops),
    files: [...files.values()].map((f) => f.path),
    lines,
    counts,
    jobs,
  };
}

/**
 * The last export of the job's report in `dir` (what `exportReport` wrote; a many-shop job's files with
 * `shopId`), or undefined when there is none: a reader with no worker to ask.
 */
export async function readReportExport(
  dir: string,
  jobId: string,
): Promise<{ path: string; writtenAt: Date; lines: ReportLine[] } | undefined> {
  const parse = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ItemResult);
  const single = reportExportPath(dir, jobId);
  const file = await stat(single).catch(() => undefined);
  if (file?.isFile())
    return { path: single, writtenAt: file.mtime, lines: parse(await readFile(single, 'utf8')) };
  if (jobId.includes('/')) return undefined;
  const folder = reportExportPath(dir, jobId, true);
  const names = (await readdir(folder).catch(() => [] as string[]))
    .filter((n) => n.endsWith('.ndjson'))
    .sort();
  if (names.length === 0) return undefined;
  // The oldest file's time: the export is no newer than its first file.
  let writtenAt: Date | undefined;
  const lines: ReportLine[] = [];
  for (const name of names) {
    const path = join(folder, name);
    const at = (await stat(path)).mtime;
    if (!writtenAt || at < writtenAt) writtenAt = at;
    const shopId = name.replace(/\.ndjson$/, '');
    lines.push(...parse(await readFile(path, 'utf8')).map((l) => ({ ...l, shopId })));
  }
  return { path: folder, writtenAt: writtenAt!, lines };
}
