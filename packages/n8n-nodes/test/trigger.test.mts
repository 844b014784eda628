// Unit tests of the Marketplace Trigger with a mocked IWebhookFunctions: signature on the raw bytes,
// replay window, 401 to forgeries, event filter, payload checks, and the credential's local test.
import { orderNewEventData } from '@selling-kit/simulator/testing';
import type {
  ICredentialTestFunctions,
  IDataObject,
  IWebhookFunctions,
  IWebhookResponseData,
} from 'n8n-workflow';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  signWebhook,
  webhookHeaders,
} from '@selling-kit/api-client/core';
import { MarketplaceTrigger } from '../nodes/MarketplaceTrigger/MarketplaceTrigger.node.ts';
import { MarketplaceWebhookApi } from '../credentials/MarketplaceWebhookApi.credentials.ts';
import { readRawBody } from '../nodes/MarketplaceTrigger/helpers.ts';

const SECRET = 'whsec_unit_test_secret_0123456789';
const nowSec = () => Math.floor(Date.now() / 1000);

const EVENTS: Record<string, IDataObject> = {
  'v1:order.new': orderNewEventData() as IDataObject,
  'v1:order.refund': { purchase_id: 'p_1', refunded_by: 'PARTNER' },
  'v1:product.like': { seller_id: 1001, product_id: 7, sku: 'SKU-7', slug: 'demo-tee', liker_id: 42 },
  'v1:product.unlike': { seller_id: 1001, product_id: 7, sku: null, slug: 'demo-tee', liker_id: 42 },
  'v1:product.updated': {
    seller_id: 1001,
    product_id: 7,
    sku: 'SKU-7',
    slug: 'demo-tee',
    status: 'SOLD',
    changed_fields: ['status'],
  },
};

function envelope(eventType: string, data: IDataObject = EVENTS[eventType] ?? {}): string {
  // Unusual spacing on purpose: the signature covers these exact bytes, not re-serialised JSON.
  return `{"id":"evt_${eventType}", "event_type":"${eventType}","created_at":"2026-11-23T07:00:00.000Z","data":${JSON.stringify(data, null, 1)}}`;
}

interface FakeResponse {
  statusCode?: number;
  body?: unknown;
  ended: boolean;
}

interface Call {
  rawBody?: unknown;
  headers?: Record<string, string>;
  events?: string[];
  options?: IDataObject;
  secret?: string;
  /** The node's version (1 by default): from 3 the secret is a field of the API credential. */
  typeVersion?: number;
  authentication?: string;
}

async function call(
  input: Call,
): Promise<{ result: IWebhookResponseData; res: FakeResponse; credentialNames: string[] }> {
  const res: FakeResponse = { ended: false };
  const credentialNames: string[] = [];
  const response = {
    status(code: number) {
      res.statusCode = code;
      return response;
    },
    json(body: unknown) {
      res.body = body;
      return response;
    },
    send(body: unknown) {
      res.body = body;
      return response;
    },
    end() {
      res.ended = true;
      return response;
    },
  };
  const params: Record<string, unknown> = {
    events: input.events ?? ['*'],
    options: input.options ?? {},
    ...(input.authentication ? { authentication: input.authentication } : {}),
  };
  const version = input.typeVersion ?? 1;
  const ctx = {
    getRequestObject: () => ({
      rawBody: input.rawBody,
      headers: input.headers ?? {},
      body: {},
    }),
    getResponseObject: () => response,
    getCredentials: async (name: string) => {
      credentialNames.push(name);
      const secret = input.secret ?? SECRET;
      return version >= 3 ? { apiKey: 'pak_x', webhookSigningSecret: secret } : { signingSecret: secret };
    },
    getNode: () => ({ name: 'Marketplace Trigger', typeVersion: version }),
    getNodeParameter: (name: string, fallback?: unknown) => (name in params ? params[name] : fallback),
    helpers: {
      returnJsonArray: (items: IDataObject[]) => items.map((json) => ({ json })),
    },
  } as unknown as IWebhookFunctions;
  const result = await new MarketplaceTrigger().webhook.call(ctx);
  return { result, res, credentialNames };
}

/** Headers as n8n hands them over: lower-case keys. */
function signed(body: string, secret = SECRET, ts = nowSec()): Record<string, string> {
  return Object.fromEntries(
    Object.entries(webhookHeaders(body, secret, ts)).map(([k, v]) => [k.toLowerCase(), v]),
  );
}

