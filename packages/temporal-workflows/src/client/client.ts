// Functions the CLI (and tests) call: start a bulk job (one shop or many), read its progress, pause /
// resume / cancel it (the one control path: the CLI's `jobs pause|resume|cancel` call these), read its
// report, mark a listing sold now. Schedules are in schedules.ts; ids and names in contract.ts. Nothing
// here loads the worker runtime.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  bulkListingWorkflow,
  cancelUpdate,
  multiShopJobWorkflow,
  pauseUpdate,
  progressQuery,
  reconnectUpdate,
  resumeUpdate,
  saleWorkflow,
  type SellerAuthState,
} from '../workflows/index.ts';
import { shopsProblem } from '../workflows/multi-shop.ts';
import { jobShops } from './job-shops.ts';
import {
  bulkWorkflowId,
  DEFAULT_TASK_QUEUE,
  inlineFeedBytes,
  inlineFeedProblem,
  INLINE_FEED_MAX_ENCODED_BYTES,
  jobIdsProblem,
  saleTaskQueue,
  saleWorkflowId,
  sellerAuthWorkflowId,
  shopWorkflowId,
  type JobMessage,
} from '../contract.ts';
import { jobSearchAttributes, JOB_ATTRIBUTE, OPERATION_ATTRIBUTE } from '../search-attributes.ts';
import type { BulkJobInput, BulkProgress, MultiShopJobInput, SaleInput, SaleResult } from '../types.ts';
import { sumProgress } from '../workflows/job-progress.ts';

export { bulkWorkflowId };

export type StartJobInput = (BulkJobInput & { jobId: string }) | MultiShopJobInput;

/** Starts a job: `shop` → one bulk workflow; `shops` → a many-shop job with a child per shop. */
export async function startBulkJob(
  client: Client,
  input: StartJobInput,
  taskQueue = DEFAULT_TASK_QUEUE,
): Promise<WorkflowHandle<typeof bulkListingWorkflow | typeof multiShopJobWorkflow>> {
  // The contract's id rule, before anything starts (the worker refuses a bad id at start too). A job a
  // client starts is never a many-shop job's shop: its id is one id, not `<parent>/<shop>`.
  const idProblemOf = jobIdsProblem({
    jobId: input.jobId,
    ...('shops' in input ? { shops: input.shops } : { shop: input.shop }),
  });
  if (idProblemOf) throw new Error(idProblemOf);
  // Every start its own id (types.ts BulkJobOptions.startId): a copy of this input cannot run again.
  input = { ...input, startId: input.startId ?? randomUUID() };
  // An inline feed too large for Temporal's payloads is refused here, before anything starts.
  const feeds = 'shops' in input ? [input.feed, ...input.shops.map((s) => s.feed)] : [input.feed];
  for (const feed of feeds) {
    const problem = feed?.content === undefined ? undefined : inlineFeedProblem(feed.content);
    if (problem) throw new Error(`${feed!.path}: ${problem}`);
  }
  // Several inline feeds travel in one start payload (and in every run's input after a continue-as-new).
  const together = feeds.reduce((n, f) => n + (f?.content === undefined ? 0 : inlineFeedBytes(f.content)), 0);
  if (together > INLINE_FEED_MAX_ENCODED_BYTES)
    throw new Error(
      `the job's inline feeds take ${together} bytes together, JSON-encoded, and one job's input carries at most ${INLINE_FEED_MAX_ENCODED_BYTES} (1.5 MiB): give the worker file paths or URLs, or start a job per shop`,
    );
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
  return { ...p, shops, ...sumProgress(Object.values(shops)) };
}

// Job control is by update: the answer is the job's progress once the workflow has applied it (a many-
// shop job has passed it on to its running shops). Only a worker applies an update: a caller that must
// not wait for an absent worker checks for one first (the CLI does).
// Every message names the job's shops (contract.ts JobMessage): the worker refuses a client key not
// granted each of them, and a message whose shops are not exactly the job's.

export { jobShops };

/** Who a message is for: the job's shops when the caller knows them, else the job's own answer. */
export interface JobMessageOptions {
  shopIds?: string[];
}
/**
 * Sends the job-control `update` with its message: the shops it is for (the caller's, else the job's own
 * answer) and, for a pause, its `reason`.
 */
async function sendJobUpdate(
  update: typeof pauseUpdate,
  client: Client,
  jobId: string,
  opts: JobMessageOptions,
  reason?: string,
): Promise<BulkProgress> {
  const message: JobMessage = {
    shopIds: opts.shopIds ?? (await jobShops(client, jobId)),
    ...(reason !== undefined ? { reason } : {}),
  };
  return handle(client, jobId).executeUpdate(update, { args: [message] });
}

/** Pause: the window in flight finishes, then nothing is sent (the shop's slots go back to its lane). */
export const pauseJob = (client: Client, jobId: string, reason?: string, opts: JobMessageOptions = {}) =>
  sendJobUpdate(pauseUpdate, client, jobId, opts, reason);
export const resumeJob = (client: Client, jobId: string, opts: JobMessageOptions = {}) =>
  sendJobUpdate(resumeUpdate, client, jobId, opts);
/** Cancel: answered once the window in flight has stopped; every item not sent is reported `cancelled`. */
export const cancelJob = (client: Client, jobId: string, opts: JobMessageOptions = {}) =>
  sendJobUpdate(cancelUpdate, client, jobId, opts);

/** The job's report, read on any worker through Temporal, and its NDJSON export: report-client.ts. */
export * from './report-client.ts';

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
      taskQueue: saleTaskQueue(taskQueue),
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
