// Starting, watching and summing up bulk jobs: what `bulk`, `jobs …` and `dev` share.
import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import type { Client } from '@temporalio/client';
import {
  BULK_OPERATIONS,
  bulkWorkflowId,
  checkFeedFile,
  emptyReportCounts,
  redactSource,
  type BulkOperation,
  type BulkProgress,
  type FeedRef,
} from '@selling-kit/temporal-workflows';
import type { CliConfig } from './config.ts';
import { CliError, EXIT } from './errors.ts';
import { checkFeedUrl } from './preflight.ts';
import {
  closedProgress,
  describeJob,
  hasFigures,
  liveProgress,
  NoWorkerError,
  type JobView,
} from './job-progress.ts';
import { duration, type Output } from './output.ts';
import { exportPathOf, getReport, reportSoFar } from './report.ts';

/** The CLI's operation names (kebab-case, as typed) → the workflow's: the job contract's BULK_OPERATIONS. */
export const OPERATIONS: Readonly<Record<string, BulkOperation>> = BULK_OPERATIONS;

export function newJobId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `job-${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** A feed file or URL named on the command line, checked before anything starts. */
export function feedRef(file: string, format?: string): FeedRef {
  const isUrl = /^https?:\/\//i.test(file);
  if (isUrl && !URL.canParse(file))
    throw new CliError('feed_url_invalid', `not a valid feed URL: ${redactSource(file)}`, EXIT.usage);
  const path = isUrl ? file : resolve(file);
  if (!isUrl && !existsSync(path))
    throw new CliError('feed_not_found', `feed file not found: ${path}`, EXIT.usage);
  const ext = extname(new URL(path, 'file:///').pathname).slice(1).toLowerCase();
  const chosen = (format ?? (ext === 'jsonl' ? 'ndjson' : ext)) as FeedRef['format'];
  if (!['csv', 'json', 'ndjson'].includes(chosen))
    throw new CliError(
      'feed_format',
      `cannot tell the feed's format from "${redactSource(path)}": use --format csv|json|ndjson`,
      EXIT.usage,
    );
  return { path, format: chosen };
}

export interface FeedCheck {
  total: number;
  valid: number;
  invalid: number;
}

/**
 * Checks a feed before a job starts. A URL must answer 2xx (unless `url: false`: `bulk --no-check`); the
 * worker reads it. A local feed is read once with the worker's own reader and rules: a file that cannot
 * be parsed or is not text stops here (nothing started, nothing half-done); invalid items are counted
 * (the job reports them, too).
 */
export async function checkFeed(
  feed: FeedRef,
  operation: BulkOperation,
  opts: { url?: boolean } = {},
): Promise<FeedCheck | undefined> {
  if (/^https?:\/\//i.test(feed.path)) {
    if (opts.url !== false) await checkFeedUrl(feed.path);
    return undefined;
  }
  try {
    const checked = await checkFeedFile(feed, operation);
    return { total: checked.total, valid: checked.valid, invalid: checked.invalid.length };
  } catch (e) {
    throw new CliError('feed_unreadable', (e as Error).message, EXIT.usage);
  }
}

export interface JobSummary {
  jobId: string;
  state: string;
  reason?: string;
  /** Items in the feed; null when unknown (a job that failed or was terminated, no figures). */
  total: number | null;
  ok: number;
  failed: number;
  invalid: number;
  cancelled: number;
  /** Creates in doubt when the job was cancelled: they may or may not exist (see the report). */
  unknown: number;
  /** The report's export: `<report folder>/<job>.ndjson`, or a many-shop job's folder of one file per shop. */
  report: string;
  ui: string;
}

export function jobUiUrl(config: CliConfig, jobId: string): string {
  return `${config.uiUrl}/namespaces/${config.namespace}/workflows/${encodeURIComponent(bulkWorkflowId(jobId))}`;
}

/**
 * An ended job's summary: its state and figures, the report's counts read from a worker (and exported
 * to the report folder: `report` is where), or from the last export when no worker answers.
 */
export async function summarize(
  client: Client,
  config: CliConfig,
  out: Output,
  jobId: string,
  progress: JobView,
): Promise<JobSummary> {
  const desc = await describeJob(client, jobId);
  let counts = emptyReportCounts();
  let report = exportPathOf(config, jobId, Boolean(progress.shops));
  try {
    const read = await getReport(client, config, out, jobId, {
      taskQueue: desc.taskQueue,
      keep: () => false,
      ended: { closeTime: desc.closeTime, view: progress },
    });
    counts = read.counts;
    report = read.path;
  } catch (e) {
    // A job that stopped before it wrote anything has no report: its counts are 0.
    if (!(e instanceof CliError)) throw e;
    if (e.code !== 'report_not_found') out.info(`the report could not be read: ${e.message}`);
  }
  return {
    jobId,
    state: progress.state,
    ...(progress.reason ? { reason: progress.reason } : {}),
    total: progress.total ?? null,
    ok: counts.ok,
    failed: counts.failed,
    invalid: counts.invalid,
    cancelled: counts.cancelled,
    unknown: counts.unknown,
    report,
    ui: jobUiUrl(config, jobId),
  };
}