function expectRefused(out: { result: IWebhookResponseData; res: FakeResponse }, status = 401): void {
  expect(out.result).toEqual({ noWebhookResponse: true });
  expect(out.result.workflowData).toBeUndefined();
  expect(out.res.statusCode).toBe(status);
  expect(out.res.ended).toBe(true);
}

describe('MarketplaceTrigger webhook: signature and replay window', () => {
  it('starts the workflow with the event envelope for a correctly signed delivery', async () => {
    const body = envelope('v1:order.new');
    const out = await call({ rawBody: Buffer.from(body), headers: signed(body) });
    expect(out.credentialNames).toEqual(['marketplaceWebhookApi']);
    expect(out.res.statusCode).toBeUndefined();
    expect(out.result.workflowData).toHaveLength(1);
    const items = out.result.workflowData![0]!;
    expect(items).toHaveLength(1);
    expect(items[0]!.json).toMatchObject({
      id: 'evt_v1:order.new',
      event_type: 'v1:order.new',
      created_at: '2026-11-23T07:00:00.000Z',
      data: { purchase_id: 'p_1', seller_id: 1001, line_items: [{ product_id: 7, slug: 'demo-tee' }] },
    });
  });

  it('version 3 verifies with the Webhook Signing Secret of its one (API key or OAuth2) credential', async () => {
    const body = envelope('v1:order.new');
    for (const [authentication, credential] of [
      ['apiKey', 'marketplaceApi'],
      ['oAuth2', 'marketplaceOAuth2Api'],
    ] as const) {
      const ok = await call({
        rawBody: Buffer.from(body),
        headers: signed(body),
        typeVersion: 3,
        authentication,
      });
      expect(ok.credentialNames).toEqual([credential]);
      expect(ok.result.workflowData).toHaveLength(1);
    }
    const other = await call({
      rawBody: Buffer.from(body),
      headers: signed(body, 'whsec_another_secret_0000'),
      typeVersion: 3,
    });
    expectRefused(other);
  });

  it('version 3 with a credential that has no signing secret refuses every delivery (401)', async () => {
    const body = envelope('v1:order.new');
    expectRefused(
      await call({ rawBody: Buffer.from(body), headers: signed(body), typeVersion: 3, secret: '' }),
    );
  });

  it.each(WEBHOOK_EVENT_TYPES)('accepts a signed %s delivery with "Any Event"', async (eventType) => {
    const body = envelope(eventType);
    const out = await call({ rawBody: Buffer.from(body), headers: signed(body) });
    expect(out.result.workflowData?.[0]?.[0]?.json.event_type).toBe(eventType);
  });

  it('also accepts the raw body as a string', async () => {
    const body = envelope('v1:product.like');
    const out = await call({ rawBody: body, headers: signed(body) });
    expect(out.result.workflowData?.[0]?.[0]?.json).toMatchObject({ data: { liker_id: 42 } });
  });

  it('refuses a forged signature with 401 and starts nothing', async () => {
    const body = envelope('v1:order.new');
    const headers = signed(body);
    headers[WEBHOOK_SIGNATURE_HEADER] = 'ab'.repeat(32);
    const out = await call({ rawBody: Buffer.from(body), headers });
    expectRefused(out);
    expect(out.res.body).toEqual({ message: 'Unauthorized' });
  });

  it('refuses a delivery signed with another secret', async () => {
    const body = envelope('v1:order.new');
    expectRefused(
      await call({ rawBody: Buffer.from(body), headers: signed(body, 'whsec_someone_else_0000') }),
    );
  });

  it('verifies the raw bytes: the same event re-serialised or altered fails', async () => {
    const body = envelope('v1:order.refund');
    const headers = signed(body);
    const reserialised = JSON.stringify(JSON.parse(body));
    expect(reserialised).not.toBe(body);
    expectRefused(await call({ rawBody: Buffer.from(reserialised), headers }));
    const altered = body.replace('"PARTNER"', '"DEPOP"');
    expectRefused(await call({ rawBody: Buffer.from(altered), headers }));
  });

  it('refuses missing, malformed or truncated signature headers', async () => {
    const body = envelope('v1:order.new');
    const good = signed(body);
    const signature = good[WEBHOOK_SIGNATURE_HEADER]!;
    const timestamp = good[WEBHOOK_TIMESTAMP_HEADER]!;
    const cases: Record<string, string>[] = [
      {},
      { [WEBHOOK_SIGNATURE_HEADER]: signature },
      { [WEBHOOK_TIMESTAMP_HEADER]: timestamp },
      { ...good, [WEBHOOK_SIGNATURE_HEADER]: signature.slice(0, 40) },
      { ...good, [WEBHOOK_TIMESTAMP_HEADER]: 'yesterday' },
    ];
    for (const headers of cases) expectRefused(await call({ rawBody: Buffer.from(body), headers }));
  });

  it('refuses when n8n gave no raw body (nothing trustworthy to verify)', async () => {
    const body = envelope('v1:order.new');
    expectRefused(await call({ rawBody: undefined, headers: signed(body) }));
  });

  it('refuses a replayed delivery older than the window (default 300 s), in both directions', async () => {
    const body = envelope('v1:product.like');
    expectRefused(await call({ rawBody: Buffer.from(body), headers: signed(body, SECRET, nowSec() - 301) }));
    expectRefused(await call({ rawBody: Buffer.from(body), headers: signed(body, SECRET, nowSec() + 301) }));
    const inside = await call({ rawBody: Buffer.from(body), headers: signed(body, SECRET, nowSec() - 250) });
    expect(inside.result.workflowData).toHaveLength(1);
  });

  it('honours the Replay Window option (wider, and narrower down to its 30 s minimum)', async () => {
    const body = envelope('v1:product.like');
    const old = signed(body, SECRET, nowSec() - 1000);
    expectRefused(
      await call({ rawBody: Buffer.from(body), headers: old, options: { replayWindowSec: 600 } }),
    );
    const wide = await call({ rawBody: Buffer.from(body), headers: old, options: { replayWindowSec: 1200 } });
    expect(wide.result.workflowData).toHaveLength(1);
    // Below the minimum (0 once meant "off"): refused, see test/attack/trigger-and-tool.test.mts.
    const narrow = signed(body, SECRET, nowSec() - 40);
    expectRefused(
      await call({ rawBody: Buffer.from(body), headers: narrow, options: { replayWindowSec: 30 } }),
    );
  });

  it('a valid signature replayed with a new timestamp fails (the timestamp is signed)', async () => {
    const body = envelope('v1:order.new');
    const old = signed(body, SECRET, nowSec() - 3600);
    const headers = { ...old, [WEBHOOK_TIMESTAMP_HEADER]: String(nowSec()) };
    expectRefused(await call({ rawBody: Buffer.from(body), headers }));
    // Sanity: the old signature is the genuine one for the old timestamp.
    expect(old[WEBHOOK_SIGNATURE_HEADER]).toBe(
      signWebhook(body, SECRET, Number(old[WEBHOOK_TIMESTAMP_HEADER])),
    );
  });
});

