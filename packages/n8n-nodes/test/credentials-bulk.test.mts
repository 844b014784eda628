// What a no-code user sees of the credentials, the trigger and the Bulk Job node, read the way n8n reads
// it (NodeHelpers resolves parameters per node version and display options): preset URLs in the
// environment picker and an editable simulator address, where an API key comes from, the webhook
// secret's name, "Any Event" standing alone (refused at activation), the test-event notice (its
// simulator admin calls tried on a real simulator), and the Bulk Job node's versions: version-1
// workflows keep their parameters and defaults, version 2 feeds jobs from items or a binary file,
// lists shops from the worker, has one Job ID per operation and does not wait by default.
import { NodeHelpers, type IHookFunctions, type INode, type INodeProperties } from 'n8n-workflow';
import { INLINE_FEED_MAX_BYTES as WORKER_INLINE_LIMIT } from '@selling-kit/temporal-workflows';
import { startSimulator } from '@selling-kit/simulator';
import { MarketplaceApi } from '../credentials/MarketplaceApi.credentials.ts';
import { MarketplaceOAuth2Api } from '../credentials/MarketplaceOAuth2Api.credentials.ts';
import { MarketplaceWebhookApi } from '../credentials/MarketplaceWebhookApi.credentials.ts';
import { MarketplaceTemporalApi } from '../credentials/MarketplaceTemporalApi.credentials.ts';
import { BASE_URLS, BASE_URL_EXPRESSION, resolveBaseUrl } from '../credentials/environments.ts';
import { MarketplaceTrigger } from '../nodes/MarketplaceTrigger/MarketplaceTrigger.node.ts';
import { MarketplaceBulkJob } from '../nodes/MarketplaceBulkJob/MarketplaceBulkJob.node.ts';
import { TemporalHttp } from '../nodes/MarketplaceBulkJob/transport/temporal.ts';
import {
  INLINE_FEED_MAX_BYTES,
  INLINE_START_BUDGET_BYTES,
  concurrentShops,
} from '../nodes/MarketplaceBulkJob/inlineFeed.ts';

/** An n8n `={{ … }}` expression over `$credentials` / `$self`, evaluated (test-only). */
function evaluate(expression: unknown, data: Record<string, unknown>): unknown {
  const match = /^=\{\{([\s\S]*)\}\}$/.exec(String(expression));
  if (!match) return expression;
  return new Function('$credentials', '$self', `return (${match[1]});`)(data, data);
}

/** The parameters n8n shows for these values (credentials have no version). */
function shown(properties: INodeProperties[], values: Record<string, unknown>, node: INode | null = null) {
  return properties
    .filter((p) => NodeHelpers.displayParameter(values as never, p, node, null))
    .map((p) => p.name);
}

