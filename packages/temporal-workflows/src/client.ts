// Functions the CLI (and tests) call: start a bulk job (one shop or many), read its progress, pause /
// resume / cancel it, read its report, mark a listing sold now. Schedules are in schedules.ts.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  bulkListingWorkflow,
  cancelSignal,
  multiShopJobWorkflow,
  pauseSignal,
  progressQuery,
  reconnectUpdate,
  resumeSignal,
  saleWorkflow,
  sellerAuthWorkflowId,
  type SellerAuthState,
  saleWorkflowId,
  shopWorkflowId,
} from './workflows/index.ts';
import { readReportLines } from './activities/report.ts';
import { shopsProblem } from './workflows/multi-shop.ts';
import { DEFAULT_TASK_QUEUE } from './worker.ts';
import { jobSearchAttributes, JOB_ATTRIBUTE, OPERATION_ATTRIBUTE } from './search-attributes.ts';
import type {
  BulkJobInput,
  BulkProgress,
  ItemResult,
  MultiShopJobInput,
  SaleInput,
  SaleResult,
} from './types.ts';

export const bulkWorkflowId = (jobId: string) => `bulk:${jobId}`;

export type StartJobInput = (BulkJobInput & { jobId: string }) | MultiShopJobInput;

/** Starts a job: `shop` → one bulk workflow; `shops` → a many-shop job with a child per shop. */
export async function startBulkJob(
  client: Client,
  input: StartJobInput,
  taskQueue = DEFAULT_TASK_QUEUE,
): Promise<WorkflowHandle<typeof bulkListingWorkflow | typeof multiShopJobWorkflow>> {
  if ('shops' in input) {
    if (!input.feed && input.shops.some((s) => !s.feed))
      throw new Error('a many-shop job needs `feed`, or a `feed` on every shop');
    const problem = shopsProblem(input.shops);
    if (problem) throw new Error(problem);
    return client.workflow.start(multiShopJobWorkflow, {
      taskQueue,
      workflowId: bulkWorkflowId(input.jobId),
      // A job id names one job and its report: never run it twice.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: [
        { key: JOB_ATTRIBUTE, value: input.jobId },
        { key: OPERATION_ATTRIBUTE, value: input.operation },
      ],
    });
  }
  return client.workflow.start(bulkListingWorkflow, {
    taskQueue,
    workflowId: bulkWorkflowId(input.jobId),
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    args: [input],
    typedSearchAttributes: jobSearchAttributes(input.shop.shopId, input.jobId, input.operation),
  });
}

const handle = (client: Client, jobId: string) => client.workflow.getHandle(bulkWorkflowId(jobId));

/** The job's progress; for a many-shop job, each running shop is asked for its own. */
export async function getProgress(client: Client, jobId: string): Promise<BulkProgress> {
  const p = await handle(client, jobId).query(progressQuery);
  if (!p.shops) return p;
  const shops = { ...p.shops };
  await Promise.all(
    Object.entries(shops)
      .filter(([, s]) => s.state === 'running')
      .map(async ([shopId]) => {
        shops[shopId] = await client.workflow
          .getHandle(shopWorkflowId(jobId, shopId))
          .query(progressQuery)
          .catch(() => shops[shopId]!);
      }),
  );
  const all = Object.values(shops);
  const sum = (f: (s: BulkProgress) => number) => all.reduce((n, s) => n + f(s), 0);
  return {
    ...p,
    shops,
    total: sum((s) => s.total),
    done: sum((s) => s.done),
    failed: sum((s) => s.failed),
    cancelled: sum((s) => s.cancelled ?? 0),
    pending: sum((s) => s.pending),
    currentRate: sum((s) => (s.state === 'running' ? s.currentRate : 0)),
    rateLimited: sum((s) => s.rateLimited),
    verified: sum((s) => s.verified),
    etaMs: Math.max(0, ...all.map((s) => s.etaMs)),
  };
}

/** Pause: the window in flight finishes, then nothing is sent (the shop's slots go back to its lane). */
export const pauseJob = (client: Client, jobId: string, reason?: string) =>
  handle(client, jobId).signal(pauseSignal, { reason });
export const resumeJob = (client: Client, jobId: string) => handle(client, jobId).signal(resumeSignal);
/** Cancel: the window in flight finishes cleanly; every item not sent is reported `cancelled`. */
export const cancelJob = (client: Client, jobId: string) => handle(client, jobId).signal(cancelSignal);

/** The per-item report: `<reportDir>/<jobId>.ndjson`, or one file per shop for a many-shop job. */
export async function readReport(
  reportDir: string,
  jobId: string,
): Promise<(ItemResult & { shopId?: string })[]> {
  const single = await readReportLines(reportDir, jobId);
  if (single.length > 0) return single;
  // A many-shop job: `<reportDir>/<jobId>/<shopId>.ndjson` (or `.parts/` while the shop runs).
  const dir = join(reportDir, jobId.replace(/[^\w.-]/g, '_'));
  const names = await readdir(dir).catch(() => [] as string[]);
  const shops = new Set(
    names.map((f) => /^(.*)\.(ndjson|parts)$/.exec(f)?.[1]).filter((s) => s !== undefined),
  );
  const out: (ItemResult & { shopId?: string })[] = [];
  for (const shopId of [...shops].sort())
    out.push(...(await readReportLines(reportDir, `${jobId}/${shopId}`)).map((r) => ({ ...r, shopId })));
  return out;
}

/**
 * Marks a listing sold now (a sale elsewhere) and waits for the answer. It does not queue behind bulk
 * jobs: see workflows/sale.ts. A 4xx comes back as `failed` with its code and error id.
 */
export async function markAsSold(
  client: Client,
  input: SaleInput,
  taskQueue = DEFAULT_TASK_QUEUE,
): Promise<SaleResult> {
  try {
    return await client.workflow.execute(saleWorkflow, {
      taskQueue,
      workflowId: saleWorkflowId(input.shop.shopId, input.ref),
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure) {
      const d = (cause.details?.[0] ?? {}) as { code?: string; errorId?: string };
      return {
        status: 'failed',
        code: d.code ?? cause.type ?? undefined,
        message: cause.message,
        errorId: d.errorId,
        attempts: 0,
      };
    }
    throw error;
  }
}

/**
 * A cross-lister's seller went through the consent page again and the app has put the new tokens in
 * the worker's token store: the seller's auth workflow leaves "reauthorization required". Jobs that
 * paused for it continue with resumeJob().
 */
export const reconnectSeller = (client: Client, shopId: string): Promise<SellerAuthState> =>
  client.workflow.getHandle(sellerAuthWorkflowId(shopId)).executeUpdate(reconnectUpdate);