export function exitCodeOf(summary: JobSummary): number {
  if (summary.state !== 'finished') return EXIT.jobStopped;
  return summary.failed + summary.invalid + summary.unknown > 0 ? EXIT.itemsFailed : EXIT.ok;
}

export function summaryLines(s: JobSummary): string[] {
  return [
    `job ${s.jobId} ${s.state}${s.reason ? ` (${s.reason})` : ''}: ${s.ok} ok, ${s.failed} failed, ${s.invalid} invalid, ${s.cancelled} cancelled${s.unknown ? `, ${s.unknown} unknown` : ''}${s.total === null ? '' : ` of ${s.total}`}`,
    `report:      ${s.report}`,
    `Temporal UI: ${s.ui}`,
  ];
}

/**
 * Follows a job until it ends: a progress bar on a terminal, a line every few seconds otherwise, nothing
 * with --json. A job already closed gives its final state at once; a running one that no worker answers
 * for is a one-line error (exit 8); a worker that goes away while watching is waited for, with a note.
 * Ctrl-C stops watching only; the job goes on in Temporal.
 */
export async function watchJob(
  client: Client,
  config: CliConfig,
  jobId: string,
  out: Output,
  opts: { pollMs?: number; expectedTotal?: number } = {},
): Promise<JobView> {
  const pollMs = opts.pollMs ?? 500;
  const handle = client.workflow.getHandle(bulkWorkflowId(jobId));
  const desc = await describeJob(client, jobId);
  if (desc.status.name !== 'RUNNING') return closedProgress(client, jobId, desc);
  const start = await liveProgress(client, jobId, desc.taskQueue);
  if (!start.progress)
    throw new NoWorkerError(
      jobId,
      desc.taskQueue,
      start.polling,
      await reportSoFar(client, config, jobId, { taskQueue: desc.taskQueue, ask: false }),
    );
  let progress: BulkProgress = start.progress;
  const tty = Boolean(process.stderr.isTTY);
  const bar = out.json
    ? undefined
    : new cliProgress.SingleBar(
        {
          stream: process.stderr,
          format:
            '{bar} {value}/{total} | ok {ok} | failed {failed} | cancelled {cancelled} | {speed} items/s | ETA {etaText} | {state}',
          noTTYOutput: !tty,
          notTTYSchedule: 2000,
          hideCursor: tty,
          etaBuffer: 20,
        },
        cliProgress.Presets.shades_classic,
      );
  let interrupted = false;
  const onSigint = () => void (interrupted = true);
  process.once('SIGINT', onSigint);
  let first: { at: number; n: number } | undefined;
  let silent = false;
  try {
    const total = (p: BulkProgress) => Math.max(p.total || (opts.expectedTotal ?? 0), 1);
    bar?.start(total(progress), 0, fields(progress, 0));
    for (;;) {
      if (interrupted)
        throw new CliError(
          'interrupted',
          `stopped watching job ${jobId}; it goes on in Temporal`,
          EXIT.interrupted,
          `follow it again with \`selling-kit jobs watch ${jobId}\``,
        );
      // The execution's status decides when it is over; the query only feeds the bar.
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') {
        // The workflow's result is the final word; a failed or terminated execution has none.
        const final = await closedProgress(client, jobId, { status }, progress);
        if (hasFigures(final)) bar?.update(handledOf(final), fields(final, 0));
        return final;
      }
      const live = await liveProgress(client, jobId, desc.taskQueue).catch(() => ({ polling: true }));
      if ('progress' in live && live.progress) {
        progress = live.progress;
        silent = false;
      } else if (!silent) {
        silent = true;
        out.info(
          `\nno worker answers on task queue ${desc.taskQueue}: waiting for one (start it with \`selling-kit worker\`)`,
        );
      }
      // Items per second since watching began: a paced job moves in windows, so a short average
      // would swing between a burst and zero. Cancelled items were never sent: not counted.
      const sent = progress.done + progress.failed;
      first ??= { at: Date.now(), n: sent };
      const speed =
        Date.now() > first.at ? ((sent - first.n) * 1000) / Math.max(1, Date.now() - first.at) : 0;
      bar?.setTotal(total(progress));
      bar?.update(handledOf(progress), fields(progress, speed));
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
    bar?.stop();
  }
}

/** Items with an outcome: done, failed or cancelled (older workflows' results have no `cancelled`). */
const handledOf = (p: BulkProgress) => p.done + p.failed + (p.cancelled ?? 0);

function fields(p: BulkProgress, speed: number) {
  return {
    ok: p.done,
    failed: p.failed,
    cancelled: p.cancelled ?? 0,
    speed: speed.toFixed(1),
    etaText: p.state === 'running' ? duration(p.etaMs) : '-',
    state: p.reason ? `${p.state} (${p.reason})` : p.state,
  };
}
