// End to end against a real n8n 2.40.7 (installed by scripts/setup-n8n.sh) and the simulator: the
// packed package is loaded as a community package, workflows are created through n8n's public API
// and run over HTTP, the trigger receives the simulator's signed webhook deliveries, and a headless
// Chromium checks the editor's node panel. One n8n for the whole file (~30 s to start).
// @needs temporal, n8n-package, n8n
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO } from '@selling-kit/simulator';
import { webhookHeaders } from '@selling-kit/api-client/core';
import {
  OUTPUT_DIR,
  nodeOutput,
  openEditor,
  sleep,
  tail,
  useE2e,
  waitFor,
  waitForPostWebhook,
  type Execution,
} from './harness.mts';
import { FEED_HEADER, feedRow, startTemporalStack, type TemporalStack } from '../helpers/temporal.mts';
import {
  ACTION,
  ACTION_TYPE,
  BULK,
  BULK_TYPE,
  TRIGGER_TYPE,
  chain,
  demoShopCredential,
  publishStartedByWebhook,
  runOnce,
  type Listing,
  type NodeSpec,
} from './workflows.mts';

const TEST_MS = 3 * 60_000;

const e2e = useE2e('n8n-e2e.log');

describe('n8n loads the packed package', () => {
  it('lists our node types and credentials', async () => {
    const nodes = await fetch(`${e2e.n8n.url}/types/nodes.json`, {
      headers: { cookie: await sessionCookie() },
    }).then((r) => r.json() as Promise<{ name: string }[]>);
    const names = nodes.map((n) => n.name);
    expect(names).toContain(TRIGGER_TYPE);
    expect(names).toContain(ACTION_TYPE);
    expect(names).toContain(BULK_TYPE);
    const credentials = await fetch(`${e2e.n8n.url}/types/credentials.json`, {
      headers: { cookie: await sessionCookie() },
    }).then((r) => r.json() as Promise<{ name: string }[]>);
    expect(credentials.map((c) => c.name)).toEqual(
      expect.arrayContaining(['marketplaceWebhookApi', ACTION.credentialType]),
    );
  });
});

