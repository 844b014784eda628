// The bulk job's carry has a schema version (README, "Changing workflow code"): a run handed a carry of
// a version this code does not read — a 0.3 run continuing as new on a 0.4 worker — fails its workflow
// task with a message naming both versions, and waits unchanged for a worker that reads it, instead of
// failing the job or throwing a TypeError somewhere inside it.
// @needs temporal
import { bulkWorkflowId } from '../src/contract.ts';
import { bulkListingWorkflow } from '../src/workflows/bulk-listing.ts';
import { CARRY_VERSION, type BulkCarry } from '../src/workflows/bulk-job.ts';
import { csvFeed, job, products, useTestEnv, waitFor } from './helpers.ts';

const env = useTestEnv('carry-schema');

type Failure = { message?: string | null; encodedAttributes?: { data?: Uint8Array | null } | null };

/**
 * The message of the first failed workflow task in a history, if any (failure-converter.cjs moves it into
 * the failure's encoded attributes, plain JSON without a codec).
 */
function taskFailure(events: { workflowTaskFailedEventAttributes?: { failure?: Failure | null } | null }[]) {
  const failure = events.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes
    ?.failure;
  if (!failure) return undefined;
  const encoded = failure.encodedAttributes?.data;
  return encoded
    ? (JSON.parse(Buffer.from(encoded).toString('utf8')) as { message: string }).message
    : failure.message;
}

it.each([
  ['without a version (0.3)', undefined],
  ['of a newer version', CARRY_VERSION + 1],
])(
  'a carry %s fails the workflow task, naming both versions; nothing is sent',
  async (_, v) => {
    const shop = env.shop('cs');
    const input = job(env, shop, csvFeed(env, 'CS', 5));
    // A 0.3 run's carry (no `v`, a report directory, parts named by string) as continue-as-new hands it on.
    const carry = {
      ...(v === undefined ? {} : { v }),
      offset: 0,
      feedDone: false,
      queue: [],
      later: [],
      unknown: [],
      counts: { total: 5, done: 0, failed: 0, cancelled: 0, rateLimited: 0, verified: 0 },
      report: [],
      rate: 20,
      runs: 1,
      paused: false,
      cancelled: false,
      accepted: { 'send-1': 1 },
      snapshot: { dir: '/var/lib/selling-kit/reports/job.snapshot', total: 5 },
    } as unknown as BulkCarry;
    const handle = await env.client.workflow.start(bulkListingWorkflow, {
      taskQueue: env.taskQueue,
      workflowId: bulkWorkflowId(input.jobId),
      args: [input, carry],
    });
    try {
      const message = await waitFor('a failed workflow task', async () =>
        taskFailure((await handle.fetchHistory()).events ?? []),
      );
      expect(message).toContain(`carry schema ${v ?? 3}, this worker reads ${CARRY_VERSION}`);
      expect(message).not.toMatch(/TypeError/);
      // The run is not failed: it waits for a worker of its release.
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect(products(env, shop.sellerId, 'CS')).toHaveLength(0);
    } finally {
      await handle.terminate('test over');
    }
  },
  60_000,
);