describe('MarketplaceTrigger webhook: event filter and payload', () => {
  it('starts only for the selected events; others are acknowledged and ignored', async () => {
    const events = ['v1:order.new', 'v1:order.refund'];
    for (const eventType of WEBHOOK_EVENT_TYPES) {
      const body = envelope(eventType);
      const out = await call({ rawBody: Buffer.from(body), headers: signed(body), events });
      if (events.includes(eventType)) {
        expect(out.result.workflowData?.[0]?.[0]?.json.event_type).toBe(eventType);
      } else {
        expect(out.result.workflowData).toBeUndefined();
        expect(out.result.webhookResponse).toEqual({ received: true, ignored: true });
        expect(out.res.statusCode).toBeUndefined();
      }
    }
  });

  it('still refuses a forged delivery of an ignored event type with 401', async () => {
    const body = envelope('v1:product.like');
    const headers = { ...signed(body), [WEBHOOK_SIGNATURE_HEADER]: '00'.repeat(32) };
    expectRefused(await call({ rawBody: Buffer.from(body), headers, events: ['v1:order.new'] }));
  });

  it('passes an event type unknown to this version through with "Any Event"', async () => {
    const body = envelope('v2:order.shipped', { purchase_id: 'p_9' });
    const out = await call({ rawBody: Buffer.from(body), headers: signed(body) });
    expect(out.result.workflowData?.[0]?.[0]?.json).toMatchObject({
      event_type: 'v2:order.shipped',
      data: { purchase_id: 'p_9' },
    });
  });

  it('answers 400 to a correctly signed body that is not an event envelope', async () => {
    for (const body of ['not json', '{"hello":"world"}']) {
      const out = await call({ rawBody: Buffer.from(body), headers: signed(body) });
      expectRefused(out, 400);
    }
  });

  it('a known event with unexpected fields: passed on by default, 400 with Strict Payload Check', async () => {
    const body = envelope('v1:order.refund', { purchase_id: 12 });
    const lenient = await call({ rawBody: Buffer.from(body), headers: signed(body) });
    expect(lenient.result.workflowData?.[0]?.[0]?.json).toMatchObject({ data: { purchase_id: 12 } });
    const strict = await call({
      rawBody: Buffer.from(body),
      headers: signed(body),
      options: { strictPayload: true },
    });
    expectRefused(strict, 400);
    expect(String((strict.res.body as IDataObject).message)).toContain('v1:order.refund');
  });
});

