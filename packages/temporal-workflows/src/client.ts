// Functions the CLI (and tests) call: start a bulk job, read its progress, pause / resume / cancel it,
// read its report.
import { readFile } from 'node:fs/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import {
  bulkListingWorkflow,
  cancelSignal,
  pauseSignal,
  progressQuery,
  resumeSignal,
} from './workflows/index.ts';
import { reportPath } from './activities/index.ts';
import { DEFAULT_TASK_QUEUE } from './worker.ts';
import { jobSearchAttributes } from './search-attributes.ts';
import type { BulkJobInput, BulkProgress, ItemResult } from './types.ts';

export const bulkWorkflowId = (jobId: string) => `bulk:${jobId}`;

export async function startBulkJob(
  client: Client,
  input: BulkJobInput & { jobId: string },
  taskQueue = DEFAULT_TASK_QUEUE,
): Promise<WorkflowHandle<typeof bulkListingWorkflow>> {
  return client.workflow.start(bulkListingWorkflow, {
    taskQueue,
    workflowId: bulkWorkflowId(input.jobId),
    args: [input],
    typedSearchAttributes: jobSearchAttributes(input.shop.shopId, input.jobId, input.operation),
  });
}

const handle = (client: Client, jobId: string) => client.workflow.getHandle(bulkWorkflowId(jobId));

export const getProgress = (client: Client, jobId: string): Promise<BulkProgress> =>
  handle(client, jobId).query(progressQuery);
export const pauseJob = (client: Client, jobId: string) => handle(client, jobId).signal(pauseSignal);
export const resumeJob = (client: Client, jobId: string) => handle(client, jobId).signal(resumeSignal);
export const cancelJob = (client: Client, jobId: string) => handle(client, jobId).signal(cancelSignal);

export async function readReport(reportDir: string, jobId: string): Promise<ItemResult[]> {
  const text = await readFile(reportPath(reportDir, jobId), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ItemResult);
}
