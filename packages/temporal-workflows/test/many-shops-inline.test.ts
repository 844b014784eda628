// Inline feeds against Temporal's own limits, from any client (not only the n8n node): a feed too large
// for a job's payload is refused before anything starts, and a many-shop job whose children each carry a
// near-limit inline feed starts only as many at once as keep one workflow task's commands under
// Temporal's 4 MiB gRPC message (contract.ts `concurrentShops`) — asked for six at once, it runs three.
// @needs temporal
import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { bulkWorkflowId, concurrentShops, inlineFeedBytes } from '../src/contract.ts';
import { startBulkJob } from '../src/client/client.ts';
import { HEADER, products, row, useTestEnv } from './helpers.ts';
import { shopRefs, startShopsJob } from './many-shop-jobs.ts';

const env = useTestEnv('inline-big');

/** A run's events a few at a time: its pages carry the feed (one page of all would pass gRPC's 4 MiB). */
async function* eventsOf(workflowId: string, runId: string) {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await env.client.workflowService.getWorkflowExecutionHistory({
      namespace: env.client.options.namespace,
      execution: { workflowId, runId },
      maximumPageSize: 2,
      nextPageToken,
    });
    yield* page.history?.events ?? [];
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
}

/** Every run of a workflow id (visibility lags: asked until the closed last run shows). */
async function runsOf(workflowId: string): Promise<string[]> {
  for (;;) {
    const runs: { runId: string; open: boolean }[] = [];
    for await (const w of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
      runs.push({ runId: w.runId, open: w.status.name === 'RUNNING' });
    if (runs.length > 0 && runs.every((r) => !r.open)) return runs.map((r) => r.runId);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('inline feeds at the limits', () => {
  it('a feed too large for a payload once JSON-encoded is refused before the job starts', async () => {
    const shop = env.shop('ib-refused');
    const jobId = `inline-refused-${randomUUID()}`;
    // 0.9 MiB of text (under the 1 MiB), 1.8 MiB once JSON-encoded: quotes, each escaped in the payload.
    const content = `${HEADER}\n${row('IB-Q').replace('Vintage tee 0', '"'.repeat(900 * 1024))}\n`;
    await expect(
      startBulkJob(
        env.client,
        {
          jobId,
          shop: { shopId: shop.shopId, credentialRef: shop.ref },
          feed: { path: 'quotes.csv', format: 'csv', content },
          operation: 'create',
        },
        env.taskQueue,
      ),
    ).rejects.toThrow(/^quotes\.csv: an inline feed takes at most 1572864 bytes \(1\.5 MiB\) JSON-encoded/);
    await expect(env.client.workflow.getHandle(bulkWorkflowId(jobId)).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  });

  it('several inline feeds too large together for one job’s input are refused before it starts', async () => {
    const [a, b] = [env.shop('ib-two-a'), env.shop('ib-two-b')];
    const jobId = `inline-two-${randomUUID()}`;
    // Each 0.8 MiB feed fits on its own; the two of them in one start payload do not.
    const content = [HEADER, row('IB-T').replace('Vintage tee 0', 'x'.repeat(800 * 1024))].join('\n');
    await expect(
      startBulkJob(
        env.client,
        {
          jobId,
          shops: [a, b].map((s) => ({
            shopId: s.shopId,
            credentialRef: s.ref,
            feed: { path: `${s.ref}.csv`, format: 'csv' as const, content },
          })),
          operation: 'create',
        },
        env.taskQueue,
      ),
    ).rejects.toThrow(
      /^the job's inline feeds take \d+ bytes together, JSON-encoded, and one job's input carries at most 1572864/,
    );
    await expect(env.client.workflow.getHandle(bulkWorkflowId(jobId)).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  });

  it('six shops sharing a 0.9 MiB inline feed start three at a time and all finish', async () => {
    const shops = Array.from({ length: 6 }, (_, i) => env.shop(`ib-${i}`));
    // Three listings, and a fourth whose description (0.9 MiB) is far above the 1,000 characters allowed:
    // reported invalid by each shop, it is what makes the feed large.
    const padded = row('IB-4', 4).replace('Vintage tee 4', 'x'.repeat(900 * 1024));
    const rows = [1, 2, 3].map((n) => row(`IB-${n}`, n));
    const content = [HEADER, ...rows, padded].join('\n') + '\n';
    expect(concurrentShops(inlineFeedBytes(content), 6)).toBe(3);
    const { jobId, handle } = await startShopsJob(env, 'inline-big', shopRefs(shops), {
      feed: { path: 'n8n:binary:big.csv', format: 'csv', content },
      maxConcurrentShops: 6,
    });
    expect(await handle.result()).toMatchObject({ state: 'finished', total: 24, done: 18, failed: 6 });
    for (const s of shops) expect(products(env, s.sellerId, 'IB')).toHaveLength(3);
    // No workflow task of the parent started more than three children (each command carries the feed),
    // in any of its runs (the feed in its history makes the server suggest continue-as-new early).
    let most = 0;
    let started = 0;
    for (const runId of await runsOf(bulkWorkflowId(jobId))) {
      let perTask = 0;
      for await (const event of eventsOf(bulkWorkflowId(jobId), runId)) {
        if (event.workflowTaskCompletedEventAttributes) perTask = 0;
        if (event.startChildWorkflowExecutionInitiatedEventAttributes) {
          started++;
          most = Math.max(most, ++perTask);
        }
      }
    }
    expect(started).toBe(6);
    expect(most).toBe(3);
  }, 240_000);
});
