// End to end, the Bulk Job node as a no-code user builds it in a real n8n 2.40.7: a Code node emits five
// listings, the Bulk Job node (version 2, Feed Source: Input Items) sends them to a real Temporal server
// where a real selling-kit worker lists them into the simulator — no file shared between n8n and the
// worker. The Shops list is asked from the worker through n8n's own options endpoint.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { DEMO, startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import {
  N8nClient,
  installPackedPackage,
  makeUserFolder,
  nodeOutput,
  startN8n,
  waitFor,
  waitForPostWebhook,
  type N8nInstance,
} from './harness.mts';
import { FEED_HEADER, feedRow, startTemporalStack, type TemporalStack } from '../helpers/temporal.mts';
import { BULK_TYPE, chain, webhookStart } from './workflows.mts';

const SETUP_MS = 8 * 60_000;
const TEST_MS = 3 * 60_000;

let userFolder = '';
let sim: RunningSimulator | undefined;
let n8n: N8nInstance | undefined;
let stack: TemporalStack | undefined;
let client: N8nClient;
let credential: { id: string; name: string };

beforeAll(async () => {
  userFolder = await makeUserFolder();
  const [started] = await Promise.all([startSimulator({ demo: true }), installPackedPackage(userFolder)]);
  sim = started;
  stack = await startTemporalStack({ demo: { baseUrl: sim.url, apiKey: DEMO.apiKey } });
  n8n = await startN8n({ userFolder, logName: 'n8n-bulk-input-e2e.log' });
  client = new N8nClient(n8n.url);
  await client.login(n8n.owner.email, n8n.owner.password);
  await client.createApiKey();
  credential = await client.createCredential('Selling-kit jobs (bulk input e2e)', 'marketplaceTemporalApi', {
    url: stack.httpUrl,
    namespace: 'default',
    taskQueue: stack.taskQueue,
    codecKey: stack.key.toString('base64'),
    reportDir: join(stack.dir, 'reports'),
    apiKey: '',
  });
}, SETUP_MS);

afterAll(async () => {
  await n8n?.stop();
  await stack?.stop();
  await sim?.close();
  if (userFolder) await rm(userFolder, { recursive: true, force: true });
}, 60_000);

/** A Code node returning one item per feed row: the CSV feed's columns as fields, cells as strings. */
function codeNodeEmitting(skus: string[], picture: string) {
  const names = FEED_HEADER.split(',');
  const rows = skus.map((sku) => {
    const cells = feedRow(sku, picture).split(',');
    return Object.fromEntries(names.map((n, i) => [n, cells[i]]));
  });
  return {
    name: 'Listings',
    type: 'n8n-nodes-base.code',
    typeVersion: 2,
    parameters: { jsCode: `return ${JSON.stringify(rows)}.map((json) => ({ json }));` },
  };
}

describe('the Bulk Job node fed from input items, in n8n', () => {
  it(
    'offers the worker’s shops in the Shops list',
    async () => {
      const options = await client.rest<{ name: string; value: string }[]>(
        'POST',
        '/dynamic-node-parameters/options',
        {
          nodeTypeAndVersion: { name: BULK_TYPE, version: 2 },
          path: 'parameters.shops',
          methodName: 'getShops',
          currentNodeParameters: { operation: 'start', feedSource: 'inputItems', shops: [] },
          credentials: { marketplaceTemporalApi: credential },
        },
      );
      expect(options).toEqual([{ name: 'demo', value: 'demo' }]);
    },
    TEST_MS,
  );

  it(
    'a Code node’s five rows become a job that completes against the simulator',
    async () => {
      const skus = [1, 2, 3, 4, 5].map((n) => `E2E-INPUT-${n}`);
      const path = `e2e-input-${randomUUID()}`;
      const jobId = `e2e-input-${randomUUID().slice(0, 8)}`;
      const id = await client.createWorkflow(
        chain('e2e: bulk job from input items', [
          webhookStart(path),
          codeNodeEmitting(skus, `${sim!.url}/demo-assets/tee-black.png`),
          {
            name: 'Bulk Job',
            type: BULK_TYPE,
            typeVersion: 2,
            parameters: {
              operation: 'start',
              feedSource: 'inputItems',
              shops: ['demo'],
              jobOperation: 'create',
              jobId,
              wait: true,
              maxWaitMinutes: 5,
            },
            credentials: { marketplaceTemporalApi: credential },
          },
        ]),
      );
      await client.activate(id);
      await waitForPostWebhook(`${n8n!.url}/webhook/${path}`);
      const res = await fetch(`${n8n!.url}/webhook/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
        signal: AbortSignal.timeout(180_000),
      });
      expect(res.status).toBe(200);
      const execution = await waitFor(
        'the finished execution',
        async () =>
          (await client.executions(id)).find(
            (e) => e.finished || e.status === 'success' || e.status === 'error',
          ),
        120_000,
      );
      expect(execution.status).toBe('success');
      const output = nodeOutput(execution, 'Bulk Job');
      expect(output).toHaveLength(1);
      expect(output[0]).toMatchObject({ jobId, state: 'finished', total: 5, done: 5, failed: 0, items: 5 });
      const seller = sim!.world.sellers.get(DEMO.sellerId)!;
      expect(skus.filter((sku) => seller.skus.has(sku))).toEqual(skus);
    },
    TEST_MS,
  );
});
