// The product picker in a real n8n 2.40.7 with the packed package and the demo shop of the simulator:
// n8n's own resource-locator and dynamic-options endpoints call our methods as the editor does, a
// published workflow runs version 2 of the node with the picker's By URL and From List values, and a
// headless Chromium opens the picker in the editor (its screenshot is docs/picker.png).
// @needs n8n-package, n8n
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO } from '@selling-kit/simulator';
import {
  OUTPUT_DIR,
  PACKAGE_DIR,
  nodeOutput,
  openEditor,
  sleep,
  useE2e,
  waitFor,
  type Execution,
} from './harness.mts';
import {
  ACTION,
  ACTION_TYPE,
  chain,
  demoShopCredential,
  publishStartedByWebhook,
  startedByWebhook,
  type NodeSpec,
} from './workflows.mts';

const TEST_MS = 3 * 60_000;
const SCREENSHOT = join(PACKAGE_DIR, 'docs', 'picker.png');

const e2e = useE2e('n8n-picker-e2e.log');
let credential: { id: string; name: string };

const seller = () => e2e.sim.world.sellers.get(DEMO.sellerId)!;
const bySku = (sku: string) => seller().products.get(seller().skus.get(sku)!)!;
const locator = (mode: string, value: string) => ({ __rl: true, mode, value });
const v2 = (name: string, parameters: Record<string, unknown>, extra: Partial<NodeSpec> = {}): NodeSpec => ({
  name,
  type: ACTION_TYPE,
  typeVersion: 2,
  parameters: { authentication: 'apiKey', ...parameters },
  credentials: { [ACTION.credentialType]: credential },
  ...extra,
});

beforeAll(async () => {
  credential = await demoShopCredential(e2e, 'Marketplace demo shop (picker e2e)');
}, TEST_MS);

/** What the editor sends to n8n's dynamic-node-parameters endpoints for our node, version 2. */
const editorRequest = (path: string, methodName: string, currentNodeParameters: Record<string, unknown>) => ({
  path,
  methodName,
  nodeTypeAndVersion: { name: ACTION_TYPE, version: 2 },
  currentNodeParameters: { authentication: 'apiKey', resource: 'products', ...currentNodeParameters },
  credentials: { [ACTION.credentialType]: { id: credential.id, name: credential.name } },
});

describe("n8n's editor endpoints call the node's look-ups", () => {
  it(
    'resource-locator-results: the demo shop’s products, searchable',
    async () => {
      type Results = { results: { name: string; value: string; url?: string }[]; paginationToken?: string };
      const all = await e2e.client.rest<Results>(
        'POST',
        '/dynamic-node-parameters/resource-locator-results',
        editorRequest('parameters.product', 'searchProducts', { operation: 'get' }),
      );
      const ids = DEMO.skus.map((sku) => String(bySku(sku).productId));
      expect(all.results.map((r) => r.value)).toEqual(expect.arrayContaining(ids));
      const jacket = bySku('DEMO-JACKET-003');
      expect(all.results.find((r) => r.value === String(jacket.productId))).toEqual({
        name: 'SKU DEMO-JACKET-003 · Carhartt work jacket, green can… · 80.00 GBP',
        value: String(jacket.productId),
        url: `https://www.depop.com/products/${jacket.slug}/`,
      });

      const filtered = await e2e.client.rest<Results>(
        'POST',
        '/dynamic-node-parameters/resource-locator-results',
        { ...editorRequest('parameters.product', 'searchProducts', { operation: 'get' }), filter: 'levi' },
      );
      expect(filtered.results.map((r) => r.value)).toEqual([String(bySku('DEMO-JEANS-002').productId)]);
    },
    TEST_MS,
  );

  it(
    'options: the seller addresses and the currency of a picked product',
    async () => {
      type Options = { name: string; value: string | number }[];
      const addresses = await e2e.client.rest<Options>(
        'POST',
        '/dynamic-node-parameters/options',
        editorRequest('parameters.addressId', 'getAddresses', {
          resource: 'shipping',
          operation: 'listProviders',
        }),
      );
      expect(addresses).toEqual([
        { name: 'Demo Shop — 1 Market Street, London, E1 6AN, GB', value: DEMO.addressId },
      ]);
      const currencies = await e2e.client.rest<Options>(
        'POST',
        '/dynamic-node-parameters/options',
        editorRequest('parameters.offerCurrency', 'getCurrencies', {
          resource: 'offers',
          operation: 'send',
          product: locator('sku', 'DEMO-TEE-001'),
        }),
      );
      expect(currencies).toEqual([{ name: "GBP (the product's currency)", value: 'GBP' }]);
    },
    TEST_MS,
  );
});

