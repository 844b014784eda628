// OAuth 2.0 (authorization code + PKCE S256, refresh rotation), scopes and partner access denial,
// over real HTTP against the simulator's authorize and token endpoints.
import { GRANT_ENDPOINT_PATH, OAuthErrorResponse, OAuthTokenResponse } from '@selling-kit/api-client/core';
import { createOAuthClient, createSeller, type RunningSimulator } from '../../src/index.ts';
import type { OAuthClientRecord, SellerState } from '../../src/state.ts';
import {
  adminCall,
  call,
  pkcePair,
  postForm,
  probeHandlers,
  startTestShop,
  type CallResult,
  type TestShop,
} from '../helpers.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';

let shop: TestShop;
let sim: RunningSimulator;
let client: OAuthClientRecord;
let seller: SellerState;

beforeAll(async () => {
  shop = await startTestShop({ handlers: probeHandlers });
  sim = shop.sim;
  client = createOAuthClient(sim.world, 'crosslister', [REDIRECT]);
  seller = createSeller(sim.world, { username: 'oauth-seller' });
});
afterAll(() => sim.close());

interface AuthorizeParams {
  scope?: string;
  state?: string;
  challenge?: string;
  method?: string;
  sellerId?: number;
  redirectUri?: string;
  clientId?: string;
  extra?: Record<string, string>;
}

async function authorize(
  p: AuthorizeParams = {},
): Promise<{ status: number; location: URL | null; body: CallResult['body'] }> {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: p.clientId ?? client.clientId,
    redirect_uri: p.redirectUri ?? REDIRECT,
    scope: p.scope ?? 'shop_read products_read',
    state: p.state ?? 'xyz',
    code_challenge: p.challenge ?? pkcePair().challenge,
    code_challenge_method: p.method ?? 'S256',
    seller_id: String(p.sellerId ?? seller.id),
    ...p.extra,
  });
  const res = await fetch(`${sim.url}/oauth/authorize?${q}`, { redirect: 'manual' });
  const text = await res.text();
  const loc = res.headers.get('location');
  return {
    status: res.status,
    location: loc ? new URL(loc) : null,
    body: text ? JSON.parse(text) : undefined,
  };
}

/** Trades an authorization code for tokens, as the cross-lister's callback does. */
function exchangeCode(code: string, verifier: string) {
  return postForm(sim.url, GRANT_ENDPOINT_PATH, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: client.clientId,
    client_secret: client.clientSecret,
    code_verifier: verifier,
  });
}

async function connect(scope = 'shop_read products_read') {
  const { verifier, challenge } = pkcePair();
  const auth = await authorize({ scope, challenge });
  const code = auth.location!.searchParams.get('code')!;
  const res = await exchangeCode(code, verifier);
  return { res, code, verifier };
}

function refresh(refreshToken: string, secret = client.clientSecret) {
  return postForm(sim.url, GRANT_ENDPOINT_PATH, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.clientId,
    client_secret: secret,
  });
}

function expectOAuthError(res: { status: number; body: CallResult['body'] }, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(OAuthErrorResponse.safeParse(res.body).success).toBe(true);
  expect(res.body).toMatchObject({ code: status, error });
  expect(typeof res.body.id).toBe('string');
}

