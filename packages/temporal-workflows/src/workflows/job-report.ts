// One page of a job's report, read on whichever worker of the task queue takes it: the worker's job store
// is the deployment's shared one, so the reader needs no disk of its own and the job input no path.
// Clients (client.ts `readReport`, the CLI, n8n's Bulk Job node over the HTTP API) start a run per page
// with a short execution timeout and read its result; a task queue with no worker answers "timed out"
// instead of leaving a run behind. The page is bounded in bytes (activities/job-report.ts).
import { proxyActivities } from '@temporalio/workflow';
import type { createJobReportActivities } from '../activities/job-report.ts';
import type { JobReportInput, JobReportPage } from '../contract.ts';
import { refuseInput } from './refuse.ts';

export { jobReportWorkflowId } from '../contract.ts';

const { readJobReport } = proxyActivities<ReturnType<typeof createJobReportActivities>>({
  // Counting a 100,000-line report (`summaryOnly`) reads it whole: well under a minute.
  startToCloseTimeout: '1 minute',
  // A store blip is retried a few times; a store that stays down fails the read with its reason.
  retry: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 4 },
});

export async function jobReportWorkflow(input: JobReportInput): Promise<JobReportPage> {
  refuseInput(input);
  return readJobReport(input);
}
