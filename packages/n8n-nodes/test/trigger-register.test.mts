// The Marketplace Trigger registering its own URL (version 2, "Register Automatically"): n8n's
// webhookMethods through a mocked IHookFunctions whose HTTP helper reaches a real simulator with the
// demo partner's API key. The simulator's own records (sim.world.webhooks) say what exists; the node's
// static data is one object per workflow, as n8n keeps it across activations and restarts.
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { WEBHOOK_EVENT_TYPES, webhookHeaders } from '@selling-kit/api-client/core';
import { DEMO, startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { MarketplaceTrigger } from '../nodes/MarketplaceTrigger/MarketplaceTrigger.node.ts';
import { authenticatedHttp, type RecordedRequest } from './helpers/mockExecute.mts';

let sim: RunningSimulator;
const node = new MarketplaceTrigger();
const hooks = node.webhookMethods.default;

beforeAll(async () => {
  sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
});
afterAll(() => sim.close());

interface Hook {
  ctx: IHookFunctions;
  requests: RecordedRequest[];
  staticData: IDataObject;
}

let urlCounter = 0;
const newUrl = (kind = 'webhook') =>
  `http://127.0.0.1:5678/${kind}/${++urlCounter}-${Math.random().toString(36).slice(2)}/webhook`;

/** A mocked IHookFunctions for one node: parameters, its webhook URL, its static data, credentials. */
function hook(
  params: Record<string, unknown>,
  options: {
    url: string;
    staticData?: IDataObject;
    typeVersion?: number;
    environment?: string;
    apiKey?: string;
    /** The API credential's Webhook Signing Secret (version 3); the demo partner's by default. */
    webhookSigningSecret?: string;
  },
): Hook {
  const requests: RecordedRequest[] = [];
  const staticData = options.staticData ?? {};
  const credentials: Record<string, IDataObject> = {
    marketplaceApi: {
      environment: options.environment ?? 'custom',
      baseUrl: sim.url,
      apiKey: options.apiKey ?? DEMO.apiKey,
      webhookSigningSecret: options.webhookSigningSecret ?? DEMO.webhookSecret,
    },
    marketplaceWebhookApi: { signingSecret: DEMO.webhookSecret },
  };
  const ctx = {
    getNode: () => ({
      id: 'trigger-1',
      name: 'Marketplace Trigger',
      type: 'marketplaceTrigger',
      typeVersion: options.typeVersion ?? 2,
      parameters: params,
      credentials: { marketplaceApi: { id: 'c1', name: 'Demo shop' } },
    }),
    getNodeParameter: (name: string, fallback?: unknown) => (name in params ? params[name] : fallback),
    getNodeWebhookUrl: (name: string) => (name === 'default' ? options.url : undefined),
    getWorkflowStaticData: (type: string) => {
      if (type !== 'node') throw new Error(`unexpected static data ${type}`);
      return staticData;
    },
    getCredentials: async (type: string) => {
      const found = credentials[type];
      if (!found) throw new Error(`the node asked for credential ${type}`);
      return found;
    },
    getActivationMode: () => 'activate',
    getMode: () => 'trigger',
    helpers: {
      httpRequestWithAuthentication: authenticatedHttp(
        { baseUrl: sim.url, apiKey: options.apiKey ?? DEMO.apiKey },
        requests,
      ),
    },
  };
  return { ctx: ctx as unknown as IHookFunctions, requests, staticData };
}

const onServer = (url: string) => [...sim.world.webhooks.values()].filter((w) => w.url === url);
const register = { registration: 'api', authentication: 'apiKey' };

/** n8n's activation: checkExists, then create when nothing exists. */
async function activate(h: Hook): Promise<void> {
  if (!(await hooks.checkExists.call(h.ctx))) await hooks.create.call(h.ctx);
}

/** A fresh URL activated for `events`: the URL, the node's static data and the subscription's id. */
async function subscribed(events: string[]): Promise<{ url: string; staticData: IDataObject; id: string }> {
  const url = newUrl();
  const staticData: IDataObject = {};
  await activate(hook({ ...register, events }, { url, staticData }));
  return { url, staticData, id: onServer(url)[0]!.id };
}

describe('Marketplace Trigger v2: registering its URL', () => {
  it('activation subscribes the URL for the selected events; deactivation removes it', async () => {
    const url = newUrl();
    const h = hook({ ...register, events: ['v1:order.new', 'v1:product.like'] }, { url });
    await expect(hooks.checkExists.call(h.ctx)).resolves.toBe(false);
    await expect(hooks.create.call(h.ctx)).resolves.toBe(true);

    const [sub, ...others] = onServer(url);
    expect(others).toHaveLength(0);
    expect(sub).toMatchObject({ partnerId: DEMO.partnerId, url });
    expect([...sub!.eventTypes].sort()).toEqual(['v1:order.new', 'v1:product.like']);
    // Also as the API lists it to the partner.
    const listed = await fetch(`${sim.url}/api/v1/webhooks/`, {
      headers: { authorization: `Bearer ${DEMO.apiKey}` },
    }).then((r) => r.json() as Promise<{ data: { id: string; url: string; event_types: string[] }[] }>);
    expect(listed.data.find((w) => w.url === url)).toMatchObject({ id: sub!.id });
    // The id is in static data (n8n saves it with the workflow), keyed by the URL.
    expect(h.staticData).toEqual({
      subscriptions: { [url]: { id: sub!.id, events: ['v1:order.new', 'v1:product.like'] } },
    });
    await expect(hooks.checkExists.call(h.ctx)).resolves.toBe(true);

    await expect(hooks.delete.call(h.ctx)).resolves.toBe(true);
    expect(onServer(url)).toHaveLength(0);
    expect(sim.world.webhooks.has(sub!.id)).toBe(false);
    expect(h.staticData).toEqual({});
    await expect(hooks.checkExists.call(h.ctx)).resolves.toBe(false);
    // Deleting again is harmless (the API's DELETE is idempotent; nothing is left to remove).
    await expect(hooks.delete.call(h.ctx)).resolves.toBe(true);
  });

  it('"Any Event" subscribes every event type (the API default, no event_types sent)', async () => {
    const url = newUrl();
    const h = hook({ ...register, events: ['*'] }, { url });
    await activate(h);
    const [sub] = onServer(url);
    expect([...sub!.eventTypes].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const create = h.requests.find((r) => r.method === 'POST');
    expect(create?.url).toBe(`${sim.url}/api/v1/webhooks/`);
    await hooks.delete.call(h.ctx);
  });

  it('checkExists survives a restart: the stored subscription is found, nothing is created again', async () => {
    const { url, staticData, id } = await subscribed(['v1:order.new']);
    // A restarted n8n: new functions, the same saved static data.
    const saved = JSON.parse(JSON.stringify(staticData)) as IDataObject;
    const after = hook({ ...register, events: ['v1:order.new'] }, { url, staticData: saved });
    await expect(hooks.checkExists.call(after.ctx)).resolves.toBe(true);
    expect(after.requests.map((r) => r.method)).toEqual(['GET']);
    expect(onServer(url).map((w) => w.id)).toEqual([id]);
    await hooks.delete.call(after.ctx);
    expect(onServer(url)).toHaveLength(0);
  });

  it('a subscription deleted on the marketplace side is created again on the next activation', async () => {
    const url = newUrl();
    const h = hook({ ...register, events: ['v1:order.new'] }, { url });
    await activate(h);
    const first = onServer(url)[0]!.id;
    // The marketplace (its admin surface) drops it.
    const removed = await fetch(`${sim.adminUrl}/admin/webhooks/${first}`, { method: 'DELETE' });
    expect(removed.status).toBeLessThan(300);
    expect(onServer(url)).toHaveLength(0);

    await expect(hooks.checkExists.call(h.ctx)).resolves.toBe(false);
    expect(h.staticData).toEqual({});
    await hooks.create.call(h.ctx);
    const [again] = onServer(url);
    expect(again?.id).toBeDefined();
    expect(again?.id).not.toBe(first);
    expect((h.staticData.subscriptions as Record<string, { id: string }>)[url]?.id).toBe(again!.id);
    await hooks.delete.call(h.ctx);
  });

  it('changed events: the old subscription is replaced; one already there for the URL is adopted', async () => {
    const { url, staticData, id: old } = await subscribed(['v1:order.new']);
    const changed = hook({ ...register, events: ['v1:order.refund'] }, { url, staticData });
    await expect(hooks.checkExists.call(changed.ctx)).resolves.toBe(false);
    expect(sim.world.webhooks.has(old)).toBe(false);
    await hooks.create.call(changed.ctx);
    expect(onServer(url).map((w) => w.eventTypes)).toEqual([['v1:order.refund']]);

    // Static data lost (e.g. a workflow imported elsewhere): the URL's subscription is found by URL.
    const fresh = hook({ ...register, events: ['v1:order.refund'] }, { url });
    await expect(hooks.checkExists.call(fresh.ctx)).resolves.toBe(true);
    expect((fresh.staticData.subscriptions as Record<string, { id: string }>)[url]?.id).toBe(
      onServer(url)[0]!.id,
    );
    await hooks.delete.call(fresh.ctx);
    expect(onServer(url)).toHaveLength(0);
  });

  it('create over an existing subscription of the URL (409) replaces it instead of failing', async () => {
    const url = newUrl();
    const other = hook({ ...register, events: ['v1:order.new'] }, { url });
    await hooks.create.call(other.ctx);
    const h = hook({ ...register, events: ['v1:product.unlike'] }, { url });
    await expect(hooks.create.call(h.ctx)).resolves.toBe(true);
    expect(onServer(url).map((w) => w.eventTypes)).toEqual([['v1:product.unlike']]);
    await hooks.delete.call(h.ctx);
  });

  it('the Test URL and the Production URL are subscribed apart; removing one keeps the other', async () => {
    const staticData: IDataObject = {};
    const production = newUrl('webhook');
    const test = newUrl('webhook-test');
    const prod = hook({ ...register, events: ['*'] }, { url: production, staticData });
    const listening = hook({ ...register, events: ['*'] }, { url: test, staticData });
    await activate(prod);
    await activate(listening);
    expect(onServer(production)).toHaveLength(1);
    expect(onServer(test)).toHaveLength(1);
    await hooks.delete.call(listening.ctx);
    expect(onServer(test)).toHaveLength(0);
    expect(onServer(production)).toHaveLength(1);
    await expect(hooks.checkExists.call(prod.ctx)).resolves.toBe(true);
    await hooks.delete.call(prod.ctx);
  });

  it('a delivery to the registered URL is signed with the secret the trigger verifies with', async () => {
    // A receiver stands in for n8n's webhook URL: the node's webhook() checks what the simulator sent.
    const { createServer } = await import('node:http');
    const bodies: { raw: Buffer; headers: Record<string, string> }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push({ raw: Buffer.concat(chunks), headers: req.headers as Record<string, string> });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/webhook/signed`;
    const h = hook({ ...register, events: ['v1:order.new'] }, { url });
    try {
      await activate(h);
      const emitted = await fetch(`${sim.adminUrl}/admin/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sellerId: DEMO.sellerId, eventType: 'v1:order.new', data: { n: 1 } }),
      });
      expect(emitted.status).toBe(202);
      await sim.webhooks.idle();
      expect(bodies).toHaveLength(1);
      const delivered = bodies[0]!;
      const started = await runWebhook(delivered.raw, delivered.headers);
      expect(started.workflowData?.[0]?.[0]?.json).toMatchObject({ event_type: 'v1:order.new' });
      // The same bytes signed with another secret are refused: the check above was not vacuous.
      const forged = await runWebhook(delivered.raw, webhookHeaders(delivered.raw, 'whsec_other_secret_123'));
      expect(forged.workflowData).toBeUndefined();
    } finally {
      await hooks.delete.call(h.ctx);
      server.close();
    }
  });
});

