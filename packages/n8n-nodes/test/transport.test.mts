// The n8n transport and Return All with no service behind them: a mocked IExecuteFunctions whose
// `httpRequestWithAuthentication` is scripted, so the answers n8n can give (full responses, errors it
// throws) and misbehaving services (429 storms, cursors that never end) are exact.
import {
  NodeApiError,
  type IDataObject,
  type IExecuteFunctions,
  type INodeExecutionData,
} from 'n8n-workflow';
import { Marketplace } from '../nodes/Marketplace/Marketplace.node.ts';
import { MAX_RETRY_AFTER_MS } from '../nodes/Marketplace/transport/index.ts';
import { MAX_PAGES } from '../nodes/Marketplace/actions/common.ts';

interface SentRequest {
  credentialType: string;
  method: string;
  url: URL;
  headers: Record<string, string>;
  ignoreHttpStatusErrors: unknown;
}
type Reply = { statusCode: number; headers?: Record<string, string>; body?: unknown } | Error;
type Script = (req: SentRequest, n: number) => Reply;

const SECRET = 'pak_live_do_not_leak_0123456789';
const ERROR_ID = '7f6c1f3e-0b2a-4d59-9f53-1e2d3c4b5a69';
const node = new Marketplace();
const NODE = {
  id: 'node-1',
  name: 'Marketplace',
  type: '@selling-kit/n8n-nodes-marketplace.marketplace',
  typeVersion: 1,
  position: [0, 0] as [number, number],
  parameters: {},
};

function mock(items: Record<string, unknown>[], script: Script, continueOnFail = false) {
  const sent: SentRequest[] = [];
  const fns = {
    getInputData: (): INodeExecutionData[] => items.map(() => ({ json: {} })),
    getNode: () => NODE,
    continueOnFail: () => continueOnFail,
    getCredentials: async () => ({ environment: 'simulator', apiKey: SECRET }),
    getNodeParameter(name: string, i: number, fallback?: unknown) {
      const params = items[i] ?? {};
      if (name in params) return params[name];
      if (fallback !== undefined) return fallback;
      throw new Error(`parameter "${name}" is not set for item ${i}`);
    },
    helpers: {
      async httpRequestWithAuthentication(
        credentialType: string,
        options: {
          method: string;
          url: string;
          headers?: Record<string, string>;
          ignoreHttpStatusErrors?: unknown;
        },
      ) {
        const req: SentRequest = {
          credentialType,
          method: options.method,
          url: new URL(options.url),
          headers: options.headers ?? {},
          ignoreHttpStatusErrors: options.ignoreHttpStatusErrors,
        };
        sent.push(req);
        const reply = script(req, sent.length);
        if (reply instanceof Error) throw reply;
        const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? '');
        return { statusCode: reply.statusCode, headers: reply.headers ?? {}, body };
      },
    },
  };
  return { fns: fns as unknown as IExecuteFunctions, sent };
}

const json = (out: INodeExecutionData[][]) => out[0]!.map((o) => o.json as IDataObject);
const apiError = (code: string, message: string) => ({ id: ERROR_ID, errors: [{ code, message }] });
const JSON_HEADERS = { 'content-type': 'application/json' };
const shopGet = { resource: 'shop', operation: 'get' };
const SHOP = { id: 1001, username: 'demo', country_code: 'GB' };
const product = (id: number) => ({ product_id: id, slug: `p-${id}`, sku: `SKU-${id}` });

