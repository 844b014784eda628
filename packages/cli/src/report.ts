// A job's report as the CLI reads it. The outcomes live in the workers' job store (on another host, in
// PostgreSQL): the CLI asks a worker of the job's task queue through Temporal (temporal-workflows'
// `exportReport`, a short report workflow per page) and writes the export the README documents as it
// reads — `<report folder>/<job>.ndjson`, a many-shop job one file per shop. With no worker to ask, the
// last export stands in (said so); an ended job whose export was written after it ended, with every line
// its result counts, is read from the export without asking anyone.
import type { Client } from '@temporalio/client';
import {
  emptyReportCounts,
  exportReport,
  JobReportError,
  readReportExport,
  readReportSummary,
  reportExportPath,
  type ReportCounts,
  type ReportLine,
} from '@selling-kit/temporal-workflows';
import type { CliConfig } from './config.ts';
import { CliError, EXIT } from './errors.ts';
import { hasFigures, liveWorkers, QUERY_DEADLINE_MS, type JobView } from './job-progress.ts';
import type { Output } from './output.ts';

export interface ReportRead {
  /** The lines `keep` kept (all by default), a many-shop job's with `shopId`. */
  lines: ReportLine[];
  /** All the report's lines by status. */
  counts: ReportCounts;
  total: number;
  /** The export: a file, or a many-shop job's folder. */
  path: string;
  /** Read from a worker now, or from the last export (no worker answered). */
  from: 'workers' | 'export';
  /** When the export read was written. */
  writtenAt?: Date;
}

/** What the CLI knows of an ended job: when it closed and its final figures (from its result). */
export interface Ended {
  closeTime?: Date;
  view?: JobView;
}

const countsOf = (lines: ReportLine[]): ReportCounts => {
  const counts = emptyReportCounts();
  for (const l of lines) counts[l.status] = (counts[l.status] ?? 0) + 1;
  return counts;
};

/** The figures for people: "120 ok, 2 failed, … in the report". */
export const countsText = (c: ReportCounts) =>
  `${c.ok} ok, ${c.failed} failed, ${c.invalid} invalid, ${c.cancelled} cancelled${c.unknown ? `, ${c.unknown} unknown` : ''} in the report`;

async function fromExport(
  config: CliConfig,
  jobId: string,
  keep: (l: ReportLine) => boolean,
): Promise<ReportRead | undefined> {
  const exported = await readReportExport(config.reportDir, jobId);
  if (!exported) return undefined;
  return {
    lines: exported.lines.filter(keep),
    counts: countsOf(exported.lines),
    total: exported.lines.length,
    path: exported.path,
    from: 'export',
    writtenAt: exported.writtenAt,
  };
}

/**
 * The export stands for the report when the job had ended before it was written and it has every line
 * the job's result counts (`total − pending`): a finished job's report never changes.
 */
function isFinal(read: ReportRead | undefined, ended: Ended | undefined): boolean {
  const view = ended?.view;
  if (!read?.writtenAt || !ended?.closeTime || !view || !hasFigures(view)) return false;
  return read.writtenAt >= ended.closeTime && read.total === view.total - (view.pending ?? 0);
}

export interface ReadOptions {
  taskQueue: string;
  keep?: (l: ReportLine) => boolean;
  /** The job has ended: its final export, if there is one, is read without asking a worker. */
  ended?: Ended;
  /** The job's shops (the worker reads a report only for a reader naming them); default: the job's answer. */
  shopIds?: string[];
}

/**
 * The report, from a worker (written to the export as it is read) or, with none answering, from the last
 * export (a note says so). Errors: no such job in the workers' store (exit 4); no worker and no export
 * (exit 8).
 */
export async function getReport(
  client: Client | undefined,
  config: CliConfig,
  out: Output,
  jobId: string,
  opts: ReadOptions,
): Promise<ReportRead> {
  const keep = opts.keep ?? (() => true);
  const exported = await fromExport(config, jobId, keep);
  if (exported && isFinal(exported, opts.ended)) {
    out.info(`the export written after job ${jobId} ended: ${exported.path}`);
    return exported;
  }
  let why = 'Temporal cannot be reached';
  if (client) {
    why = `no worker is polling task queue ${opts.taskQueue}`;
    if ((await liveWorkers(client, opts.taskQueue)) > 0) {
      const lines: ReportLine[] = [];
      try {
        const done = await exportReport(client, jobId, config.reportDir, {
          taskQueue: opts.taskQueue,
          shopIds: opts.shopIds,
          onLine: (l) => void (keep(l) && lines.push(l)),
        });
        return { lines, counts: done.counts, total: done.lines, path: done.path, from: 'workers' };
      } catch (e) {
        if (!(e instanceof JobReportError)) throw e;
        if (e.reason === 'not_found')
          throw new CliError(
            'report_not_found',
            e.message,
            EXIT.notFound,
            'list jobs with `selling-kit jobs list`',
          );
        if (e.reason === 'failed') throw new CliError('report_unreadable', e.message, EXIT.unexpected);
        // The worker turned the reader away: the shops named are not the job's, or not the key's.
        if (e.reason === 'refused') throw new CliError('report_refused', e.message, EXIT.usage);
        why = `no worker on task queue ${opts.taskQueue} answered`;
      }
    }
  }
  if (exported) {
    out.info(`${why}: the report as exported ${exported.writtenAt!.toISOString()} (${exported.path})`);
    return exported;
  }
  throw new CliError(
    'no_worker',
    `job ${jobId}'s report is read by a worker, and ${why}: start one with \`selling-kit worker\``,
    EXIT.noWorker,
  );
}

/**
 * The report's figures so far ("… in the report"), or undefined when nothing is known. `ask`: read them
 * from a worker (a short wait); otherwise — no worker answered a moment ago — from the last export only.
 */
export async function reportSoFar(
  client: Client,
  config: CliConfig,
  jobId: string,
  opts: { taskQueue: string; ask: boolean },
): Promise<string | undefined> {
  if (opts.ask && (await liveWorkers(client, opts.taskQueue)) > 0) {
    try {
      const summary = await readReportSummary(client, jobId, {
        taskQueue: opts.taskQueue,
        timeout: QUERY_DEADLINE_MS,
      });
      if (!summary.found) return undefined;
      const counts = emptyReportCounts();
      for (const j of summary.jobs ?? [])
        for (const [status, n] of Object.entries(j.counts ?? {})) counts[status as keyof ReportCounts] += n;
      return Object.values(counts).some((n) => n > 0) ? countsText(counts) : undefined;
    } catch (e) {
      if (!(e instanceof JobReportError)) throw e;
    }
  }
  const exported = await fromExport(config, jobId, () => true);
  if (!exported || exported.total === 0) return undefined;
  return `${countsText(exported.counts)} exported ${exported.writtenAt!.toISOString()}`;
}

/** Where the export of `jobId` is (or would be): its file, or a many-shop job's folder. */
export const exportPathOf = (config: CliConfig, jobId: string, shops: boolean) =>
  reportExportPath(config.reportDir, jobId, shops);
