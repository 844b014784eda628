// `selling-kit jobs list|status|watch|pause|resume|cancel|report`.
import type { Command } from 'commander';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import {
  BULK_JOB_TYPES_QUERY,
  cancelJob,
  jobIdOfWorkflowId,
  OPERATION_ATTRIBUTE,
  pauseJob,
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
import { exitCodeOf, summarize, summaryLines, watchJob } from '../jobs.ts';
import { getReport, reportSoFar, type Ended } from '../report.ts';
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
  const { p, reported } = await withTemporal(config, async (client) => {
    const desc = await describeJob(client, jobId);
    const taskQueue = desc.taskQueue;
    if (desc.status.name !== 'RUNNING') {
      const p: JobView = await closedProgress(client, jobId, desc);
      // A failed or terminated job has no figures of its own: the report's, read by a worker.
      const reported = hasFigures(p)
        ? undefined
        : await reportSoFar(client, config, jobId, { taskQueue, ask: true });
      return { p, reported };
    }
    const live = await liveProgress(client, jobId, taskQueue);
    if (live.progress) return { p: live.progress as JobView, reported: undefined };
    // No worker answered just now: the last export is what is known.
    throw new NoWorkerError(
      jobId,
      taskQueue,
      live.polling,
      await reportSoFar(client, config, jobId, { taskQueue, ask: false }),
    );
  });
  out.result(p, () => progressLines(jobId, p, reported));
}

async function watch({ config, out }: Context, jobId: string): Promise<number> {
  return withTemporal(config, async (client) => {
    const final = await watchJob(client, config, jobId, out);
    const summary = await summarize(client, config, out, jobId, final);
    out.result(summary, () => summaryLines(summary));
    return exitCodeOf(summary);
  });
}

/** `--shops a,b`: the shops named, or undefined (the job answers them). */
const shopsOption = (text: string | undefined): string[] | undefined =>
  text === undefined
    ? undefined
    : text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/**
 * Pause, resume and cancel through the client's job control (temporal-workflows client.ts: updates, the
 * answer is the progress once the workflow applied them). Only a worker applies them: with none
 * polling, say so now rather than wait. Each names the job's shops, as the job answers them (its
 * `jobShops` query): the worker refuses a key not granted them (the message says which).
 */
function control(kind: 'pause' | 'resume' | 'cancel') {
  return async ({ config, out }: Context, jobId: string, opts: { reason?: string }): Promise<void> => {
    const p = await withTemporal(config, async (client: Client) => {
      const desc = await describeJob(client, jobId); // a clear "no such job" first
      if (desc.status.name !== 'RUNNING')
        throw new CliError('job_ended', `job ${jobId} has already ended`, EXIT.usage);
      if ((await liveWorkers(client, desc.taskQueue)) === 0)
        throw new NoWorkerError(
          jobId,
          desc.taskQueue,
          false,
          await reportSoFar(client, config, jobId, { taskQueue: desc.taskQueue, ask: false }),
        );
      try {
        if (kind === 'pause') return await pauseJob(client, jobId, opts.reason);
        if (kind === 'resume') return await resumeJob(client, jobId);
        return await cancelJob(client, jobId);
      } catch (e) {
        if (/completed|closed|not running/i.test((e as Error).message))
          throw new CliError('job_ended', `job ${jobId} has already ended`, EXIT.usage);
        // Turned away by the job (its shops) or the worker's codec (a key not granted them).
        if (e instanceof WorkflowUpdateFailedError)
          throw new CliError(
            'job_message_refused',
            `${kind} of job ${jobId} refused: ${(e.cause as Error | undefined)?.message ?? e.message}`,
            EXIT.usage,
          );
        throw e;
      }
    });
    out.result(p, () => progressLines(jobId, p));
  };
}

/**
 * The report, read by a worker of the job's task queue from the job store (any host: nothing of the
 * worker's disk is needed here) and exported to the report folder as it is read; with no worker, the
 * last export. An ended job's final export is read as it is.
 */
async function report(
  { config, out }: Context,
  jobId: string,
  opts: { failed?: boolean; shops?: string },
): Promise<number> {
  const keep = opts.failed ? (i: { status: string }) => NEEDS_ATTENTION.has(i.status) : () => true;
  const read = await withTemporal(config, async (client) => {
    // The job may be gone from Temporal (its retention is shorter than the store's): the report stays.
    const desc = await describeJob(client, jobId).catch((e: unknown) => {
      if (e instanceof CliError && e.code === 'job_not_found') return undefined;
      throw e;
    });
    const ended: Ended | undefined =
      desc && desc.status.name !== 'RUNNING'
        ? { closeTime: desc.closeTime, view: await closedProgress(client, jobId, desc) }
        : undefined;
    return getReport(client, config, out, jobId, {
      taskQueue: desc?.taskQueue ?? config.taskQueue,
      keep,
      ended,
      shopIds: shopsOption(opts.shops),
    });
  }).catch(async (e: unknown) => {
    // Temporal unreachable: the last export, if there is one.
    if (e instanceof CliError && e.code === 'temporal_unreachable')
      return getReport(undefined, config, out, jobId, { taskQueue: config.taskQueue, keep }).catch(() => {
        throw e;
      });
    throw e;
  });
  if (read.total === 0)
    throw new CliError('report_not_found', `job ${jobId} has no report lines yet`, EXIT.notFound);
  if (read.from === 'workers') out.info(`exported to ${read.path}`);
  const shown = read.lines;
  out.result(shown, () =>
    table(
      shown.map((i) => ({
        ...i,
        detail:
          i.status === 'ok'
            ? `${i.productId} ${i.slug ?? ''}`
            : `${i.code ?? ''}${i.field ? ` ${i.field}` : ''}: ${i.message ?? ''}${i.errorId ? ` (error id ${i.errorId})` : ''}`,
      })),
      ['line', ...(shown.some((i) => i.shopId) ? ['shopId'] : []), 'sku', 'status', 'detail'],
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
    .option(
      '--shops <ids>',
      "the job's shops, comma-separated (default: as the job answers; needed once Temporal no longer holds it)",
    )
    .description(
      'the per-item report (product id and slug, or code, message and error id), read by a worker from its job store and exported to the report folder (SELLING_KIT_REPORT_DIR)',
    )
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