describe('the n8n transport', () => {
  it('API key: every request goes through n8n with the API-key credential, n8n answering every status', async () => {
    const { fns, sent } = mock([shopGet], () => ({ statusCode: 200, headers: JSON_HEADERS, body: SHOP }));
    expect(json(await node.execute.call(fns))).toEqual([SHOP]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      credentialType: 'marketplaceApi',
      method: 'GET',
      ignoreHttpStatusErrors: true,
    });
    expect(sent[0]!.url.href).toBe('http://127.0.0.1:4010/api/v1/shop/');
    expect(Object.keys(sent[0]!.headers).map((h) => h.toLowerCase())).not.toContain('authorization');
  });

  it('OAuth2: n8n throws on 401 so that it refreshes the token and replays the request', async () => {
    const { fns, sent } = mock([{ ...shopGet, authentication: 'oAuth2' }], () => ({
      statusCode: 200,
      headers: JSON_HEADERS,
      body: SHOP,
    }));
    expect(json(await node.execute.call(fns))).toEqual([SHOP]);
    expect(sent[0]).toMatchObject({
      credentialType: 'marketplaceOAuth2Api',
      ignoreHttpStatusErrors: { ignore: true, except: [401] },
    });
  });

  it('OAuth2: a 401 n8n could not cure is a NodeApiError with the code and error id, not retried', async () => {
    const axiosLike = Object.assign(new Error('Request failed with status code 401'), {
      response: {
        status: 401,
        headers: JSON_HEADERS,
        data: JSON.stringify(apiError('unauthorized', 'token expired')),
      },
    });
    const thrown = new NodeApiError(NODE, axiosLike as never);
    const { fns, sent } = mock([{ ...shopGet, authentication: 'oAuth2' }], () => thrown);
    const error = (await node.execute.call(fns).catch((e: unknown) => e)) as NodeApiError;
    expect(error.constructor.name).toBe('NodeApiError');
    expect(error.message).toMatch(/^unauthorized: /);
    expect(error.httpCode).toBe('401');
    expect(error.description).toContain(ERROR_ID);
    expect(sent).toHaveLength(1);
  });

  it('a request with no answer (network) is retried for an idempotent call', async () => {
    const { fns, sent } = mock([shopGet], (_req, n) =>
      n === 1
        ? new Error('connect ECONNREFUSED 127.0.0.1:4010')
        : { statusCode: 200, headers: JSON_HEADERS, body: SHOP },
    );
    expect(json(await node.execute.call(fns))).toEqual([SHOP]);
    expect(sent).toHaveLength(2);
  });
});