describe('authorization code + PKCE', () => {
  test('happy path: authorize redirects with code and state, the code buys a working token pair', async () => {
    const { verifier, challenge } = pkcePair();
    const auth = await authorize({ challenge, state: 'st-123' });
    expect(auth.status).toBe(302);
    expect(auth.location!.origin + auth.location!.pathname).toBe(REDIRECT);
    expect(auth.location!.searchParams.get('state')).toBe('st-123');
    const code = auth.location!.searchParams.get('code');
    expect(code).toBeTruthy();

    const res = await exchangeCode(code!, verifier);
    expect(res.status).toBe(200);
    expect(OAuthTokenResponse.parse(res.body)).toMatchObject({ expires_in: 3600, token_type: 'Bearer' });
    expect(res.body.access_token).toMatch(/^pat_/);
    expect(res.body.refresh_token).toMatch(/^prt_/);
    expect(res.headers.get('cache-control')).toBe('no-store');

    const me = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: seller.id, username: 'oauth-seller' });
  });

  test('an authorization code works once; replaying it is invalid_grant and revokes its tokens', async () => {
    const { res, code, verifier } = await connect();
    expect(res.status).toBe(200);
    const again = await exchangeCode(code, verifier);
    expectOAuthError(again, 400, 'invalid_grant');
    const me = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: res.body.access_token });
    expect(me.status).toBe(401);
  });

  test('wrong code_verifier → 400 invalid_request (PKCE mismatch)', async () => {
    const auth = await authorize();
    const res = await exchangeCode(auth.location!.searchParams.get('code')!, pkcePair().verifier);
    expectOAuthError(res, 400, 'invalid_request');
    expect(res.body.detail).toMatch(/code_verifier/);
  });

  test('wrong client secret → 401 "client secret does not match"', async () => {
    const { verifier, challenge } = pkcePair();
    const auth = await authorize({ challenge });
    const res = await postForm(sim.url, GRANT_ENDPOINT_PATH, {
      grant_type: 'authorization_code',
      code: auth.location!.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      client_id: client.clientId,
      client_secret: 'not-the-secret',
      code_verifier: verifier,
    });
    expectOAuthError(res, 401, 'client secret does not match');
  });

  test('redirect_uri mismatch, unknown and expired codes → invalid_grant', async () => {
    const { verifier, challenge } = pkcePair();
    const code = (await authorize({ challenge })).location!.searchParams.get('code')!;
    const base = {
      grant_type: 'authorization_code',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      code_verifier: verifier,
    };
    expectOAuthError(
      await postForm(sim.url, GRANT_ENDPOINT_PATH, {
        ...base,
        code,
        redirect_uri: 'http://127.0.0.1:9/other',
      }),
      400,
      'invalid_grant',
    );
    expectOAuthError(
      await postForm(sim.url, GRANT_ENDPOINT_PATH, { ...base, code: 'no-such-code', redirect_uri: REDIRECT }),
      400,
      'invalid_grant',
    );
    sim.world.clock.advance(sim.config.authCodeTtlSec * 1000 + 1);
    expectOAuthError(
      await postForm(sim.url, GRANT_ENDPOINT_PATH, { ...base, code, redirect_uri: REDIRECT }),
      400,
      'invalid_grant',
    );
  });

  test('missing, duplicate or malformed parameters → invalid_request; unknown grant → unsupported_grant_type', async () => {
    expectOAuthError(
      await postForm(sim.url, GRANT_ENDPOINT_PATH, { grant_type: 'refresh_token' }),
      400,
      'invalid_request',
    );
    const dup = await call(
      sim.url,
      'POST',
      GRANT_ENDPOINT_PATH,
      `grant_type=refresh_token&refresh_token=a&refresh_token=b&client_id=${client.clientId}&client_secret=x`,
      { headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    );
    expectOAuthError(dup, 400, 'invalid_request');
    expect(dup.body.detail).toMatch(/repeated/);
    const shortVerifier = await postForm(sim.url, GRANT_ENDPOINT_PATH, {
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: REDIRECT,
      client_id: client.clientId,
      client_secret: client.clientSecret,
      code_verifier: 'too-short',
    });
    expectOAuthError(shortVerifier, 400, 'invalid_request');
    expectOAuthError(
      await postForm(sim.url, GRANT_ENDPOINT_PATH, { grant_type: 'password' }),
      400,
      'unsupported_grant_type',
    );
    expectOAuthError(
      await call(sim.url, 'POST', GRANT_ENDPOINT_PATH, 'not json{', {}),
      400,
      'invalid_request',
    );
    expectOAuthError(await call(sim.url, 'GET', GRANT_ENDPOINT_PATH), 405, 'invalid_request');
  });

  test('authorize: bad client or redirect_uri answers without redirecting; other errors redirect per RFC 6749', async () => {
    const unknownClient = await authorize({ clientId: 'nobody' });
    expect(unknownClient.status).toBe(400);
    expect(unknownClient.location).toBeNull();
    expect(unknownClient.body.error).toBe('invalid_client');

    const badRedirect = await authorize({ redirectUri: 'http://evil.example/cb' });
    expect(badRedirect.status).toBe(400);
    expect(badRedirect.location).toBeNull();

    const cases: [AuthorizeParams, string][] = [
      [{ method: 'plain' }, 'invalid_request'],
      [{ challenge: '' }, 'invalid_request'],
      [{ scope: 'products_read launch_missiles' }, 'invalid_scope'],
      [{ extra: { response_type: 'token' } }, 'unsupported_response_type'],
      [{ sellerId: 999_999 }, 'access_denied'],
      [{ extra: { decision: 'deny' } }, 'access_denied'],
    ];
    for (const [params, error] of cases) {
      const res = await authorize({ ...params, state: 'keep-me' });
      expect(res.status).toBe(302);
      expect(res.location!.searchParams.get('error')).toBe(error);
      expect(res.location!.searchParams.get('state')).toBe('keep-me');
      expect(res.location!.searchParams.get('code')).toBeNull();
    }
  });
});

