// The per-item report: one NDJSON line per feed line, written by the worker next to the job's other files.
//
// While a job runs, every activity that decides outcomes writes them to a "part" of its own
// (`<report>.parts/<part>.ndjson`), named by the workflow: a retried attempt rewrites the same part
// (never a duplicate line), and only the part of the attempt whose result the workflow accepted is kept
// (a zombie attempt's part is not). When the job ends, `finalizeReport` merges the parts into
// `<report>.ndjson`, sorted by line, last part winning, and removes them. Report lines never travel
// through history: that is most of a job's history bytes. `readReport` reads a job's report for the
// client side (client.ts, the CLI): the merged file, or the parts of a job still running.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ItemResult } from '../types.ts';

/** Where an activity writes its outcomes: the job's report and the part's name (given by the workflow). */
export interface ReportPart {
  reportDir: string;
  jobId: string;
  /** Sorts in write order: `<run>-<seq>-<kind>` with zero-padded numbers. */
  part: string;
}

/** Parts written by a retried activity attempt that the workflow accepted (attempt 1 otherwise). */
export type AcceptedAttempts = Record<string, number>;

const safe = (s: string) => s.replace(/[^\w.-]/g, '_');

/**
 * `<reportDir>/<jobId>.ndjson`; a shop's part of a many-shop job (`<jobId>/<shopId>`) goes to
 * `<reportDir>/<jobId>/<shopId>.ndjson`.
 */
export function reportPath(reportDir: string, jobId: string): string {
  const [job, ...rest] = jobId.split('/');
  return rest.length
    ? join(reportDir, safe(job!), `${safe(rest.join('/'))}.ndjson`)
    : join(reportDir, `${safe(job!)}.ndjson`);
}

/** The job's files beside its report: `<report>.parts/`, `<report>.snapshot/`. */
export const jobFile = (reportDir: string, jobId: string, suffix: string) =>
  reportPath(reportDir, jobId).replace(/\.ndjson$/, suffix);

const partsDir = (reportDir: string, jobId: string) => jobFile(reportDir, jobId, '.parts');

/** Writes the lines through a temporary file renamed into place: a reader never sees half a file. */
async function writeLines(path: string, results: ItemResult[], tmp = `${path}.${process.pid}.tmp`) {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(tmp, results.map((r) => JSON.stringify(r) + '\n').join(''));
  await rename(tmp, path);
}

/** Writes (or rewrites: idempotent) one part. `attempt` > 1 marks a retried activity's own part. */
export async function writeReportPart(at: ReportPart, results: ItemResult[], attempt = 1): Promise<void> {
  if (results.length === 0) return;
  const dir = partsDir(at.reportDir, at.jobId);
  const name = `${safe(at.part)}${attempt > 1 ? `~a${attempt}` : ''}.ndjson`;
  await writeLines(join(dir, name), results, join(dir, `.${name}.${process.pid}.tmp`));
}

const parse = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ItemResult);

/**
 * The report's lines so far: the merged report when the job has ended, else its parts merged (for a
 * running job, a retried part's newest attempt stands in for the one the workflow will accept).
 */
export async function readReportLines(
  reportDir: string,
  jobId: string,
  accepted?: AcceptedAttempts,
): Promise<ItemResult[]> {
  const final = await readFile(reportPath(reportDir, jobId), 'utf8').catch(() => undefined);
  const dir = partsDir(reportDir, jobId);
  const names = (await readdir(dir).catch(() => [] as string[])).filter(
    (n) => n.endsWith('.ndjson') && !n.startsWith('.'),
  );
  // The merged report stands once written: a part that appears after it (a zombie attempt) changes nothing.
  if (final !== undefined) return parse(final);
  // Per part, the attempt that counts: the accepted one, else attempt 1 — or, with no list, the newest.
  const chosen = new Map<string, { name: string; attempt: number }>();
  for (const name of names) {
    const m = /^(.*?)(?:~a(\d+))?\.ndjson$/.exec(name)!;
    const base = m[1]!;
    const attempt = m[2] ? Number(m[2]) : 1;
    const want = accepted ? (accepted[base] ?? 1) : undefined;
    const prev = chosen.get(base);
    if (want !== undefined ? attempt === want : !prev || attempt > prev.attempt)
      chosen.set(base, { name, attempt });
  }
  const byLine = new Map<number, ItemResult>();
  for (const base of [...chosen.keys()].sort()) {
    const text = await readFile(join(dir, chosen.get(base)!.name), 'utf8').catch(() => '');
    for (const r of parse(text)) byLine.set(r.line, r);
  }
  return [...byLine.values()].sort((a, b) => a.line - b.line);
}

/** The per-item report: `<reportDir>/<jobId>.ndjson`, or one file per shop for a many-shop job. */
export async function readReport(
  reportDir: string,
  jobId: string,
): Promise<(ItemResult & { shopId?: string })[]> {
  const single = await readReportLines(reportDir, jobId);
  if (single.length > 0) return single;
  // A many-shop job: `<reportDir>/<jobId>/<shopId>.ndjson` (or `.parts/` while the shop runs).
  const dir = join(reportDir, safe(jobId));
  const names = await readdir(dir).catch(() => [] as string[]);
  const shops = new Set(
    names.map((f) => /^(.*)\.(ndjson|parts)$/.exec(f)?.[1]).filter((s) => s !== undefined),
  );
  const out: (ItemResult & { shopId?: string })[] = [];
  for (const shopId of [...shops].sort())
    out.push(...(await readReportLines(reportDir, `${jobId}/${shopId}`)).map((r) => ({ ...r, shopId })));
  return out;
}

/** Merges the parts into `<report>.ndjson` (sorted by line) and removes them. Idempotent. */
export async function finalizeReportFiles(
  reportDir: string,
  jobId: string,
  accepted: AcceptedAttempts,
  snapshotDir?: string,
): Promise<{ lines: number }> {
  const path = reportPath(reportDir, jobId);
  const done = await readFile(path, 'utf8').catch(() => undefined);
  if (done !== undefined) {
    // Merged already (a retried call): only the parts are left to remove.
    await rm(partsDir(reportDir, jobId), { recursive: true, force: true });
    if (snapshotDir) await rm(snapshotDir, { recursive: true, force: true });
    return { lines: parse(done).length };
  }
  const lines = await readReportLines(reportDir, jobId, accepted);
  await writeLines(path, lines);
  await rm(partsDir(reportDir, jobId), { recursive: true, force: true });
  if (snapshotDir) await rm(snapshotDir, { recursive: true, force: true });
  return { lines: lines.length };
}

export function createReportActivities() {
  return {
    /** The workflow's own outcomes (verified, out of tries, cancelled): one part, rewritten on retry. */
    async appendReport(at: ReportPart, results: ItemResult[]): Promise<void> {
      await writeReportPart(at, results);
    },
    /** A whole report in one write (a schedule's run): rewritten, never appended, on retry. */
    async writeReport(reportDir: string, jobId: string, results: ItemResult[]): Promise<void> {
      const path = reportPath(reportDir, jobId);
      await writeLines(path, results);
    },
    /** The job has ended: one sorted report file, the parts removed (and the job's own snapshot). */
    async finalizeReport(
      reportDir: string,
      jobId: string,
      accepted: AcceptedAttempts,
      snapshotDir?: string,
    ): Promise<{ lines: number }> {
      return finalizeReportFiles(reportDir, jobId, accepted, snapshotDir);
    },
  };
}
