// The logging hook: request/response/retry events with ids and timings, debug mode with headers and
// bodies — and no secret (API key, tokens, client secret, code verifier) in any event or error.
import { SellingApiError, type LogEvent } from '../src/client/index.ts';
import { envelope, json, scriptedClient, CREATE_BODY } from './helpers/scripted.ts';

const API_KEY = 'pak_0123456789abcdef_secret';
const CLIENT_SECRET = 'secret_client_abcdefghijkl';
const ACCESS = 'pat_access_token_abcdefghijkl';
const REFRESH = 'prt_refresh_token_abcdefghijkl';
const NEW_ACCESS = 'pat_new_access_abcdefghijkl';
const NEW_REFRESH = 'prt_new_refresh_abcdefghijkl';
const VERIFIER = 'verifier_'.padEnd(50, 'x');
const SECRETS = [API_KEY, CLIENT_SECRET, ACCESS, REFRESH, NEW_ACCESS, NEW_REFRESH, VERIFIER];

function expectNoSecret(text: string) {
  for (const s of SECRETS) expect(text).not.toContain(s);
}

describe('logging hook', () => {
  it('reports request, response and retry events with request id, attempt, status, duration and error id', async () => {
    const t = scriptedClient(
      [
        envelope(500, 'generic_error', 'oops', 'err-42'),
        json(200, { id: 1, username: 'a', country_code: 'GB' }),
      ],
      {
        apiKey: API_KEY,
      },
    );
    await t.client.shop.get();
    const types = t.events.map((e) => e.type);
    expect(types).toEqual(['request', 'response', 'retry', 'request', 'response']);
    const [req, res, retry] = t.events as [
      LogEvent & { type: 'request' },
      LogEvent & { type: 'response' },
      LogEvent & { type: 'retry' },
    ];
    expect(req).toMatchObject({ operationId: 'shop.get', method: 'GET', path: '/api/v1/shop/', attempt: 1 });
    expect(res).toMatchObject({ status: 500, errorId: 'err-42', code: 'generic_error', attempt: 1 });
    expect(typeof res.durationMs).toBe('number');
    expect(retry).toMatchObject({ reason: 'server_error', attempt: 1 });
    expect(new Set(t.events.map((e) => ('requestId' in e ? e.requestId : '')))).toHaveProperty('size', 1);
    expect(t.transport.requests[0]!.headers['x-request-id']).toBe(req.requestId);
    expect(req.headers).toBeUndefined();
  });

  it('debug mode adds headers and bodies with the Authorization header redacted', async () => {
    const t = scriptedClient([json(200, { product_id: 1, slug: 's', sku: 'SKU-1' })], {
      apiKey: API_KEY,
      debug: true,
    });
    await t.client.products.create(CREATE_BODY);
    const req = t.events.find((e) => e.type === 'request') as LogEvent & { type: 'request' };
    expect(req.headers!.authorization).toBe('Bearer [redacted]');
    expect(req.body).toMatchObject({ sku: 'SKU-1' });
    const res = t.events.find((e) => e.type === 'response') as LogEvent & { type: 'response' };
    expect(res.body).toEqual({ product_id: 1, slug: 's', sku: 'SKU-1' });
    expectNoSecret(JSON.stringify(t.events));
  });

  it('never lets a secret reach a log event, an error message or a serialised error', async () => {
    const t = scriptedClient([], {
      apiKey: undefined,
      debug: true,
      oauth: {
        clientId: 'client-1',
        clientSecret: CLIENT_SECRET,
        redirectUri: 'https://app/cb',
        tokens: { accessToken: ACCESS, refreshToken: REFRESH },
      },
    });
    t.transport.fallback = (req) => {
      if (req.url.endsWith('/access-token/')) {
        const form = new URLSearchParams(req.body);
        if (form.get('grant_type') === 'authorization_code') {
          return json(400, {
            code: 400,
            error: 'invalid_grant',
            message: 'x',
            detail: `bad verifier ${VERIFIER}`,
            id: 'o1',
          });
        }
        return json(200, { access_token: NEW_ACCESS, refresh_token: NEW_REFRESH, expires_in: 3600 });
      }
      if (req.headers.authorization === `Bearer ${ACCESS}`)
        return envelope(401, 'unauthorized', `token ${ACCESS} expired`);
      // A server that echoes the credential back: the client must still not leak it.
      return envelope(422, 'validation', `rejected for ${req.headers.authorization} and ${CLIENT_SECRET}`);
    };
    const errors: unknown[] = [];
    await t.client.shop.get().catch((e: unknown) => errors.push(e));
    await t.client.auth
      .exchangeCode({ code: 'c', codeVerifier: VERIFIER })
      .catch((e: unknown) => errors.push(e));
    expect(errors).toHaveLength(2);
    for (const e of errors) {
      expect(e).toBeInstanceOf(SellingApiError);
      expectNoSecret((e as Error).message);
      expectNoSecret(JSON.stringify(e));
      expectNoSecret(String(e));
    }
    expect((errors[0] as Error).message).toContain('[redacted]');
    expect(t.events.some((e) => e.type === 'token_refresh')).toBe(true);
    expectNoSecret(JSON.stringify(t.events));
    expectNoSecret(JSON.stringify(t.client.credential));
  });

  it('a throwing logger does not break calls', async () => {
    const t = scriptedClient([json(200, { id: 1, username: 'a', country_code: 'GB' })], {
      logger: () => {
        throw new Error('logger down');
      },
    });
    await expect(t.client.shop.get()).resolves.toMatchObject({ id: 1 });
  });
});