describe('refresh tokens', () => {
  test('rotation: each refresh returns a new pair; the new refresh token keeps the original expiry', async () => {
    const { res } = await connect();
    const first = sim.world.refreshTokens.get(res.body.refresh_token)!;
    sim.world.clock.advance(60_000);
    const r1 = await refresh(res.body.refresh_token);
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).toMatch(/^prt_/);
    expect(r1.body.refresh_token).not.toBe(res.body.refresh_token);
    expect(r1.body.access_token).not.toBe(res.body.access_token);
    expect(sim.world.refreshTokens.get(r1.body.refresh_token)!.expiresAt).toBe(first.expiresAt);
    const r2 = await refresh(r1.body.refresh_token);
    expect(r2.status).toBe(200);
    const me = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: r2.body.access_token });
    expect(me.status).toBe(200);
  });

  test('a used refresh token → 400 invalid_grant', async () => {
    const { res } = await connect();
    expect((await refresh(res.body.refresh_token)).status).toBe(200);
    expectOAuthError(await refresh(res.body.refresh_token), 400, 'invalid_grant');
  });

  test('two refreshes in flight with the same token: exactly one wins, the other gets invalid_grant', async () => {
    const { res } = await connect();
    const [a, b] = await Promise.all([refresh(res.body.refresh_token), refresh(res.body.refresh_token)]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    expect((a.status === 400 ? a : b).body.error).toBe('invalid_grant');
  });

  test('wrong client secret on refresh → 401; an unknown refresh token → invalid_grant', async () => {
    const { res } = await connect();
    expectOAuthError(await refresh(res.body.refresh_token, 'wrong'), 401, 'client secret does not match');
    expectOAuthError(await refresh('prt_unknown'), 400, 'invalid_grant');
    // The failed attempt did not consume the token.
    expect((await refresh(res.body.refresh_token)).status).toBe(200);
  });

  test('an expired access token → 401 unauthorized; refreshing restores access', async () => {
    const { res } = await connect();
    const ok = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: res.body.access_token });
    expect(ok.status).toBe(200);
    sim.world.clock.advance(sim.config.accessTokenTtlSec * 1000);
    const expired = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: res.body.access_token });
    expect(expired.status).toBe(401);
    expect(expired.body.errors[0].code).toBe('unauthorized');
    const renewed = await refresh(res.body.refresh_token);
    expect(renewed.status).toBe(200);
    const again = await call(sim.url, 'GET', '/api/v1/shop/', undefined, {
      token: renewed.body.access_token,
    });
    expect(again.status).toBe(200);
  });
});

describe('scopes and partner access', () => {
  test('a token without the operation’s scope → 403 insufficient_scope naming the scope', async () => {
    const { res } = await connect('products_read');
    const denied = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: res.body.access_token });
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0].code).toBe('insufficient_scope');
    expect(denied.body.errors[0].message).toContain('shop_read');
    const write = await call(sim.url, 'POST', '/api/v1/products/', {}, { token: res.body.access_token });
    expect(write.status).toBe(403);
    expect(write.body.errors[0].message).toContain('products_write');
  });

  test('any-of scopes: insights accept any one of their scopes', async () => {
    const withOne = await connect('orders_read');
    const ok = await call(sim.url, 'GET', '/api/v1/insights/shop/live/', undefined, {
      token: withOne.res.body.access_token,
    });
    expect(ok.status).toBe(200);
  });

  test('API keys hold every scope', async () => {
    const res = await shop.call('POST', '/api/v1/products/', {});
    expect(res.status).toBe(200);
  });

  test('missing or unknown credentials → 401 unauthorized', async () => {
    const none = await call(sim.url, 'GET', '/api/v1/shop/');
    expect(none.status).toBe(401);
    expect(none.body.errors[0].code).toBe('unauthorized');
    const bad = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: 'pak_nope' });
    expect(bad.status).toBe(401);
  });

  test('a partner whose access is disabled → 401 partner_access_denied (API key and OAuth)', async () => {
    const { res } = await connect();
    const deny = await adminCall(sim, 'PATCH', '/admin/partners/crosslister', { accessDenied: true });
    expect(deny.status).toBe(200);
    const viaToken = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: res.body.access_token });
    expect(viaToken.status).toBe(401);
    expect(viaToken.body.errors[0].code).toBe('partner_access_denied');
    await adminCall(sim, 'PATCH', '/admin/partners/crosslister', { accessDenied: false });

    await adminCall(sim, 'PATCH', '/admin/partners/partner-test', { accessDenied: true });
    const viaKey = await shop.call('GET', '/api/v1/shop/');
    expect(viaKey.status).toBe(401);
    expect(viaKey.body.errors[0].code).toBe('partner_access_denied');
    await adminCall(sim, 'PATCH', '/admin/partners/partner-test', { accessDenied: false });
    expect((await shop.call('GET', '/api/v1/shop/')).status).toBe(200);
  });
});