describe('Marketplace node against the simulator (workflows run over HTTP)', () => {
  let credential: { id: string; name: string };
  const skuOf = "={{ $('Start').first().json.body.sku }}";

  const publish = (name: string, specs: NodeSpec[]) => publishStartedByWebhook(e2e.client, name, specs);

  const lastExecution = (workflowId: string): Promise<Execution> => e2e.client.lastExecution(workflowId);

  beforeAll(async () => {
    credential = await demoShopCredential(e2e, 'Marketplace demo shop (e2e)');
  }, TEST_MS);

  it(
    'create → get → patch → mark sold, checked in n8n and in the simulator',
    async () => {
      const sku = `E2E-${randomUUID().slice(0, 8).toUpperCase()}`;
      const listing: Listing = {
        description: 'End-to-end test tee from n8n. #nike',
        price: '19.00',
        currency: 'GBP',
        pictureUrls: [`${e2e.sim.url}/demo-assets/tee-black.png`],
        department: 'menswear',
        productType: 'tshirts',
        condition: 'used_excellent',
        brand: 'Nike',
        countryCode: 'GB',
        nationalShippingCost: '3.50',
      };
      const credentials = { [ACTION.credentialType]: credential };
      const wf = await publish('e2e: product lifecycle', [
        { name: 'Create', type: ACTION_TYPE, parameters: ACTION.createProduct(skuOf, listing), credentials },
        { name: 'Get', type: ACTION_TYPE, parameters: ACTION.getProduct(skuOf), credentials },
        { name: 'Patch', type: ACTION_TYPE, parameters: ACTION.patchProduct(skuOf, '15.00'), credentials },
        { name: 'Mark Sold', type: ACTION_TYPE, parameters: ACTION.markSold(skuOf), credentials },
      ]);
      const res = await wf.run({ sku });
      const execution = await lastExecution(wf.id);
      expect({
        http: res.status,
        status: execution.status,
        error: execution.data?.resultData?.error?.message,
      }).toEqual({
        http: 200,
        status: 'success',
        error: undefined,
      });

      const created = nodeOutput(execution, 'Create');
      expect(created).toHaveLength(1);
      expect(created[0]).toMatchObject({ sku, product_id: expect.any(Number), slug: expect.any(String) });
      const productId = created[0]!.product_id as number;
      const got = nodeOutput(execution, 'Get');
      expect(got[0]).toMatchObject({
        sku,
        product_id: productId,
        status: 'STATUS_ONSALE',
        price_amount: '19.00',
      });
      expect(nodeOutput(execution, 'Patch')).toHaveLength(1);
      expect(nodeOutput(execution, 'Mark Sold')).toHaveLength(1);

      // The simulator's own view: patched price, marked as sold.
      const record = await e2e.admin<{
        sku: string;
        state: string;
        soldVia?: string;
        fields: { price_amount?: string };
      }>('GET', `/admin/products/${productId}`);
      expect(record).toMatchObject({
        sku,
        state: 'sold',
        soldVia: 'marked',
        fields: { price_amount: '15.00' },
      });
    },
    TEST_MS,
  );

  it(
    'an API error becomes an error item with "On Error: Continue", and fails the run without it',
    async () => {
      const credentials = { [ACTION.credentialType]: credential };
      const missing = `E2E-MISSING-${randomUUID().slice(0, 8)}`;
      const tolerant = await publish('e2e: error continues', [
        {
          name: 'Get',
          type: ACTION_TYPE,
          parameters: ACTION.getProduct(skuOf),
          credentials,
          onError: 'continueRegularOutput',
        },
      ]);
      const res = await tolerant.run({ sku: missing });
      expect(res.status).toBe(200);
      const execution = await lastExecution(tolerant.id);
      expect(execution.status).toBe('success');
      const items = nodeOutput(execution, 'Get');
      expect(items).toHaveLength(1);
      const expectedError = {
        error: expect.stringContaining(missing),
        code: 'product_not_found',
        status: 404,
      };
      expect(items[0]).toMatchObject(expectedError);
      // The answer to the webhook caller is that same error item.
      const answered = (await res.json()) as Record<string, unknown>[] | Record<string, unknown>;
      const answeredItems = Array.isArray(answered) ? answered : [answered];
      expect(answeredItems).toHaveLength(1);
      expect(answeredItems[0]).toMatchObject(expectedError);

      const strict = await publish('e2e: error stops', [
        { name: 'Get', type: ACTION_TYPE, parameters: ACTION.getProduct(skuOf), credentials },
      ]);
      const failed = await strict.run({ sku: missing });
      expect(failed.status).toBeGreaterThanOrEqual(500);
      const failedExecution = await lastExecution(strict.id);
      expect(failedExecution.status).toBe('error');
      expect(JSON.stringify(failedExecution.data?.resultData?.error ?? {})).toContain(missing);
    },
    TEST_MS,
  );
});

describe('Marketplace Bulk Job node against a real Temporal server', () => {
  let stack: TemporalStack;

  beforeAll(async () => {
    stack = await startTemporalStack({ demo: { baseUrl: e2e.sim.url, apiKey: DEMO.apiKey } });
  }, TEST_MS);
  afterAll(() => stack?.stop(), 60_000);

  it(
    'starts a job from a workflow, waits for it and returns its final counts; the listings exist',
    async () => {
      const feed = join(stack.dir, 'e2e-feed.csv');
      const skus = ['E2E-BULK-1', 'E2E-BULK-2', 'E2E-BULK-3'];
      writeFileSync(
        feed,
        [
          FEED_HEADER,
          ...skus.map((sku) => feedRow(sku, `${e2e.sim.url}/demo-assets/tee-black.png`)),
          'E2E-BULK-BAD,,',
        ].join('\n') + '\n',
      );
      const credential = await e2e.client.createCredential(
        'Selling-kit jobs (e2e)',
        BULK.credentialType,
        BULK.credentialData(stack),
      );
      const jobId = `e2e-${randomUUID().slice(0, 8)}`;
      const { response, execution } = await runOnce(e2e.client, 'e2e: bulk job', [
        BULK.startNode(credential, 1, { feed, format: 'csv', shops: 'demo', jobId, maxWaitMinutes: 5 }),
      ]);
      expect(response.status).toBe(200);
      expect(execution.status).toBe('success');
      const [job] = nodeOutput(execution, 'Bulk Job');
      expect(job).toMatchObject({ jobId, state: 'finished', total: 4, done: 3, failed: 1 });
      const seller = e2e.sim.world.sellers.get(DEMO.sellerId)!;
      expect(skus.every((sku) => seller.skus.has(sku))).toBe(true);
    },
    TEST_MS,
  );
});

