// A job's per-listing report for the Bulk Job node, on any host: the outcomes live in the worker's job
// store (shared by every worker of the deployment), so the node asks a worker for them through Temporal —
// one short report workflow per page (temporal-workflows' workflows/job-report.ts), its result read from
// the run's close event over the HTTP API and opened with the codec key. No file is read, no path sent.
// The read names the job's shops (the worker reads a job only for a reader naming them, and refuses a
// credential not granted them): the node's own when it started the job, else the job's answer to its
// `jobShops` query.
import { randomUUID } from 'node:crypto';
import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';
import {
  JOB_MESSAGES,
  JOB_REPORT_TIMEOUT,
  jobReportWorkflowId,
  WORKFLOW_TYPES,
  type JobReportInput,
  type JobReportPage,
  type ReportLine,
} from '@selling-kit/temporal-workflows/contract';
import { jobWorkflowId, type TemporalHttp } from './transport/temporal';

/** Statuses someone must look at: the CLI's `report --failed` (an `unknown` create may or may not exist). */
export const NEEDS_ATTENTION = new Set(['failed', 'invalid', 'unknown']);

/** One page: a run of the report workflow on the credential's task queue, and its result. */
async function readPage(
  temporal: TemporalHttp,
  node: INode,
  input: JobReportInput,
  itemIndex: number,
): Promise<JobReportPage> {
  const workflowId = jobReportWorkflowId(input.jobId, randomUUID().slice(0, 8));
  const started = await temporal.start(workflowId, WORKFLOW_TYPES.jobReport, input, {
    executionTimeout: JOB_REPORT_TIMEOUT,
  });
  const body = started.body as { runId?: string; message?: string };
  if (started.statusCode >= 300 || !body?.runId)
    throw new NodeOperationError(
      node,
      `Temporal refused to read the report of job ${input.jobId}: ${body?.message ?? started.statusCode}`,
      { itemIndex },
    );
  const closed = await temporal.closed(workflowId, body.runId);
  if (closed.status === 'timed_out')
    throw new NodeOperationError(
      node,
      `No selling-kit worker read the report of job ${input.jobId} on task queue "${temporal.taskQueue}" within ${JOB_REPORT_TIMEOUT}: ${temporal.noWorkerHint}`,
      { itemIndex },
    );
  if (closed.status !== 'completed')
    throw new NodeOperationError(
      node,
      `The report of job ${input.jobId} could not be read: ${closed.message}`,
      { itemIndex },
    );
  return closed.value as JobReportPage;
}

/** The job's shops, as the job answers them (a worker replays it, also once it has ended). */
async function jobShops(
  temporal: TemporalHttp,
  node: INode,
  jobId: string,
  itemIndex: number,
): Promise<string[]> {
  const answer = await temporal.query(jobWorkflowId(jobId), JOB_MESSAGES.shopsQuery);
  if (answer.statusCode === 404 || /not found/i.test(answer.message ?? ''))
    throw new NodeOperationError(node, `No job "${jobId}" in Temporal`, {
      itemIndex,
      description:
        "An unknown Job ID, or a job Temporal no longer holds (its retention is shorter than the job store's): its report is read for the job's shops, which the job tells.",
    });
  const value = answer.value;
  if (answer.statusCode >= 300 || !Array.isArray(value) || value.some((s) => typeof s !== 'string'))
    throw new NodeOperationError(
      node,
      `The shops of job ${jobId} could not be read: ${answer.message ?? `HTTP ${answer.statusCode}`}`,
      { itemIndex },
    );
  return value as string[];
}

/**
 * Every line of the job's report, page by page (a many-shop job's with `shopId`), for the job's shops
 * (`shopIds`: known to the caller, else asked of the job).
 */
export async function readReport(
  temporal: TemporalHttp,
  node: INode,
  jobId: string,
  itemIndex: number,
  shopIds?: string[],
): Promise<ReportLine[]> {
  const shops = shopIds ?? (await jobShops(temporal, node, jobId, itemIndex));
  const lines: ReportLine[] = [];
  let cursor: string | undefined;
  do {
    const page = await readPage(temporal, node, { jobId, shopIds: shops, cursor }, itemIndex);
    if (!page.found)
      throw new NodeOperationError(node, `No job "${jobId}" in the worker's job store (${page.store})`, {
        itemIndex,
        description:
          'An unknown Job ID, a job whose data has expired, or workers that do not share one job store (SELLING_KIT_JOB_STORE).',
      });
    lines.push(...page.lines);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return lines;
}

/** A report line as an n8n item's JSON: the job, the line and what is known of its listing. */
export function listingJson(jobId: string, line: ReportLine): IDataObject {
  const json: IDataObject = { jobId };
  for (const key of [
    'shopId',
    'line',
    'sku',
    'status',
    'productId',
    'slug',
    'code',
    'message',
    'field',
    'rule',
    'errorId',
  ] as const)
    if (line[key] !== undefined) json[key] = line[key];
  return json;
}
