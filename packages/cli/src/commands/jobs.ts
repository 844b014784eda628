// `selling-kit jobs list|status|watch|pause|resume|cancel|report`.
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import {
  BULK_JOB_TYPES_QUERY,
  cancelJob,
  jobIdOfWorkflowId,
  OPERATION_ATTRIBUTE,
  pauseJob,
  readReport,
  resumeJob,
  SHOP_ATTRIBUTE,
  WORKFLOW_TYPES,
} from '@selling-kit/temporal-workflows';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import {
  closedProgress,
  describeJob,
  hasFigures,
  liveProgress,
  liveWorkers,
  NoWorkerError,
  type JobView,
} from '../job-progress.ts';
import { exitCodeOf, reportSoFar, summarize, summaryLines, watchJob } from '../jobs.ts';
import { duration, table } from '../output.ts';
import { withTemporal } from '../temporal.ts';

/** `report --failed`: the items someone must look at (an `unknown` create may or may not exist). */
const NEEDS_ATTENTION = new Set(['failed', 'invalid', 'unknown']);

async function listJobs({ config, out }: Context, opts: { limit: string }): Promise<void> {
  const limit = Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new CliError('bad_limit', '--limit must be a positive integer', EXIT.usage);
  const rows = await withTemporal(config, async (client) => {
    const found: Record<string, unknown>[] = [];
    for await (const w of client.workflow.list({ query: BULK_JOB_TYPES_QUERY })) {
      // Per-shop children of a many-shop job (`bulk:<job>/<shop>`) have no job id: shown through their parent.
      const jobId = jobIdOfWorkflowId(w.workflowId);
      if (jobId === undefined) continue;
      found.push({
        jobId,
        status: w.status.name.toLowerCase(),
        shop:
          w.typedSearchAttributes.get(SHOP_ATTRIBUTE) ??
          (w.type === WORKFLOW_TYPES.multiShopJob ? '(several)' : ''),
        operation: w.typedSearchAttributes.get(OPERATION_ATTRIBUTE) ?? '',
        started: w.startTime.toISOString(),
        closed: w.closeTime?.toISOString() ?? null,
      });
      if (found.length >= limit) break;
    }
    return found;
  });
  out.result(rows, () => table(rows, ['jobId', 'status', 'shop', 'operation', 'started']));
}

function progressLines(jobId: string, p: JobView, reported?: string): string[] {
  const lines = [`job ${jobId}: ${p.state}${p.reason ? ` (${p.reason})` : ''}`];
  if (!hasFigures(p)) {
    // A failed or terminated job, no worker asked: what the report holds is what is known.
    lines.push(`  ${reported ?? 'nothing in the report'} (see \`selling-kit jobs report ${jobId}\`)`);
    return lines;
  }
  lines.push(
    `  done ${p.done}, failed ${p.failed}, cancelled ${p.cancelled ?? 0}, pending ${p.pending} of ${p.total}`,
    `  rate ${p.currentRate} per ${p.windowMs / 1000}s window, 429s ${p.rateLimited}, verified ${p.verified}, ETA ${duration(p.etaMs)}`,
  );
  for (const [shop, s] of Object.entries(p.shops ?? {}))
    lines.push(
      `  shop ${shop}: ${s.state}, done ${s.done}, failed ${s.failed}, cancelled ${s.cancelled ?? 0}, pending ${s.pending}`,
    );
  return lines;
}

/** A closed job from Temporal alone; a running one from its worker, or a one-line "no worker" (exit 8). */
async function status({ config, out }: Context, jobId: string): Promise<void> {
  const p = await withTemporal(config, async (client): Promise<JobView> => {
    const desc = await describeJob(client, jobId);
    if (desc.status.name !== 'RUNNING') return closedProgress(client, jobId, desc);
    const live = await liveProgress(client, jobId, desc.taskQueue);
    if (live.progress) return live.progress;
    throw new NoWorkerError(jobId, desc.taskQueue, live.polling, await reportSoFar(config, jobId));
  });
  const reported = hasFigures(p) ? undefined : await reportSoFar(config, jobId);
  out.result(p, () => progressLines(jobId, p, reported));
}