describe('credentials: the environment picker', () => {
  const apiKey = new MarketplaceApi();
  const env = apiKey.properties.find((p) => p.name === 'environment')!;
  const options = env.options as { name: string; value: string; description?: string }[];

  it('shows the URL of every preset, and the simulator one as editable', () => {
    for (const preset of ['production', 'staging', 'simulator'] as const) {
      const option = options.find((o) => o.value === preset)!;
      expect(option.name).toContain(BASE_URLS[preset]);
    }
    expect(options.find((o) => o.value === 'simulator')!.name).toMatch(/editable/);
    expect(options.find((o) => o.value === 'custom')!.name).toBe('Custom URL');
  });

  it('shows a Base URL field, prefilled with the simulator address, for the simulator and a custom URL only', () => {
    const baseUrl = apiKey.properties.find((p) => p.name === 'baseUrl')!;
    expect(baseUrl.default).toBe('http://127.0.0.1:4010');
    for (const [environment, visible] of [
      ['production', false],
      ['staging', false],
      ['simulator', true],
      ['custom', true],
    ] as const)
      expect(shown(apiKey.properties, { environment, baseUrl: baseUrl.default }).includes('baseUrl')).toBe(
        visible,
      );
  });

  it('requests, the credential test and the OAuth URLs follow an edited simulator address', () => {
    const edited = { environment: 'simulator', baseUrl: 'http://127.0.0.1:5010/' };
    expect(resolveBaseUrl(edited)).toBe('http://127.0.0.1:5010');
    expect(evaluate(BASE_URL_EXPRESSION, edited)).toBe('http://127.0.0.1:5010');
    expect(evaluate(apiKey.test.request.baseURL, edited)).toBe('http://127.0.0.1:5010');
    // Left empty, the simulator's default address; presets ignore the field.
    expect(resolveBaseUrl({ environment: 'simulator', baseUrl: '' })).toBe(BASE_URLS.simulator);
    expect(evaluate(BASE_URL_EXPRESSION, { environment: 'simulator', baseUrl: '' })).toBe(
      BASE_URLS.simulator,
    );
    expect(resolveBaseUrl({ environment: 'staging', baseUrl: 'http://x' })).toBe(BASE_URLS.staging);
    expect(resolveBaseUrl({ environment: 'custom', baseUrl: ' https://api.example/ ' })).toBe(
      'https://api.example',
    );
    const oauth = new MarketplaceOAuth2Api();
    const url = (name: string) => oauth.properties.find((p) => p.name === name)!.default;
    expect(evaluate(url('accessTokenUrl'), edited)).toBe('http://127.0.0.1:5010/api/v1/oauth2/access-token/');
    expect(evaluate(url('authUrl'), edited)).toBe('http://127.0.0.1:5010/oauth/authorize');
    expect(evaluate(url('authUrl'), { environment: 'staging', baseUrl: '' })).toBe(
      'https://www.depop.com/settings/oauth/apps/',
    );
  });

  it('the API key field says where a partner gets a key', () => {
    const key = apiKey.properties.find((p) => p.name === 'apiKey')!;
    expect(key.description).toMatch(/issues keys to partners on request/);
    expect(key.description).toMatch(/one per shop/);
    expect(key.description).toMatch(/staging needs its own Testing key/);
    expect(key.description).toMatch(/pak_demo_selling_kit/);
    expect(key.typeOptions?.password).toBe(true);
  });
});

describe('the webhook credential and the trigger', () => {
  const trigger = new MarketplaceTrigger();
  const props = trigger.description.properties;

  it('is named for what it is, under the id saved credentials use', () => {
    const credential = new MarketplaceWebhookApi();
    expect(credential.displayName).toBe('Marketplace Webhook Secret');
    expect(credential.name).toBe('marketplaceWebhookApi');
    // Versions 1 and 2: the secret that verifies deliveries comes first; the API credentials follow
    // (version 3 uses only those, which hold the secret).
    expect(trigger.description.credentials![0]).toEqual(
      expect.objectContaining({ name: 'marketplaceWebhookApi', required: true }),
    );
  });

  it('"Any Event" is the default and says it stands alone', () => {
    const events = props.find((p) => p.name === 'events')!;
    expect(events.default).toEqual(['*']);
    // Said only while "Any Event" is selected (a notice shown by the selection, not a fixed hint).
    const notice = props.find((p) => p.name === 'anyEventNotice')!;
    expect(notice.displayName).toMatch(/"Any Event" takes every event and stands alone/);
    expect(notice.displayOptions).toEqual({ show: { events: ['*'] } });
    const any = (events.options as { name: string; value: string; description: string }[]).find(
      (o) => o.value === '*',
    )!;
    expect(any).toMatchObject({ name: 'Any Event', description: expect.stringMatching(/choose it alone/) });
  });

  const listen = (events: string[]) => {
    const ctx = {
      getNodeParameter: (name: string, fallback?: unknown) => (name === 'events' ? events : fallback),
      getNode: () => ({ name: 'Marketplace Trigger', type: 'marketplaceTrigger', typeVersion: 1 }),
    } as unknown as IHookFunctions;
    return {
      checkExists: () => trigger.webhookMethods.default.checkExists.call(ctx),
      create: () => trigger.webhookMethods.default.create.call(ctx),
    };
  };

  it('refuses to listen with "Any Event" next to other events, naming the field', async () => {
    for (const step of ['checkExists', 'create'] as const) {
      const error = await listen(['v1:order.new', '*'])
        [step]()
        .catch((e: Error) => e);
      expect((error as Error).constructor.name).toBe('NodeOperationError');
      expect((error as Error).message).toBe(
        'Events: "Any Event" already includes every event; remove it to choose events, or remove the other events',
      );
    }
    await expect(listen(['*']).checkExists()).resolves.toBe(true);
    await expect(listen(['v1:order.new', 'v1:order.refund']).checkExists()).resolves.toBe(true);
  });

  it('says how to send a test event, and the simulator calls it names work as written', async () => {
    const notice = props.find((p) => p.name === 'testEventNotice')!;
    expect(notice.type).toBe('notice');
    const text = notice.displayName;
    expect(text).toMatch(/Listen for test event/);
    expect(text).toMatch(/Set mock data/);
    // The calls of the notice, made against a real simulator's admin port (the notice names 4011, the
    // port `selling-kit dev` gives it); a receiver stands in for n8n's Test URL.
    const subscribe = /POST (http:\/\/127\.0\.0\.1:4011)(\/admin\/webhooks) (\{.*?\}),/.exec(text)!;
    const emit = /POST (http:\/\/127\.0\.0\.1:4011)(\/admin\/events) (\{.*?\}\}) \(/.exec(text)!;
    expect(subscribe).not.toBeNull();
    expect(emit).not.toBeNull();
    expect(text).toMatch(/whsec_demo_selling_kit/);
    const sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
    const received: string[] = [];
    const { createServer } = await import('node:http');
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const testUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/webhook-test/x`;
    try {
      const post = (path: string, body: string) =>
        fetch(`${sim.adminUrl}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
      expect((await post(subscribe[2]!, subscribe[3]!.replace('<Test URL>', testUrl))).status).toBeLessThan(
        300,
      );
      expect((await post(emit[2]!, emit[3]!)).status).toBe(202);
      await sim.webhooks.idle();
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0]!)).toMatchObject({ event_type: 'v1:order.new' });
    } finally {
      receiver.close();
      await sim.close();
    }
  });
});