describe('Marketplace Trigger in a published workflow', () => {
  const webhookId = randomUUID();
  let workflowId = '';
  let productUrl = '';
  let productId = 0;

  const webhookUrl = () => `${e2e.n8n.url}/webhook/${webhookId}/webhook`;
  const executions = async () =>
    (await e2e.client.executions(workflowId)).sort((a, b) => Number(a.id) - Number(b.id));
  /** Waits for `count` executions of the workflow (or more), every one finished. */
  const finishedExecutions = (what: string, count: number) =>
    waitFor(
      what,
      async () => {
        const list = await executions();
        return list.length >= count && list.every((e) => e.finished) ? list : undefined;
      },
      60_000,
    );
  const triggerEvents = (list: Execution[]) =>
    list.map(
      (e) => nodeOutput(e, 'Marketplace Trigger')[0] as { event_type: string; data: Record<string, unknown> },
    );

  let credential: { id: string; name: string };

  beforeAll(async () => {
    credential = await e2e.client.createCredential(
      'Marketplace webhook secret (e2e)',
      'marketplaceWebhookApi',
      {
        signingSecret: DEMO.webhookSecret,
      },
    );
    workflowId = await e2e.client.createWorkflow(
      chain('e2e: marketplace trigger', [
        {
          name: 'Marketplace Trigger',
          type: TRIGGER_TYPE,
          webhookId,
          parameters: { events: ['v1:product.like', 'v1:order.new'], options: {} },
          credentials: { marketplaceWebhookApi: credential },
        },
      ]),
    );
    await e2e.client.activate(workflowId);
    await waitForPostWebhook(webhookUrl());
    // The marketplace side: subscribe the n8n URL for the demo partner (out of band in production).
    await e2e.admin('POST', '/admin/webhooks', { partnerId: DEMO.partnerId, url: webhookUrl() });
    const products = await e2e.admin<{ productId: number }[]>(
      'GET',
      `/admin/sellers/${DEMO.sellerId}/products`,
    );
    expect(products.length).toBeGreaterThan(0);
    productId = products[0]!.productId;
    productUrl = `/admin/products/${productId}/likes`;
  }, TEST_MS);

  it('the credential test (testedBy the trigger) runs inside n8n', async () => {
    const test = (data?: Record<string, unknown>) =>
      e2e.client.rest<{ status: string; message: string }>('POST', '/credentials/test', {
        credentials: { id: credential.id, name: credential.name, type: 'marketplaceWebhookApi', data },
      });
    await expect(test({ signingSecret: DEMO.webhookSecret })).resolves.toMatchObject({ status: 'OK' });
    await expect(test({ signingSecret: 'short' })).resolves.toMatchObject({ status: 'Error' });
  });

  it(
    'a like fired by the simulator is delivered, verified and starts the workflow with the event',
    async () => {
      await e2e.admin('POST', productUrl, { likerId: 4242 });
      await e2e.sim.webhooks.idle();
      const delivery = e2e.sim.webhooks.deliveries.find(
        (d) => d.eventType === 'v1:product.like' && d.url === webhookUrl(),
      );
      expect(delivery?.state).toBe('delivered');
      expect(delivery?.attempts.at(-1)?.status).toBe(200);
      const list = await finishedExecutions('the trigger execution', 1);
      expect(list).toHaveLength(1);
      expect(list[0]!.status).toBe('success');
      const [event] = triggerEvents(list);
      expect(event?.event_type).toBe('v1:product.like');
      expect(event?.data).toMatchObject({ seller_id: DEMO.sellerId, product_id: productId, liker_id: 4242 });
    },
    TEST_MS,
  );

  it(
    'an event type not selected (unlike) is acknowledged with 200 and starts nothing',
    async () => {
      await e2e.admin('DELETE', `${productUrl}/4242`);
      await e2e.sim.webhooks.idle();
      const unlike = e2e.sim.webhooks.deliveries.find((d) => d.eventType === 'v1:product.unlike');
      expect(unlike?.state).toBe('delivered');
      expect(unlike?.attempts.at(-1)?.status).toBe(200);
      // A like afterwards is the marker: once its execution exists, the unlike would have had one too.
      await e2e.admin('POST', productUrl, { likerId: 4343 });
      await e2e.sim.webhooks.idle();
      const list = await finishedExecutions('the second like execution', 2);
      await sleep(1_500);
      const events = triggerEvents(await executions());
      expect(list.length).toBe(2);
      expect(events.map((e) => e.event_type)).toEqual(['v1:product.like', 'v1:product.like']);
      expect(events[1]?.data.liker_id).toBe(4343);
    },
    TEST_MS,
  );

  it(
    'refuses forged, re-signed-with-another-secret and stale deliveries with 401 on the raw body',
    async () => {
      const before = (await executions()).length;
      const body = JSON.stringify({
        id: `evt_${randomUUID()}`,
        event_type: 'v1:order.new',
        created_at: new Date().toISOString(),
        data: { seller_id: DEMO.sellerId, purchase_id: 'forged' },
      });
      const post = (headers: Record<string, string>, payload = body) =>
        fetch(webhookUrl(), {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: payload,
        });

      const forged = await post({
        ...webhookHeaders(body, DEMO.webhookSecret),
        'x-depop-signature': 'f'.repeat(64),
      });
      expect(forged.status).toBe(401);
      expect(await forged.text()).toContain('Unauthorized');
      expect((await post(webhookHeaders(body, 'whsec_not_the_partner_secret'))).status).toBe(401);
      const stale = Math.floor(Date.now() / 1000) - 3600;
      expect((await post(webhookHeaders(body, DEMO.webhookSecret, stale))).status).toBe(401);
      expect((await post({})).status).toBe(401);
      // Same JSON, re-serialised with other spacing: the signature was over other bytes.
      const headers = webhookHeaders(body, DEMO.webhookSecret);
      expect((await post(headers, JSON.stringify(JSON.parse(body), null, 2))).status).toBe(401);

      // The genuine bytes with the genuine signature are accepted (the checks above were not vacuous).
      const ok = await post(headers);
      expect(ok.status).toBe(200);
      const list = await finishedExecutions('the signed order execution', before + 1);
      await sleep(1_000);
      const after = await executions();
      expect(after.length).toBe(before + 1);
      const last = triggerEvents(list).at(-1)!;
      expect(last.event_type).toBe('v1:order.new');
      expect(last.data.purchase_id).toBe('forged');
    },
    TEST_MS,
  );
});

