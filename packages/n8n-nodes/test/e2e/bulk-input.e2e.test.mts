// End to end, the Bulk Job node as a no-code user builds it in a real n8n 2.40.7: a Code node emits five
// listings, the Bulk Job node (version 2, Feed Source: Input Items) sends them to a real Temporal server
// where a real selling-kit worker lists them into the simulator — no file shared between n8n and the
// worker. The Shops list is asked from the worker through n8n's own options endpoint; the job's report
// comes back as one item per listing, read by the worker from its job store. And Get Many → Bulk Job with
// no mapping step: the action node's own output (raw) lists as it reads on another shop.
// @needs temporal, n8n-package, n8n
import { randomUUID } from 'node:crypto';
import { DEMO } from '@selling-kit/simulator';
import { addShop, type TestShop } from '@selling-kit/simulator/testing';
import { E2E_SETUP_MS, nodeOutput, useE2e } from './harness.mts';
import { startTemporalStack, type TemporalStack } from '../helpers/temporal.mts';
import { ACTION, ACTION_TYPE, BULK, BULK_TYPE, demoShopCredential, runOnce } from './workflows.mts';

const TEST_MS = 3 * 60_000;

const e2e = useE2e('n8n-bulk-input-e2e.log');
let stack: TemporalStack | undefined;
let credential: { id: string; name: string };
/** A second shop the worker holds a key for (Get Many → Bulk Job lists the demo shop's listings there). */
let second: TestShop;

beforeAll(async () => {
  second = addShop(e2e.sim, { username: `second-${randomUUID().slice(0, 6)}` });
  stack = await startTemporalStack({
    demo: { baseUrl: e2e.sim.url, apiKey: DEMO.apiKey },
    second: second.credential,
  });
  credential = await e2e.client.createCredential(
    'Selling-kit jobs (bulk input e2e)',
    BULK.credentialType,
    BULK.credentialData(stack),
  );
}, E2E_SETUP_MS);

afterAll(() => stack?.stop(), 60_000);

describe('the Bulk Job node fed from input items, in n8n', () => {
  it(
    'offers the worker’s shops in the Shops list',
    async () => {
      const options = await e2e.client.rest<{ name: string; value: string }[]>(
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
      expect(options).toEqual([
        { name: 'demo', value: 'demo' },
        { name: 'second', value: 'second' },
      ]);
    },
    TEST_MS,
  );

  it(
    'a Code node’s five rows become a job that completes against the simulator',
    async () => {
      const skus = [1, 2, 3, 4, 5].map((n) => `E2E-INPUT-${n}`);
      const jobId = `e2e-input-${randomUUID().slice(0, 8)}`;
      const picture = `${e2e.sim.url}/demo-assets/tee-black.png`;
      const nodes = BULK.inputItemsJob(credential, { skus, picture, jobId, maxWaitMinutes: 5 });
      const { response, execution } = await runOnce(e2e.client, 'e2e: bulk job from input items', nodes);
      expect(response.status).toBe(200);
      expect(execution.status).toBe('success');
      const output = nodeOutput(execution, 'Bulk Job');
      expect(output).toHaveLength(1);
      expect(output[0]).toMatchObject({ jobId, state: 'finished', total: 5, done: 5, failed: 0, items: 5 });
      const seller = e2e.sim.world.sellers.get(DEMO.sellerId)!;
      expect(skus.filter((sku) => seller.skus.has(sku))).toEqual(skus);
    },
    TEST_MS,
  );

  it(
    'waiting with one item per listing: the report, read by the worker from its job store through Temporal',
    async () => {
      const skus = [1, 2, 3].map((n) => `E2E-REPORT-${n}`);
      const jobId = `e2e-report-${randomUUID().slice(0, 8)}`;
      const picture = `${e2e.sim.url}/demo-assets/tee-black.png`;
      const nodes = BULK.inputItemsJob(credential, {
        skus,
        picture,
        jobId,
        maxWaitMinutes: 5,
        waitOutput: 'listings',
      });
      const { execution } = await runOnce(e2e.client, 'e2e: bulk job report', nodes);
      expect(execution.status).toBe('success');
      const seller = e2e.sim.world.sellers.get(DEMO.sellerId)!;
      expect(nodeOutput(execution, 'Bulk Job')).toEqual(
        skus.map((sku, i) => ({
          jobId,
          line: i + 1,
          sku,
          status: 'ok',
          productId: seller.skus.get(sku),
          slug: expect.any(String),
        })),
      );
    },
    TEST_MS,
  );

  it(
    "Get Many → Bulk Job, no mapping step: the action node's raw output lists on another shop as it reads",
    async () => {
      const jobId = `e2e-shape-${randomUUID().slice(0, 8)}`;
      const shop = await demoShopCredential(e2e, `Demo shop (shape ${jobId})`);
      const nodes = [
        {
          name: 'Get Many',
          type: ACTION_TYPE,
          typeVersion: 3,
          parameters: { ...ACTION.listProducts(2), simplify: false },
          credentials: { [ACTION.credentialType]: shop },
        },
        BULK.startNode(credential, 2, {
          feedSource: 'inputItems',
          shops: ['second'],
          jobId,
          maxWaitMinutes: 5,
          waitOutput: 'listings',
        }),
      ];
      const { execution } = await runOnce(e2e.client, 'e2e: get many to bulk job', nodes);
      expect(execution.status).toBe('success');
      const read = nodeOutput(execution, 'Get Many') as { sku: string; brand?: string }[];
      expect(read).toHaveLength(2);
      const lines = nodeOutput(execution, 'Bulk Job') as { sku: string; status: string }[];
      expect(lines.map((l) => [l.sku, l.status])).toEqual(read.map((r) => [r.sku, 'ok']));
      // Listed on the second shop with the brand and every picture the demo shop's listing has.
      const demo = e2e.sim.world.sellers.get(DEMO.sellerId)!;
      const target = e2e.sim.world.sellers.get(second.sellerId)!;
      for (const { sku } of read) {
        const source = demo.products.get(demo.skus.get(sku)!)!;
        const copy = target.products.get(target.skus.get(sku)!)!;
        expect([copy.brand, copy.pictures.length]).toEqual([source.brand, source.pictures.length]);
      }
    },
    TEST_MS,
  );
});
