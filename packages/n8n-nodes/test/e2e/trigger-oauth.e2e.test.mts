// End to end in a real n8n 2.40.7 with the simulator: (a) the Marketplace Trigger (version 2) registers
// its Production URL through the webhook configuration API when the workflow is published, a simulated
// purchase is delivered signed and runs the workflow, and unpublishing removes the subscription;
// (b) the OAuth2 credential: n8n's consent flow in headless Chromium through the simulator's authorize
// page, a Marketplace node call with the token, then an access token expired in the simulator (its
// clock moved past the token's life) that n8n refreshes (the simulator records the refresh_token
// grant) before the call succeeds again; the trigger registers with that OAuth2 credential too.
// @needs n8n-package, n8n
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO } from '@selling-kit/simulator';
import {
  OUTPUT_DIR,
  finished,
  nodeOutput,
  openEditor,
  useE2e,
  waitFor,
  waitForPostWebhook,
} from './harness.mts';
import {
  ACTION_TYPE,
  TRIGGER_TYPE,
  chain,
  demoShopCredential,
  publishStartedByWebhook,
} from './workflows.mts';

const TEST_MS = 3 * 60_000;

const e2e = useE2e('n8n-trigger-oauth-e2e.log');

interface Subscription {
  id: string;
  partnerId: string;
  url: string;
  eventTypes: string[];
}
const subscriptionsOf = async (url: string) =>
  (await e2e.admin<Subscription[]>('GET', '/admin/webhooks')).filter((s) => s.url === url);

/** A version-2 trigger registering its URL with `credentials`; published; returns its URL and id. */
async function publishRegisteredTrigger(
  name: string,
  authentication: 'apiKey' | 'oAuth2',
  credentials: Record<string, { id: string; name: string }>,
): Promise<{ workflowId: string; url: string }> {
  const webhookId = randomUUID();
  const workflowId = await e2e.client.createWorkflow(
    chain(name, [
      {
        name: 'Marketplace Trigger',
        type: TRIGGER_TYPE,
        typeVersion: 2,
        webhookId,
        parameters: { registration: 'api', authentication, events: ['v1:order.new'], options: {} },
        credentials,
      },
    ]),
  );
  await e2e.client.activate(workflowId);
  const url = `${e2e.n8n.url}/webhook/${webhookId}/webhook`;
  await waitForPostWebhook(url);
  // n8n serves the URL first (storeWebhook), then runs checkExists / create: wait for the subscription.
  await waitFor(
    'the subscription on the marketplace',
    async () => ((await subscriptionsOf(url)).length > 0 ? true : undefined),
    30_000,
    250,
  );
  return { workflowId, url };
}

async function unpublish(workflowId: string, url: string): Promise<void> {
  await e2e.client.api('POST', `/workflows/${workflowId}/deactivate`);
  await waitFor(
    'the subscription to be removed',
    async () => ((await subscriptionsOf(url)).length === 0 ? true : undefined),
    30_000,
  );
}