describe('Marketplace Trigger v2: errors and the out-of-band mode', () => {
  it('on production an http URL is refused before anything is sent, saying https is needed', async () => {
    const h = hook(
      { ...register, events: ['*'] },
      { url: 'http://n8n.example/webhook/x/webhook', environment: 'production' },
    );
    const error = (await hooks.create.call(h.ctx).catch((e: Error) => e)) as Error;
    expect(error.constructor.name).toBe('NodeOperationError');
    expect(error.message).toMatch(/webhook URL http:\/\/n8n\.example\/webhook\/x\/webhook is not https/);
    expect(error.message).toMatch(/WEBHOOK_URL/);
    expect(error.message).toMatch(/Registered Out of Band/);
    expect(h.requests).toHaveLength(0);
  });

  it('an API refusal names the URL, the service message, its code and error id; no secret shown', async () => {
    const url = newUrl();
    const h = hook({ ...register, events: ['*'] }, { url, apiKey: 'pak_not_a_real_key' });
    const error = (await hooks.create.call(h.ctx).catch((e: Error) => e)) as Error & {
      httpCode?: string;
      description?: string;
      context?: IDataObject;
    };
    expect(error.constructor.name).toBe('NodeApiError');
    expect(error.message).toContain(`The marketplace refused to subscribe ${url}`);
    expect(error.httpCode).toBe('401');
    expect(error.description).toMatch(/Code unauthorized, HTTP 401/);
    expect(error.context?.errorId).toEqual(expect.any(String));
    expect(JSON.stringify({ m: error.message, d: error.description })).not.toContain('pak_not_a_real_key');
    expect(onServer(url)).toHaveLength(0);
  });

  it('a refusal of the URL by the API (not http or https) is the error, naming the field', async () => {
    const url = 'ftp://127.0.0.1/webhook/x';
    const h = hook({ ...register, events: ['*'] }, { url });
    const error = (await hooks.create.call(h.ctx).catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(/ftp:\/\/127\.0\.0\.1\/webhook\/x/);
    expect(error.message).toMatch(/url/);
    expect(onServer(url)).toHaveLength(0);
  });

  it('"Registered Out of Band" and version 1 call nothing and keep no static data', async () => {
    for (const [params, typeVersion] of [
      [{ registration: 'outOfBand', events: ['*'] }, 2],
      [{ events: ['v1:order.new'] }, 1],
    ] as const) {
      const url = newUrl();
      const h = hook(params, { url, typeVersion });
      await expect(hooks.checkExists.call(h.ctx)).resolves.toBe(true);
      await expect(hooks.create.call(h.ctx)).resolves.toBe(true);
      await expect(hooks.delete.call(h.ctx)).resolves.toBe(true);
      expect(h.requests).toHaveLength(0);
      expect(h.staticData).toEqual({});
      expect(onServer(url)).toHaveLength(0);
    }
  });

  it('"Any Event" next to other events is refused before any call, in register mode too', async () => {
    const h = hook({ ...register, events: ['*', 'v1:order.new'] }, { url: newUrl() });
    for (const step of [hooks.checkExists, hooks.create]) {
      await expect(step.call(h.ctx)).rejects.toThrow(/"Any Event" already includes every event/);
    }
    expect(h.requests).toHaveLength(0);
  });
});

describe('Marketplace Trigger v3: one credential', () => {
  it('registers automatically by default with the API credential, and removes the subscription', async () => {
    const url = newUrl();
    const h = hook({ authentication: 'apiKey', events: ['v1:order.new'] }, { url, typeVersion: 3 });
    await activate(h);
    expect(onServer(url)).toEqual([expect.objectContaining({ partnerId: DEMO.partnerId, url })]);
    await expect(hooks.delete.call(h.ctx)).resolves.toBe(true);
    expect(onServer(url)).toHaveLength(0);
  });

  it('"Registered Out of Band" calls nothing', async () => {
    const url = newUrl();
    const h = hook({ webhookRegistration: 'outOfBand', events: ['*'] }, { url, typeVersion: 3 });
    await activate(h);
    await expect(hooks.delete.call(h.ctx)).resolves.toBe(true);
    expect(h.requests).toHaveLength(0);
    expect(onServer(url)).toHaveLength(0);
  });

  it('refuses to listen when the credential has no Webhook Signing Secret, naming the credential', async () => {
    for (const webhookRegistration of ['automatic', 'outOfBand']) {
      const url = newUrl();
      const h = hook(
        { webhookRegistration, events: ['*'] },
        { url, typeVersion: 3, webhookSigningSecret: '' },
      );
      for (const step of [hooks.checkExists, hooks.create]) {
        await expect(step.call(h.ctx)).rejects.toThrow(
          'The credential "Demo shop" has no Webhook Signing Secret',
        );
      }
      expect(h.requests).toHaveLength(0);
      expect(onServer(url)).toHaveLength(0);
    }
  });
});

describe('Marketplace Trigger: what the editor shows', () => {
  const props = node.description.properties;
  const credentials = node.description.credentials!;
  const nodeAt = (typeVersion: number) =>
    ({ typeVersion, name: 'Marketplace Trigger', type: 'marketplaceTrigger', parameters: {} }) as never;
  const shown = (values: Record<string, unknown>, typeVersion: number) =>
    props
      .filter((p) => NodeHelpers.displayParameter(values as never, p, nodeAt(typeVersion), null))
      .map((p) => p.name);
  const credentialsShown = (values: Record<string, unknown>, typeVersion: number) =>
    credentials
      .filter((c) => NodeHelpers.displayParameter(values as never, c, nodeAt(typeVersion), null))
      .map((c) => c.name);

  it('is version [1, 2, 3], 3 by default; version 1 keeps its fields and its one credential', () => {
    expect(node.description.version).toEqual([1, 2, 3]);
    expect(node.description.defaultVersion).toBe(3);
    const v1 = shown({ events: ['*'], options: {} }, 1);
    expect(v1).toEqual(['registrationNotice', 'testEventNotice', 'events', 'anyEventNotice', 'options']);
    expect(credentialsShown({ events: ['*'] }, 1)).toEqual(['marketplaceWebhookApi']);
  });

  it('version 2 keeps its two credentials per mode; out of band shows the old notices', () => {
    const registration = props.find((p) => p.name === 'registration')!;
    expect(registration.default).toBe('api');
    const v2 = shown(
      { registration: 'api', authentication: 'oAuth2', events: ['v1:order.new'], options: {} },
      2,
    );
    expect(v2).toEqual(['authentication', 'registration', 'registeredNotice', 'events', 'options']);
    expect(credentialsShown({ registration: 'api', authentication: 'apiKey' }, 2)).toEqual([
      'marketplaceWebhookApi',
      'marketplaceApi',
    ]);
    expect(credentialsShown({ registration: 'api', authentication: 'oAuth2' }, 2)).toEqual([
      'marketplaceWebhookApi',
      'marketplaceOAuth2Api',
    ]);
    const outOfBand = shown({ registration: 'outOfBand', events: ['v1:order.new'], options: {} }, 2);
    expect(outOfBand).toEqual([
      'authentication',
      'registration',
      'registrationNotice',
      'testEventNotice',
      'events',
      'options',
    ]);
    expect(credentialsShown({ registration: 'outOfBand', authentication: 'apiKey' }, 2)).toEqual([
      'marketplaceWebhookApi',
    ]);
  });

  it('version 3: one credential in both modes, a Registration no credential depends on, no simulator text', () => {
    const v3 = (values: Record<string, unknown>) =>
      shown({ events: ['v1:order.new'], options: {}, ...values }, 3);
    expect(v3({ authentication: 'apiKey', webhookRegistration: 'automatic' })).toEqual([
      'authentication',
      'webhookRegistration',
      'registeredNoticeV3',
      'events',
      'options',
    ]);
    expect(v3({ authentication: 'apiKey', webhookRegistration: 'outOfBand' })).toEqual([
      'authentication',
      'webhookRegistration',
      'outOfBandNoticeV3',
      'events',
      'options',
    ]);
    for (const webhookRegistration of ['automatic', 'outOfBand']) {
      expect(credentialsShown({ authentication: 'apiKey', webhookRegistration }, 3)).toEqual([
        'marketplaceApi',
      ]);
      expect(credentialsShown({ authentication: 'oAuth2', webhookRegistration }, 3)).toEqual([
        'marketplaceOAuth2Api',
      ]);
    }
    // n8n's editor hides the parameters credentials depend on: none of them is the Registration.
    const dependedOn = credentials.flatMap((c) => [
      ...Object.keys(c.displayOptions?.show ?? {}),
      ...Object.keys(c.displayOptions?.hide ?? {}),
    ]);
    expect(dependedOn).not.toContain('webhookRegistration');
    const v3Notices = props.filter((p) => p.type === 'notice' && /V3$/.test(p.name));
    for (const notice of v3Notices)
      expect(notice.displayName).not.toMatch(/127\.0\.0\.1|selling-kit|simulator/i);
  });
});

/** The node's webhook() on a delivery, through a minimal IWebhookFunctions (as in trigger.test.mts). */
async function runWebhook(raw: Buffer, headers: Record<string, string>) {
  const response = {
    status: () => response,
    json: () => response,
    end: () => response,
  };
  const ctx = {
    getRequestObject: () => ({ rawBody: raw, headers }),
    getResponseObject: () => response,
    getCredentials: async () => ({ signingSecret: DEMO.webhookSecret }),
    getNodeParameter: (name: string, fallback?: unknown) => (name === 'events' ? ['v1:order.new'] : fallback),
    getNode: () => ({ name: 'Marketplace Trigger', typeVersion: 2 }),
    helpers: { returnJsonArray: (items: IDataObject[]) => items.map((json) => ({ json })) },
  };
  return await node.webhook.call(ctx as never);
}
