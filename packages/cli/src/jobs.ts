// Starting, watching and summing up bulk jobs: what `bulk`, `jobs …` and `dev` share.
import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  bulkWorkflowId,
  getProgress,
  readFeedChunk,
  readReport,
  reportPath,
  type BulkOperation,
  type BulkProgress,
  type FeedRef,
  type ItemResult,
} from '@selling-kit/temporal-workflows';
import type { CliConfig } from './config.ts';
import { CliError, EXIT } from './errors.ts';
import { duration, type Output } from './output.ts';

/** The CLI's operation names (kebab-case, as typed) → the workflow's. */
export const OPERATIONS: Record<string, BulkOperation> = {
  create: 'create',
  upsert: 'upsert',
  update: 'update',
  patch: 'patch',
  delete: 'delete',
  'mark-sold': 'mark_as_sold',
};

export function newJobId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `job-${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** A feed file or URL named on the command line, checked before anything starts. */
export function feedRef(file: string, format?: string): FeedRef {
  const isUrl = /^https?:\/\//i.test(file);
  const path = isUrl ? file : resolve(file);
  if (!isUrl && !existsSync(path))
    throw new CliError('feed_not_found', `feed file not found: ${path}`, EXIT.usage);
  const ext = extname(new URL(path, 'file:///').pathname).slice(1).toLowerCase();
  const chosen = (format ?? (ext === 'jsonl' ? 'ndjson' : ext)) as FeedRef['format'];
  if (!['csv', 'json', 'ndjson'].includes(chosen))
    throw new CliError(
      'feed_format',
      `cannot tell the feed's format from "${file}": use --format csv|json|ndjson`,
      EXIT.usage,
    );
  return { path, format: chosen };
}

export interface FeedCheck {
  total: number;
  valid: number;
  invalid: ItemResult[];
}

/**
 * Reads a local feed once with the worker's own reader and rules: a file that cannot be parsed stops
 * here (nothing started, nothing half-done); invalid items are counted (the job reports them, too).
 */
export async function checkFeed(feed: FeedRef, operation: BulkOperation): Promise<FeedCheck | undefined> {
  if (/^https?:\/\//i.test(feed.path)) return undefined; // read by the worker, chunk by chunk
  try {
    const chunk = await readFeedChunk(feed, 0, Number.MAX_SAFE_INTEGER, operation);
    return { total: chunk.total, valid: chunk.items.length, invalid: chunk.invalid };
  } catch (e) {
    throw new CliError('feed_unreadable', (e as Error).message, EXIT.usage);
  }
}

export interface JobSummary {
  jobId: string;
  state: string;
  reason?: string;
  total: number;
  ok: number;
  failed: number;
  invalid: number;
  cancelled: number;
  report: string;
  ui: string;
}

export function jobUiUrl(config: CliConfig, jobId: string): string {
  return `${config.uiUrl}/namespaces/${config.namespace}/workflows/${encodeURIComponent(bulkWorkflowId(jobId))}`;
}

export async function summarize(
  config: CliConfig,
  jobId: string,
  progress: BulkProgress,
): Promise<JobSummary> {
  const items = await readReport(config.reportDir, jobId);
  const count = (s: ItemResult['status']) => items.filter((i) => i.status === s).length;
  const single = reportPath(config.reportDir, jobId);
  return {
    jobId,
    state: progress.state,
    ...(progress.reason ? { reason: progress.reason } : {}),
    total: progress.total,
    ok: count('ok'),
    failed: count('failed'),
    invalid: count('invalid'),
    cancelled: count('cancelled'),
    report: progress.shops ? single.replace(/\.ndjson$/, '/') : single,
    ui: jobUiUrl(config, jobId),
  };
}

export function exitCodeOf(summary: JobSummary): number {
  if (summary.state !== 'finished') return EXIT.jobStopped;
  return summary.failed + summary.invalid > 0 ? EXIT.itemsFailed : EXIT.ok;
}

export function summaryLines(s: JobSummary): string[] {
  return [
    `job ${s.jobId} ${s.state}${s.reason ? ` (${s.reason})` : ''}: ${s.ok} ok, ${s.failed} failed, ${s.invalid} invalid, ${s.cancelled} cancelled of ${s.total}`,
    `report:      ${s.report}`,
    `Temporal UI: ${s.ui}`,
  ];
}

/** The job's progress, or a clear "no such job". */
export async function progressOf(client: Client, jobId: string): Promise<BulkProgress> {
  try {
    return await getProgress(client, jobId);
  } catch (e) {
    if (e instanceof WorkflowNotFoundError || /not found/i.test((e as Error).message))
      throw new CliError(
        'job_not_found',
        `no job "${jobId}"`,
        EXIT.notFound,
        'list jobs with `selling-kit jobs list`',
      );
    throw e;
  }
}

/**
 * Follows a job until it ends: a progress bar on a terminal, a line every few seconds otherwise, nothing
 * with --json. Ctrl-C stops watching only; the job goes on in Temporal.
 */
export async function watchJob(
  client: Client,
  jobId: string,
  out: Output,
  opts: { pollMs?: number; expectedTotal?: number } = {},
): Promise<BulkProgress> {
  const pollMs = opts.pollMs ?? 500;
  const handle = client.workflow.getHandle(bulkWorkflowId(jobId));
  const tty = Boolean(process.stderr.isTTY);
  const bar = out.json
    ? undefined
    : new cliProgress.SingleBar(
        {
          stream: process.stderr,
          format:
            '{bar} {value}/{total} | ok {ok} | failed {failed} | {speed} items/s | ETA {etaText} | {state}',
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
  try {
    let progress = await progressOf(client, jobId);
    bar?.start(Math.max(progress.total || (opts.expectedTotal ?? 0), 1), 0, fields(progress, 0));
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
      if (status.name !== 'RUNNING') break;
      progress = await progressOf(client, jobId).catch(() => progress);
      const handled = progress.done + progress.failed;
      // Items per second since watching began: a paced job moves in windows, so a short average
      // would swing between a burst and zero.
      first ??= { at: Date.now(), n: handled };
      const speed =
        Date.now() > first.at ? ((handled - first.n) * 1000) / Math.max(1, Date.now() - first.at) : 0;
      bar?.setTotal(Math.max(progress.total || (opts.expectedTotal ?? 0), 1));
      bar?.update(handled, fields(progress, speed));
      await new Promise((r) => setTimeout(r, pollMs));
    }
    // The workflow's result is the final word; a failed or terminated execution has none.
    const final = await handle.result().then(
      (r) => r as BulkProgress,
      (e: Error) => ({
        ...progress,
        state: 'failed' as const,
        reason: e.cause instanceof Error ? e.cause.message : e.message,
      }),
    );
    bar?.update(final.done + final.failed, fields(final, 0));
    return final;
  } finally {
    process.removeListener('SIGINT', onSigint);
    bar?.stop();
  }
}

function fields(p: BulkProgress, speed: number) {
  return {
    ok: p.done,
    failed: p.failed,
    speed: speed.toFixed(1),
    etaText: p.state === 'running' ? duration(p.etaMs) : '-',
    state: p.reason ? `${p.state} (${p.reason})` : p.state,
  };
}