describe('Marketplace Trigger v2 registers its URL (API key)', () => {
  it(
    'publish → subscribed; a simulated purchase runs the workflow; unpublish → removed',
    async () => {
      const secret = await e2e.client.createCredential('Webhook secret (e2e)', 'marketplaceWebhookApi', {
        signingSecret: DEMO.webhookSecret,
      });
      const api = await demoShopCredential(e2e, 'Marketplace demo shop (e2e)');
      const { workflowId, url } = await publishRegisteredTrigger('e2e: registered trigger', 'apiKey', {
        marketplaceWebhookApi: secret,
        marketplaceApi: api,
      });

      // The marketplace holds the subscription, for the demo partner (the API key's) and the events chosen.
      const subscriptions = await subscriptionsOf(url);
      expect(subscriptions).toEqual([
        expect.objectContaining({ partnerId: DEMO.partnerId, url, eventTypes: ['v1:order.new'] }),
      ]);
      // n8n saved its id in the workflow's static data (what survives a restart).
      await waitFor(
        'the subscription id in the saved static data',
        async () => {
          const saved = await e2e.client.api<{ staticData?: unknown }>('GET', `/workflows/${workflowId}`);
          return JSON.stringify(saved.staticData ?? {}).includes(subscriptions[0]!.id) ? true : undefined;
        },
        30_000,
        250,
      );

      // A buyer purchases a demo listing: the simulator delivers v1:order.new, signed, to the URL.
      const sku = DEMO.skus[0];
      const purchase = await fetch(`${e2e.sim.url}/api/v1/products/by-sku/${sku}/purchase/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO.apiKey}` },
      });
      expect(purchase.status).toBeLessThan(300);
      await e2e.sim.webhooks.idle();
      const delivery = e2e.sim.webhooks.deliveries.find(
        (d) => d.url === url && d.eventType === 'v1:order.new',
      );
      expect(delivery?.state).toBe('delivered');
      expect(delivery?.attempts.at(-1)?.status).toBe(200);
      const [execution] = await waitFor(
        'the trigger execution',
        async () => {
          const list = finished(await e2e.client.executions(workflowId));
          return list.length >= 1 ? list : undefined;
        },
        60_000,
      );
      expect(execution!.status).toBe('success');
      const event = nodeOutput(execution!, 'Marketplace Trigger')[0] as {
        event_type: string;
        data: { seller_id: number; line_items: { slug: string }[] };
      };
      expect(event.event_type).toBe('v1:order.new');
      expect(event.data.seller_id).toBe(DEMO.sellerId);
      expect(event.data.line_items.length).toBeGreaterThan(0);

      await unpublish(workflowId, url);
      expect(e2e.sim.world.webhooks.has(subscriptions[0]!.id)).toBe(false);
    },
    TEST_MS,
  );
});