describe('MarketplaceTrigger description and credential', () => {
  const node = new MarketplaceTrigger();

  it('is a POST webhook trigger; versions 1 and 2 use the webhook-secret credential', () => {
    const d = node.description;
    expect(d.name).toBe('marketplaceTrigger');
    expect(d.group).toEqual(['trigger']);
    expect(d.inputs).toEqual([]);
    expect(d.webhooks).toEqual([
      expect.objectContaining({
        name: 'default',
        httpMethod: 'POST',
        responseMode: 'onReceived',
        path: 'webhook',
      }),
    ]);
    // Versions 1 and 2: the separate secret; the API credentials by Authentication (shown per version
    // in test/trigger-register).
    expect(d.credentials![0]).toEqual(
      expect.objectContaining({
        name: new MarketplaceWebhookApi().name,
        required: true,
        displayOptions: { show: { '@version': [1, 2] } },
      }),
    );
    expect(d.credentials!.slice(1).every((c) => c.displayOptions?.show?.authentication)).toBe(true);
    expect(d.properties.find((p) => p.name === 'registrationNotice')?.displayName).toMatch(/Production URL/);
  });

  it('the canvas subtitle names the events as the Events field does', () => {
    const expression = /^=\{\{([\s\S]*)\}\}$/.exec(String(node.description.subtitle))![1]!;
    const subtitle = (events: string[]) =>
      new Function('$parameter', `return ${expression}`)({ events }) as string;
    expect(subtitle(['v1:order.new', 'v1:product.like'])).toBe('New Order, Product Liked');
    expect(subtitle(['*'])).toBe('Any Event');
  });

  it('offers exactly the core event types plus "Any Event"', () => {
    const events = node.description.properties.find((p) => p.name === 'events');
    const values = (events?.options ?? []).map((o) => (o as { value: string }).value).sort();
    expect(values).toEqual(['*', ...WEBHOOK_EVENT_TYPES].sort());
  });

  it('version 1 has nothing to register remotely (registration is out of band)', async () => {
    const hooks = node.webhookMethods.default;
    const ctx = { getNodeParameter: () => ['*'], getNode: () => ({ typeVersion: 1 }) } as never;
    await expect(hooks.checkExists.call(ctx)).resolves.toBe(true);
    await expect(hooks.create.call(ctx)).resolves.toBe(true);
    await expect(hooks.delete.call(ctx)).resolves.toBe(true);
  });

  it('the credential keeps the secret in a password field', () => {
    const cred = new MarketplaceWebhookApi();
    expect(cred.name).toBe('marketplaceWebhookApi');
    expect(cred.properties).toEqual([
      expect.objectContaining({ name: 'signingSecret', typeOptions: { password: true }, required: true }),
    ]);
  });

  it('credential test: a usable secret passes, an empty/short/padded one fails, without network', async () => {
    const test = node.methods.credentialTest.marketplaceWebhookSecretTest;
    const run = (signingSecret: string) =>
      test.call({} as ICredentialTestFunctions, {
        id: '1',
        name: 'c',
        type: 'marketplaceWebhookApi',
        data: { signingSecret },
      });
    await expect(run(SECRET)).resolves.toMatchObject({ status: 'OK' });
    await expect(run('')).resolves.toMatchObject({ status: 'Error' });
    await expect(run('short')).resolves.toMatchObject({ status: 'Error' });
    await expect(run(` ${SECRET}`)).resolves.toMatchObject({ status: 'Error' });
  });
});

describe('readRawBody', () => {
  it('reads the body through req.readRawBody() when n8n has not read it yet', async () => {
    const body = envelope('v1:order.refund');
    const req: { rawBody?: Buffer; readRawBody: () => Promise<void> } = {
      readRawBody: async () => {
        req.rawBody = Buffer.from(body);
      },
    };
    const raw = await readRawBody(req);
    expect(new TextDecoder().decode(raw as Uint8Array)).toBe(body);
  });

  it('gives undefined for a parsed-only body (never re-serialises JSON)', async () => {
    await expect(readRawBody({ rawBody: { event_type: 'v1:order.new' } })).resolves.toBeUndefined();
  });
});