describe('the Bulk Job node description', () => {
  const node = new MarketplaceBulkJob();
  const { description } = node;
  const nodeOf = (typeVersion: number, parameters: Record<string, unknown>) =>
    ({
      id: 'n',
      name: 'Bulk',
      type: 'marketplaceBulkJob',
      typeVersion,
      position: [0, 0],
      parameters,
    }) as INode;
  /** The parameters n8n resolves for a node saved with `values` (defaults of its version applied). */
  const resolved = (typeVersion: number, values: Record<string, unknown>) =>
    NodeHelpers.getNodeParameters(
      description.properties.filter((p) => p.type !== 'notice'),
      values as never,
      true,
      false,
      nodeOf(typeVersion, values),
      description,
    ) as Record<string, unknown>;

  it('is version 2 by default and keeps version 1', () => {
    expect(description.version).toEqual([1, 2]);
    expect(description.defaultVersion).toBe(2);
  });

  it('a version-1 workflow keeps its parameters and defaults (path feed, text shops, shared Job ID, waits)', () => {
    const saved = { operation: 'start', feed: '/data/feed.csv', shops: 'shop-a, shop-b' };
    expect(resolved(1, saved)).toEqual({
      operation: 'start',
      feed: '/data/feed.csv',
      format: 'csv',
      shops: 'shop-a, shop-b',
      jobOperation: 'create',
      jobId: '',
      wait: true,
      maxWaitMinutes: 60,
    });
    expect(resolved(1, { operation: 'progress', jobId: 'bj-1' })).toEqual({
      operation: 'progress',
      jobId: 'bj-1',
    });
  });

  it('version 2 feeds from input items by default, or a binary field, or a path; shops from the worker', () => {
    expect(resolved(2, { operation: 'start' })).toEqual({
      operation: 'start',
      feedSource: 'inputItems',
      shops: [],
      jobOperation: 'create',
      jobId: '',
      wait: false,
    });
    expect(resolved(2, { operation: 'start', feedSource: 'binary' })).toMatchObject({
      binaryPropertyName: 'data',
      format: 'csv',
    });
    expect(resolved(2, { operation: 'start', feedSource: 'path', feed: '/f.csv' })).toMatchObject({
      feed: '/f.csv',
      format: 'csv',
    });
    const shops = description.properties.filter((p) => p.name === 'shops');
    const v2 = shops.find((p) => p.displayOptions?.show?.['@version']?.includes(2))!;
    expect(v2).toMatchObject({ type: 'multiOptions', typeOptions: { loadOptionsMethod: 'getShops' } });
    expect(typeof node.methods.loadOptions.getShops).toBe('function');
    const notice = description.properties.find((p) => p.name === 'inputItemsNotice')!;
    expect(notice.displayName).toMatch(/up to 1 MiB/);
  });

  it('version 2 has a Job ID per operation: optional to start, required to get progress', () => {
    const ids = description.properties.filter(
      (p) => p.name === 'jobId' && p.displayOptions?.show?.['@version']?.includes(2),
    );
    expect(ids).toHaveLength(2);
    const startId = ids.find((p) => p.displayOptions!.show!.operation?.includes('start'))!;
    const progressId = ids.find((p) => p.displayOptions!.show!.operation?.includes('progress'))!;
    expect(startId.required).toBeFalsy();
    expect(progressId.required).toBe(true);
    // n8n flags the empty required field in the editor.
    const issues = NodeHelpers.getNodeParametersIssues(
      description.properties,
      nodeOf(2, { operation: 'progress', jobId: '' }),
      description,
    );
    expect(Object.keys(issues?.parameters ?? {})).toEqual(['jobId']);
    expect(
      NodeHelpers.getNodeParametersIssues(
        description.properties,
        nodeOf(2, { operation: 'start', shops: ['a'] }),
        description,
      ),
    ).toBeNull();
  });

  it('Get Report: the Job ID required (both versions), only listings needing attention if asked', () => {
    for (const version of [1, 2]) {
      expect(resolved(version, { operation: 'report', jobId: 'bj-1' })).toEqual({
        operation: 'report',
        jobId: 'bj-1',
        needsAttention: false,
      });
      const issues = NodeHelpers.getNodeParametersIssues(
        description.properties,
        nodeOf(version, { operation: 'report', jobId: '' }),
        description,
      );
      expect(Object.keys(issues?.parameters ?? {})).toEqual(['jobId']);
    }
  });

  it('waiting returns the counts by default, or (version 2) one item per listing', () => {
    expect(resolved(2, { operation: 'start', wait: true })).toMatchObject({ waitOutput: 'counts' });
    expect(resolved(2, { operation: 'start', wait: false })).not.toHaveProperty('waitOutput');
    expect(resolved(1, { operation: 'start' })).not.toHaveProperty('waitOutput');
  });

  it("the credential's Report Directory loads, and says it is no longer used", () => {
    const field = new MarketplaceTemporalApi().properties.find((p) => p.name === 'reportDir')!;
    expect(field.description).toMatch(/^No longer used: the worker keeps reports in its job store/);
  });

  it('does not wait by default, and says why waiting meets execution timeouts', () => {
    const wait = description.properties.find(
      (p) => p.name === 'wait' && p.displayOptions?.show?.['@version']?.includes(2),
    )!;
    expect(wait.default).toBe(false);
    expect(wait.hint).toMatch(/EXECUTIONS_TIMEOUT/);
    expect(wait.description).toMatch(/^Whether/);
  });

  it("says what it runs on, in the user's words (no developer command, no simulator)", () => {
    const notice = description.properties.find((p) => p.name === 'setupNotice')!;
    expect(notice.type).toBe('notice');
    expect(notice.displayName).toMatch(/Temporal and a selling-kit worker, which holds the shops' API keys/);
    expect(notice.displayName).not.toMatch(/pnpm|simulator|repository/);
    expect(notice.displayOptions).toBeUndefined(); // both versions, every operation
  });

  it('with no worker answering: the developer command for a credential on this machine only', () => {
    const hint = (url: string) =>
      new TemporalHttp({} as never, { url, namespace: 'default', taskQueue: 'q', clientCertificate: false })
        .noWorkerHint;
    expect(hint('http://127.0.0.1:7243')).toMatch(/on this machine: `selling-kit dev`/);
    expect(hint('http://localhost:7243')).toMatch(/on this machine/);
    expect(hint('https://temporal.internal:7243')).toBe(
      "ask whoever runs your selling-kit deployment to start one, or check the credential's task queue",
    );
  });

  it("carries inline feeds up to the worker's limit; many shops start fewer at once as the feed grows", () => {
    expect(INLINE_FEED_MAX_BYTES).toBe(WORKER_INLINE_LIMIT);
    expect(INLINE_START_BUDGET_BYTES).toBeLessThan(4 * 1024 * 1024);
    expect(concurrentShops(10 * 1024)).toBe(100);
    expect(concurrentShops(INLINE_FEED_MAX_BYTES)).toBe(3);
    expect(concurrentShops(INLINE_FEED_MAX_BYTES) * INLINE_FEED_MAX_BYTES).toBeLessThanOrEqual(
      INLINE_START_BUDGET_BYTES,
    );
    expect(concurrentShops(0)).toBe(100);
  });
});