describe('OAuth2 credential: consent in Chromium, a node call, a refreshed token', () => {
  let credential: { id: string; name: string };
  let clientId = '';
  const tokensOfClient = () =>
    [...e2e.sim.world.refreshTokens.values()].filter((t) => t.clientId === clientId);

  beforeAll(async () => {
    // A cross-lister app whose redirect URI is n8n's OAuth callback.
    const app = await e2e.admin<{ clientId: string; clientSecret: string }>('POST', '/admin/oauth-clients', {
      partnerId: DEMO.oauth.partnerId,
      redirectUris: [`${e2e.n8n.url}/rest/oauth2-credential/callback`],
    });
    clientId = app.clientId;
    credential = await e2e.client.createCredential('Marketplace OAuth2 (e2e)', 'marketplaceOAuth2Api', {
      environment: 'simulator',
      baseUrl: e2e.sim.url,
      simulatorLogin: DEMO.username,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
    });
  }, TEST_MS);

  /** A published workflow: Webhook → Marketplace (Shop → Get) on the OAuth2 credential. */
  const publishShopGet = () =>
    publishStartedByWebhook(e2e.client, 'e2e: OAuth2 shop get', [
      {
        name: 'Shop',
        type: ACTION_TYPE,
        typeVersion: 2,
        parameters: { authentication: 'oAuth2', resource: 'shop', operation: 'get' },
        credentials: { marketplaceOAuth2Api: credential },
      },
    ]);

  it(
    "n8n's consent flow through the simulator's authorize page stores a token pair",
    async () => {
      mkdirSync(OUTPUT_DIR, { recursive: true });
      const { browser, page } = await openEditor(e2e.n8n);
      try {
        // What the editor's "Connect my account" does: ask n8n for the consent URL, open it.
        const auth = await page.request.get(`/rest/oauth2-credential/auth?id=${credential.id}`);
        expect(auth.status()).toBe(200);
        const consentUrl = ((await auth.json()) as { data: string }).data;
        const consent = new URL(consentUrl);
        expect(`${consent.origin}${consent.pathname}`).toBe(`${e2e.sim.url}/oauth/authorize`);
        expect(consent.searchParams.get('client_id')).toBe(clientId);
        expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
        expect(consent.searchParams.get('login_hint')).toBe(DEMO.username);
        expect(consent.searchParams.get('redirect_uri')).toBe(
          `${e2e.n8n.url}/rest/oauth2-credential/callback`,
        );

        // The simulator's page approves for the hinted shop and redirects to n8n's callback.
        await page.goto(consentUrl, { waitUntil: 'load', timeout: 60_000 });
        try {
          expect(page.url()).toContain(`${e2e.n8n.url}/rest/oauth2-credential/callback`);
          await waitFor(
            'n8n to store the token pair',
            async () => (tokensOfClient().length === 1 ? true : undefined),
            30_000,
          );
          expect(await page.locator('body').innerText()).toContain('Connection successful');
        } finally {
          await page.screenshot({ path: join(OUTPUT_DIR, 'n8n-oauth-callback.png'), fullPage: true });
        }
      } finally {
        await browser.close();
      }
      const [token] = tokensOfClient();
      expect(token).toMatchObject({ sellerId: DEMO.sellerId, used: false });
    },
    TEST_MS,
  );

  it(
    'a node call succeeds with the token; after the token expires n8n refreshes it and the call succeeds',
    async () => {
      const wf = await publishShopGet();
      const first = await wf.run();
      expect(first.status).toBe(200);
      const runs = async (count: number) =>
        await waitFor(
          `${count} finished execution(s)`,
          async () => {
            const list = finished(await e2e.client.executions(wf.id));
            return list.length >= count ? list.sort((a, b) => Number(b.id) - Number(a.id)) : undefined;
          },
          60_000,
        );
      const [one] = await runs(1);
      expect(one!.status).toBe('success');
      expect(nodeOutput(one!, 'Shop')[0]).toMatchObject({ id: DEMO.sellerId, username: DEMO.username });
      expect(tokensOfClient()).toHaveLength(1);

      // Expire the access token: the simulator's clock moves past its life (refresh tokens live a year).
      const { accessTokenTtlSec } = await e2e.admin<{ accessTokenTtlSec: number }>('GET', '/admin/config');
      await e2e.admin('POST', '/admin/clock/advance', { seconds: accessTokenTtlSec + 60 });
      const [expired] = tokensOfClient();

      const second = await wf.run();
      expect(second.status).toBe(200);
      const [two] = await runs(2);
      expect(two!.status).toBe('success');
      expect(nodeOutput(two!, 'Shop')[0]).toMatchObject({ id: DEMO.sellerId });
      // The simulator saw a refresh_token grant: the first refresh token is spent, a rotated one issued.
      const tokens = tokensOfClient();
      expect(tokens).toHaveLength(2);
      expect(tokens.find((t) => t.token === expired!.token)?.used).toBe(true);
      expect(tokens.filter((t) => !t.used)).toHaveLength(1);
      await e2e.client.api('POST', `/workflows/${wf.id}/deactivate`);
    },
    TEST_MS,
  );

  it(
    'the trigger registers and removes its URL with the OAuth2 credential (the app’s partner)',
    async () => {
      const secret = await e2e.client.createCredential(
        'Webhook secret (e2e, OAuth)',
        'marketplaceWebhookApi',
        {
          signingSecret: DEMO.webhookSecret,
        },
      );
      const { workflowId, url } = await publishRegisteredTrigger('e2e: trigger with OAuth2', 'oAuth2', {
        marketplaceWebhookApi: secret,
        marketplaceOAuth2Api: credential,
      });
      expect(await subscriptionsOf(url)).toEqual([
        expect.objectContaining({ partnerId: DEMO.oauth.partnerId, url, eventTypes: ['v1:order.new'] }),
      ]);
      await unpublish(workflowId, url);
    },
    TEST_MS,
  );
});