describe('429s', () => {
  const tooMany = (retryAfter: string) => ({
    statusCode: 429,
    headers: { ...JSON_HEADERS, 'retry-after': retryAfter },
    body: apiError('too_many_requests', 'slow down'),
  });

  it('a Retry-After beyond the cap is not slept: the item fails at once with the 429', async () => {
    expect(MAX_RETRY_AFTER_MS).toBe(30_000);
    const started = Date.now();
    const { fns, sent } = mock([shopGet], () => tooMany('120'));
    const error = (await node.execute.call(fns).catch((e: unknown) => e)) as NodeApiError;
    expect(error.constructor.name).toBe('NodeApiError');
    expect(error.httpCode).toBe('429');
    expect(sent).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('429s that never stop are retried a bounded number of times, then fail', async () => {
    const { fns, sent } = mock([shopGet], () => tooMany('0'));
    const error = (await node.execute.call(fns).catch((e: unknown) => e)) as NodeApiError;
    expect(error.constructor.name).toBe('NodeApiError');
    expect(error.httpCode).toBe('429');
    expect(sent.length).toBeGreaterThan(1);
    expect(sent.length).toBeLessThanOrEqual(6);
  });

  it('with Continue On Fail the 429 becomes the item, the next item still runs, and no secret leaks', async () => {
    const addresses = { resource: 'shipping', operation: 'listAddresses' };
    const address = {
      id: 7,
      name: 'Home',
      address: '1 High St',
      city: 'London',
      state: '',
      postal_code: 'E1',
      country: 'GB',
    };
    const { fns } = mock(
      [shopGet, addresses],
      (req) =>
        req.url.pathname === '/api/v1/shop/'
          ? tooMany('0')
          : {
              statusCode: 200,
              headers: JSON_HEADERS,
              body: { meta: { cursor: null, has_more: false }, data: [address] },
            },
      true,
    );
    const out = await node.execute.call(fns);
    expect(json(out)).toEqual([
      expect.objectContaining({ code: 'too_many_requests', errorId: ERROR_ID, status: 429 }),
      address,
    ]);
    expect(out[0]!.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
    expect(JSON.stringify(out)).not.toContain(SECRET);
  });
});

describe('Return All always ends', () => {
  const getAll = (extra: Record<string, unknown> = {}) => ({
    resource: 'products',
    operation: 'getAll',
    returnAll: true,
    filters: {},
    ...extra,
  });
  const page = (ids: number[], cursor: string | null, hasMore = cursor !== null) => ({
    statusCode: 200,
    headers: JSON_HEADERS,
    body: { meta: { cursor, has_more: hasMore }, data: ids.map(product) },
  });

  it('walks the pages until has_more is false, at the largest page size', async () => {
    const { fns, sent } = mock([getAll()], (req) =>
      req.url.searchParams.get('cursor') === 'c2'
        ? page([3], null)
        : req.url.searchParams.get('cursor') === 'c1'
          ? page([2], 'c2')
          : page([1], 'c1'),
    );
    expect(json(await node.execute.call(fns)).map((p) => p.product_id)).toEqual([1, 2, 3]);
    expect(sent.map((r) => r.url.searchParams.get('cursor'))).toEqual([null, 'c1', 'c2']);
    expect(sent.every((r) => r.url.searchParams.get('limit') === '100')).toBe(true);
  });

  it('stops on a repeated cursor', async () => {
    let id = 0;
    const { fns, sent } = mock([getAll()], () => page([++id], 'same'));
    expect(json(await node.execute.call(fns)).map((p) => p.product_id)).toEqual([1, 2]);
    expect(sent).toHaveLength(2);
  });

  it('stops when fresh cursors bring nothing new (same items, or empty pages)', async () => {
    let n = 0;
    const same = mock([getAll()], () => page([1, 2], `c${++n}`));
    expect(json(await node.execute.call(same.fns))).toHaveLength(2);
    expect(same.sent).toHaveLength(2);
    const empty = mock([getAll()], (_r, k) => page([], `e${k}`, true));
    expect(json(await node.execute.call(empty.fns))).toEqual([]);
    expect(empty.sent).toHaveLength(1);
  });

  it(`gives up with a NodeOperationError after ${MAX_PAGES} pages of endless new items`, async () => {
    const { fns, sent } = mock([getAll()], (_r, k) => page([k], `c${k}`));
    const error = (await node.execute.call(fns).catch((e: unknown) => e)) as Error;
    expect(error.constructor.name).toBe('NodeOperationError');
    expect(error.message).toMatch(/Return All: stopped after \d+ pages/);
    expect(sent).toHaveLength(MAX_PAGES);
  });

  it('a limit asks for no more than it needs and stops there', async () => {
    const { fns, sent } = mock([getAll({ returnAll: false, limit: 3 })], (_r, k) =>
      page([k * 2 - 1, k * 2], `c${k}`),
    );
    expect(json(await node.execute.call(fns)).map((p) => p.product_id)).toEqual([1, 2, 3]);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.url.searchParams.get('limit')).toBe('3');
  });

  it('orders use their own page size (200) and key (purchase_id)', async () => {
    const order = (id: string) => ({ purchase_id: id, status: 'PAID' });
    const { fns, sent } = mock(
      [{ resource: 'orders', operation: 'getAll', returnAll: true, filters: {} }],
      (req) => ({
        statusCode: 200,
        headers: JSON_HEADERS,
        body: req.url.searchParams.get('cursor')
          ? { meta: { cursor: null, has_more: false }, data: [order('b'), order('a')] }
          : { meta: { cursor: 'o1', has_more: true }, data: [order('a')] },
      }),
    );
    expect(json(await node.execute.call(fns)).map((o) => o.purchase_id)).toEqual(['a', 'b']);
    expect(sent[0]!.url.searchParams.get('limit')).toBe('200');
  });
});