describe('a published workflow with version 2 of the node', () => {
  const lastExecution = (workflowId: string): Promise<Execution> => e2e.client.lastExecution(workflowId);

  it(
    'finds products By URL and From List, returns full records, and names a bad URL at run time',
    async () => {
      const tee = bySku('DEMO-TEE-001');
      const jeans = bySku('DEMO-JEANS-002');
      const wf = await publishStartedByWebhook(e2e.client, 'e2e: picker', [
        v2('Get By URL', {
          resource: 'products',
          operation: 'get',
          product: locator('url', `https://www.depop.com/products/${tee.slug}/?ref=e2e`),
        }),
        v2('Boost From List', {
          resource: 'products',
          operation: 'boost',
          product: { ...locator('list', String(jeans.productId)), cachedResultName: 'Levi’s 501' },
        }),
        // An expression is only known at run time: the node itself checks it.
        v2(
          'URL From Input',
          {
            resource: 'products',
            operation: 'get',
            product: locator('url', "={{ $('Start').first().json.body.url }}"),
          },
          { onError: 'continueRegularOutput' },
        ),
      ]);
      const res = await wf.run({ url: 'https://example.com/not-a-product' });
      expect(res.status).toBe(200);
      const execution = await lastExecution(wf.id);
      expect(execution.status).toBe('success');

      expect(nodeOutput(execution, 'Get By URL')).toEqual([
        expect.objectContaining({
          product_id: tee.productId,
          sku: 'DEMO-TEE-001',
          status: 'on sale',
          status_code: 'STATUS_ONSALE',
          url: `https://www.depop.com/products/${tee.slug}/`,
        }),
      ]);
      expect(nodeOutput(execution, 'Boost From List')).toEqual([
        expect.objectContaining({ product_id: jeans.productId, is_boosted: true, status: 'on sale' }),
      ]);
      expect(bySku('DEMO-JEANS-002').isBoosted).toBe(true);
      expect(nodeOutput(execution, 'URL From Input')).toEqual([
        {
          error: expect.stringMatching(
            /^Product \(By URL\): "https:\/\/example.com\/not-a-product" — not a product URL or slug/,
          ),
        },
      ]);
    },
    TEST_MS,
  );
});

describe("n8n applies the picker's validation", () => {
  it(
    'refuses to publish a workflow whose By URL value is not a product URL or slug',
    async () => {
      const { workflow } = startedByWebhook('e2e: picker validation', [
        v2('Bad URL', {
          resource: 'products',
          operation: 'get',
          product: locator('url', 'https://example.com/not-a-product'),
        }),
      ]);
      const id = await e2e.client.createWorkflow(workflow);
      await expect(e2e.client.activate(id)).rejects.toThrow(
        /400 .*Node \\"Bad URL\\":.*invalid required parameters: product/s,
      );
    },
    TEST_MS,
  );
});

describe('the picker in the editor', () => {
  it(
    'shows "Mark as Sold: Product" on the canvas and lists the shop’s products when opened',
    async () => {
      const workflowId = await e2e.client.createWorkflow(
        chain('e2e: picker in the editor', [
          v2('Mark as Sold', {
            resource: 'products',
            operation: 'markSold',
            product: locator('list', ''),
          }),
        ]),
      );
      const { browser, page } = await openEditor(e2e.n8n, { width: 1400, height: 900 });
      try {
        await page.goto(`/workflow/${workflowId}`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
        const canvasNode = page.locator('[data-test-id="canvas-node"]').first();
        await canvasNode.waitFor({ state: 'visible', timeout: 120_000 });
        await waitFor(
          'the subtitle on the canvas',
          async () => ((await canvasNode.innerText()).includes('Mark as Sold: Product') ? true : undefined),
          30_000,
        );

        await canvasNode.dblclick();
        const ndv = page.locator('[data-test-id="ndv"]');
        await ndv.waitFor({ state: 'visible', timeout: 30_000 });
        await ndv.locator('[data-test-id="rlc-input"]').first().click();
        const items = page.locator('[data-test-id="rlc-item"]');
        let rows: string[] = [];
        try {
          await waitFor(
            "the shop's products in the picker",
            async () => {
              rows = await items.allInnerTexts();
              return rows.some((r) => r.includes('SKU DEMO-JACKET-003')) ? rows : undefined;
            },
            60_000,
          );
        } finally {
          await sleep(500); // let the dropdown finish opening
          mkdirSync(OUTPUT_DIR, { recursive: true });
          await page.screenshot({ path: join(OUTPUT_DIR, 'n8n-picker.png'), fullPage: true });
        }
        expect(rows).toEqual(
          expect.arrayContaining([
            expect.stringContaining('SKU DEMO-TEE-001 · Vintage black Nike tee, boxy fi… · 25.00 GBP'),
          ]),
        );
        mkdirSync(join(PACKAGE_DIR, 'docs'), { recursive: true });
        await page.screenshot({ path: SCREENSHOT });
      } finally {
        await browser.close();
      }
    },
    TEST_MS,
  );
});