async function watch({ config, out }: Context, jobId: string): Promise<number> {
  return withTemporal(config, async (client) => {
    const final = await watchJob(client, config, jobId, out);
    const summary = await summarize(config, jobId, final);
    out.result(summary, () => summaryLines(summary));
    return exitCodeOf(summary);
  });
}

/**
 * Pause, resume and cancel through the client's job control (temporal-workflows client.ts: updates, the
 * answer is the progress once the workflow applied them). Only a worker applies them: with none
 * polling, say so now rather than wait.
 */
function control(kind: 'pause' | 'resume' | 'cancel') {
  return async ({ config, out }: Context, jobId: string, opts: { reason?: string }): Promise<void> => {
    const p = await withTemporal(config, async (client: Client) => {
      const desc = await describeJob(client, jobId); // a clear "no such job" first
      if (desc.status.name !== 'RUNNING')
        throw new CliError('job_ended', `job ${jobId} has already ended`, EXIT.usage);
      if ((await liveWorkers(client, desc.taskQueue)) === 0)
        throw new NoWorkerError(jobId, desc.taskQueue, false, await reportSoFar(config, jobId));
      try {
        if (kind === 'pause') return await pauseJob(client, jobId, opts.reason);
        if (kind === 'resume') return await resumeJob(client, jobId);
        return await cancelJob(client, jobId);
      } catch (e) {
        if (/completed|closed|not running/i.test((e as Error).message))
          throw new CliError('job_ended', `job ${jobId} has already ended`, EXIT.usage);
        throw e;
      }
    });
    out.result(p, () => progressLines(jobId, p));
  };
}

async function report({ config, out }: Context, jobId: string, opts: { failed?: boolean }): Promise<number> {
  const items = await readReport(config.reportDir, jobId);
  if (items.length === 0)
    throw new CliError(
      'report_not_found',
      `no report for job "${jobId}" in ${config.reportDir}`,
      EXIT.notFound,
    );
  const shown = opts.failed ? items.filter((i) => NEEDS_ATTENTION.has(i.status)) : items;
  out.result(shown, () =>
    table(
      shown.map((i) => ({
        ...i,
        detail:
          i.status === 'ok'
            ? `${i.productId} ${i.slug ?? ''}`
            : `${i.code ?? ''}${i.field ? ` ${i.field}` : ''}: ${i.message ?? ''}${i.errorId ? ` (error id ${i.errorId})` : ''}`,
      })),
      ['line', ...(items.some((i) => i.shopId) ? ['shopId'] : []), 'sku', 'status', 'detail'],
    ),
  );
  return EXIT.ok;
}

export function registerJobs(program: Command): void {
  const jobs = program.command('jobs').description('list, follow and control bulk jobs');
  jobs
    .command('list')
    .description('recent jobs, newest first')
    .option('--limit <n>', 'at most this many', '20')
    .action(action(listJobs));
  jobs
    .command('status')
    .argument('<jobId>')
    .description('progress of a job (done / failed / cancelled / pending / rate / ETA)')
    .action(action(status));
  jobs
    .command('watch')
    .argument('<jobId>')
    .description('follow a job with a progress bar until it ends')
    .action(action(watch));
  jobs
    .command('pause')
    .argument('<jobId>')
    .option('--reason <text>', 'shown in the job status')
    .description('pause a job: the window in flight finishes, then nothing is sent')
    .action(action(control('pause')));
  jobs
    .command('resume')
    .argument('<jobId>')
    .description('resume a paused job')
    .action(action(control('resume')));
  jobs
    .command('cancel')
    .argument('<jobId>')
    .description('cancel a job: items in flight finish, the rest are reported as cancelled')
    .action(action(control('cancel')));
  jobs
    .command('report')
    .argument('<jobId>')
    .option('--failed', 'only failed, invalid and unknown items')
    .description('the per-item report (product id and slug, or code, message and error id)')
    .action(action(report));
  jobs.addHelpText(
    'after',
    `
Examples:
  $ selling-kit jobs list
  $ selling-kit jobs watch job-20261123-101500-ab12
  $ selling-kit jobs pause job-20261123-101500-ab12 --reason "price review"
  $ selling-kit jobs report job-20261123-101500-ab12 --failed --json`,
  );
}