describe('editor in headless Chromium', () => {
  it(
    'logs in and finds our trigger and action nodes in the node panels',
    async () => {
      mkdirSync(OUTPUT_DIR, { recursive: true });
      // What n8n loaded from the package: the panels must show these descriptions.
      const types = await fetch(`${e2e.n8n.url}/types/nodes.json`, {
        headers: { cookie: await sessionCookie() },
      }).then(
        (r) =>
          r.json() as Promise<
            { name: string; description: string; properties: { options?: { action?: string }[] }[] }[]
          >,
      );
      const descriptionOf = (name: string) => {
        const type = types.find((t) => t.name === name);
        if (!type) throw new Error(`n8n did not load ${name}`);
        return type.description;
      };
      const triggerDescription = descriptionOf(TRIGGER_TYPE);
      descriptionOf(ACTION_TYPE);
      // The action node's operations as the panel names them ("Create a product", …).
      const actionLabels = (types.find((t) => t.name === ACTION_TYPE)?.properties ?? [])
        .flatMap((p) => p.options ?? [])
        .map((o) => o.action)
        .filter((a): a is string => typeof a === 'string');
      expect(actionLabels.length).toBeGreaterThan(3);
      // A saved workflow holding the trigger (its node panel then offers actions; its URL is known).
      const webhookId = randomUUID();
      const triggerWebhookUrl = `${e2e.n8n.url}/webhook/${webhookId}/webhook`;
      const triggerWorkflowId = await e2e.client.createWorkflow(
        chain('e2e: editor check', [
          {
            name: 'Marketplace Trigger',
            type: TRIGGER_TYPE,
            webhookId,
            parameters: { events: ['*'], options: {} },
          },
        ]),
      );

      const { browser, page } = await openEditor(e2e.n8n, { width: 1400, height: 900 });
      try {
        /** Opens the node panel of the workflow at `path`, searches "Marketplace", returns the panel text. */
        const searchPanel = async (
          path: string,
          expected: (text: string) => boolean,
          screenshot: string,
          openApp = false,
        ): Promise<string> => {
          await page.goto(path, { waitUntil: 'domcontentloaded', timeout: 120_000 });
          const plus = page.locator('[data-test-id="node-creator-plus-button"]').first();
          await plus.waitFor({ state: 'visible', timeout: 120_000 });
          await plus.click();
          const creator = page.locator('[data-test-id="node-creator"]');
          const search = creator.locator('input').first();
          await search.waitFor({ state: 'visible', timeout: 30_000 });
          await search.fill('Marketplace');
          let text = '';
          try {
            if (openApp) {
              // Node and trigger of one package form one app entry: open it to list its actions.
              const app = creator.getByText('Marketplace', { exact: true }).first();
              await app.waitFor({ state: 'visible', timeout: 30_000 });
              await app.click();
            }
            await waitFor(
              `our nodes in the node panel (${screenshot})`,
              async () => {
                text = await creator.innerText();
                return expected(text) ? text : undefined;
              },
              30_000,
            );
          } finally {
            await sleep(500); // let the panel finish sliding in
            await page.screenshot({ path: join(OUTPUT_DIR, screenshot), fullPage: true });
          }
          return text;
        };

        // A new workflow starts with the trigger panel ("What triggers this workflow?").
        const triggerPanel = await searchPanel(
          '/workflow/new',
          (text) => text.includes(triggerDescription),
          'n8n-trigger-panel.png',
        );
        expect(triggerPanel).toContain('Marketplace');
        // After a trigger, the panel lists actions.
        const actionPanel = await searchPanel(
          `/workflow/${triggerWorkflowId}`,
          (text) => actionLabels.filter((label) => text.includes(label)).length >= 3,
          'n8n-node-panel.png',
          true,
        );
        expect(actionPanel).toContain('Marketplace');

        // The trigger's settings show the URL to give the marketplace.
        await page.keyboard.press('Escape');
        await page.locator('[data-test-id="canvas-node"]').first().dblclick();
        const ndv = page.locator('[data-test-id="ndv"]');
        await ndv.waitFor({ state: 'visible', timeout: 30_000 });
        await ndv.getByText('Webhook URLs').first().click();
        await ndv.getByText('Production URL', { exact: true }).first().click();
        try {
          await waitFor(
            'the production URL in the trigger settings',
            async () => ((await ndv.innerText()).includes(triggerWebhookUrl) ? true : undefined),
            30_000,
          );
        } finally {
          await page.screenshot({ path: join(OUTPUT_DIR, 'n8n-trigger-settings.png'), fullPage: true });
        }
        expect(await ndv.innerText()).toMatch(/Give this workflow's Production URL/);
      } finally {
        await browser.close();
      }
    },
    TEST_MS,
  );
});

async function sessionCookie(): Promise<string> {
  const res = await fetch(`${e2e.n8n.url}/rest/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ emailOrLdapLoginId: e2e.n8n.owner.email, password: e2e.n8n.owner.password }),
  });
  if (res.status !== 200)
    throw new Error(`login failed (${res.status}); n8n log:\n${tail(e2e.n8n.logFile, 20)}`);
  return (res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth=')) ?? '').split(';')[0] ?? '';
}
