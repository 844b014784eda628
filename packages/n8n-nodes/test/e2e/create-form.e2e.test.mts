// End to end against a real n8n 2.40.7 and the simulator: a workflow whose Create node (version 2) is
// filled in only through the form's typed fields — pictures from an expression giving an array —
// succeeds the first time and hands on the full listing; then headless Chromium opens that node in
// the editor and saves the form as docs/create-form.png (the README's picture of it).
// @needs n8n-package, n8n
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_DIR, nodeOutput, openEditor, sleep, useE2e, waitFor } from './harness.mts';
import { ACTION, ACTION_TYPE, demoShopCredential, publishStartedByWebhook } from './workflows.mts';
import { jacketCreateForm } from '../helpers/parameters.mts';

const TEST_MS = 4 * 60_000;
const DOCS_DIR = join(PACKAGE_DIR, 'docs');

const e2e = useE2e('n8n-create-form.log');

/** The Create form (version 2) as a user fills it in: typed fields only, no JSON anywhere. */
const createForm = (): Record<string, unknown> =>
  jacketCreateForm({
    authentication: 'apiKey',
    description: 'Waxed cotton field jacket, barely worn #vintage #gorpcore',
    pictures: { picture: [{ url: "={{ $('Start').first().json.body.pictures }}" }] },
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
      const credential = await demoShopCredential(e2e, 'Marketplace demo shop (create form)');
      const wf = await publishStartedByWebhook(e2e.client, 'e2e: create from the form', [
        {
          name: 'Create',
          type: ACTION_TYPE,
          typeVersion: 2,
          parameters: createForm(),
          credentials: { [ACTION.credentialType]: credential },
        },
      ]);
      workflowId = wf.id;

      const sku = `FORM-E2E-${randomUUID().slice(0, 8).toUpperCase()}`;
      const pictures = [
        `${e2e.sim.url}/demo-assets/tee-black.png`,
        `${e2e.sim.url}/demo-assets/tee-black.png`,
      ];
      const res = await wf.run({ sku, pictures });
      const execution = await e2e.client.lastExecution(workflowId);
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
      const { browser, page } = await openEditor(e2e.n8n, { width: 1440, height: 1900 });
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
