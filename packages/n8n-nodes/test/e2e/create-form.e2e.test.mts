// End to end against a real n8n 2.40.7 and the simulator: a workflow whose Create node (version 2) is
// filled in only through the form's typed fields — pictures from an expression giving an array —
// succeeds the first time and hands on the full listing; then headless Chromium opens that node in
// the editor and saves the form as docs/create-form.png (the README's picture of it).
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO, startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import {
  N8nClient,
  PACKAGE_DIR,
  installPackedPackage,
  makeUserFolder,
  nodeOutput,
  sleep,
  startN8n,
  waitFor,
  waitForPostWebhook,
  type Execution,
  type N8nInstance,
  openEditor,
} from './harness.mts';
import { ACTION, ACTION_TYPE, chain, webhookStart } from './workflows.mts';

const SETUP_MS = 8 * 60_000;
const TEST_MS = 4 * 60_000;
const DOCS_DIR = join(PACKAGE_DIR, 'docs');

let userFolder = '';
let sim: RunningSimulator | undefined;
let n8n: N8nInstance | undefined;
let client: N8nClient;

beforeAll(async () => {
  userFolder = await makeUserFolder();
  const [started] = await Promise.all([startSimulator({ demo: true }), installPackedPackage(userFolder)]);
  sim = started;
  n8n = await startN8n({ userFolder, logName: 'n8n-create-form.log' });
  client = new N8nClient(n8n.url);
  await client.login(n8n.owner.email, n8n.owner.password);
  await client.createApiKey();
}, SETUP_MS);

afterAll(async () => {
  await n8n?.stop();
  await sim?.close();
  if (userFolder) await rm(userFolder, { recursive: true, force: true });
}, 60_000);

/** The Create form (version 2) as a user fills it in: typed fields only, no JSON anywhere. */
const createForm = (): Record<string, unknown> => ({
  authentication: 'apiKey',
  resource: 'products',
  operation: 'create',
  description: 'Waxed cotton field jacket, barely worn #vintage #gorpcore',
  priceAmount: '120.00',
  priceCurrency: 'GBP',
  pictures: { picture: [{ url: "={{ $('Start').first().json.body.pictures }}" }] },
  productType: 'jackets',
  brandName: 'Patagonia',
  condition: 'used_excellent',
  department: 'menswear',
  countryCode: 'GB',
  quantity: 1,
  nationalShippingCost: '4.50',
  newSku: "={{ $('Start').first().json.body.sku }}",
  extraFields: {
    colour: ['green'],
    discount_price: '99.00',
    size_id: 18,
    size_set_id: 44,
    style: ['gorpcore'],
  },
});

describe('the Create form (version 2) in a real n8n', () => {
  let workflowId = '';

  it(
    'a Create built only from the form succeeds the first time and returns the listing with its url',
    async () => {
      const credential = await client.createCredential(
        'Marketplace demo shop (create form)',
        ACTION.credentialType,
        ACTION.credentialData(sim!.url, DEMO.apiKey),
      );
      const path = `create-form-${randomUUID()}`;
      workflowId = await client.createWorkflow(
        chain('e2e: create from the form', [
          webhookStart(path),
          {
            name: 'Create',
            type: ACTION_TYPE,
            typeVersion: 2,
            parameters: createForm(),
            credentials: { [ACTION.credentialType]: credential },
          },
        ]),
      );
      await client.activate(workflowId);
      await waitForPostWebhook(`${n8n!.url}/webhook/${path}`);

      const sku = `FORM-E2E-${randomUUID().slice(0, 8).toUpperCase()}`;
      const pictures = [`${sim!.url}/demo-assets/tee-black.png`, `${sim!.url}/demo-assets/tee-black.png`];
      const res = await fetch(`${n8n!.url}/webhook/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sku, pictures }),
        signal: AbortSignal.timeout(120_000),
      });
      const execution = await waitFor<Execution>(
        'the finished execution',
        async () => {
          const done = (await client.executions(workflowId)).filter(
            (e) => e.finished || e.status === 'error' || e.status === 'success',
          );
          return done[0];
        },
        60_000,
      );
      expect({
        http: res.status,
        status: execution.status,
        error: execution.data?.resultData?.error?.message,
      }).toEqual({ http: 200, status: 'success', error: undefined });

      const [record] = nodeOutput(execution, 'Create');
      expect(record).toMatchObject({
        sku,
        product_id: expect.any(Number),
        status: 'on sale',
        status_code: 'STATUS_ONSALE',
        url: expect.stringMatching(/^https:\/\/www\.depop\.com\/products\/.+\/$/),
        brand: 'Patagonia',
        discount_price: '99.00',
        colour: ['green'],
        size_id: 18,
      });
      expect(record!.pictures).toHaveLength(2);
      expect(record!.notice).toBeUndefined();
    },
    TEST_MS,
  );

  it(
    'the editor shows the form: required fields first, hints, Additional Fields (screenshot for the README)',
    async () => {
      expect(workflowId).not.toBe('');
      mkdirSync(DOCS_DIR, { recursive: true });
      const { browser, page } = await openEditor(n8n!, { width: 1440, height: 1900 });
      try {
        await page.goto(`/workflow/${workflowId}`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
        const node = page.locator('[data-test-id="canvas-node"]').filter({ hasText: 'Create' }).first();
        await node.waitFor({ state: 'visible', timeout: 120_000 });
        await node.dblclick();
        const ndv = page.locator('[data-test-id="ndv"]');
        await ndv.waitFor({ state: 'visible', timeout: 30_000 });
        let text = '';
        try {
          text = await waitFor(
            'the Create form in the node view',
            async () => {
              const shown = await ndv.innerText();
              return ['Pictures', 'Brand', 'Condition', 'Department', 'Additional Fields'].every((l) =>
                shown.includes(l),
              )
                ? shown
                : undefined;
            },
            60_000,
          );
        } finally {
          await sleep(800); // let the panel settle before the picture
          await page.screenshot({ path: join(DOCS_DIR, 'create-form.png') });
        }
        // Labels in the form's order, and the hints under the fields.
        const lines = text.split('\n').map((l) => l.trim());
        const at = (label: string) => {
          const index = lines.indexOf(label);
          expect({ label, shown: index >= 0 }).toEqual({ label, shown: true });
          return index;
        };
        expect(at('Description')).toBeLessThan(at('Price'));
        expect(at('Pictures')).toBeLessThan(at('Brand'));
        expect(at('Department')).toBeLessThan(at('Additional Fields'));
        expect(text).toMatch(/At most 5 hashtags/);
        expect(text).toMatch(/Write unbranded if the item has none/);
        expect(text).not.toMatch(/Additional Fields \(JSON\)/);
      } finally {
        await browser.close();
      }
    },
    TEST_MS,
  );
});
