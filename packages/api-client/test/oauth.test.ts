// OAuth 2.0 helpers and the token provider over a scripted token endpoint: PKCE, single-flight
// refresh, persistence before use, 401 → one refresh and one replay, invalid_grant → re-authorisation.
import {
  OAuthError,
  OAuthTokenProvider,
  ReauthorizationRequiredError,
  UnauthorizedError,
  codeChallengeS256,
  createCodeVerifier,
  parseAuthorizationCallback,
  type TokenSet,
} from '../src/client/index.ts';
import { json, envelope, scriptedClient, VirtualClock } from './helpers/scripted.ts';
import type { TransportRequest } from '../src/core/transport.ts';

const SHOP = { id: 1, username: 'shop', country_code: 'GB' };
const tokenBody = (n: number) => ({
  access_token: `pat_access_${n}_0123456789`,
  refresh_token: `prt_refresh_${n}_0123456789`,
  expires_in: 3600,
  token_type: 'Bearer',
  scope: 'shop_read products_read',
});
const form = (req: TransportRequest) => Object.fromEntries(new URLSearchParams(req.body ?? ''));
const oauth = { clientId: 'client_1', clientSecret: 'secret_abcdefghijkl' };

describe('PKCE and the consent URL', () => {
  it('computes the RFC 7636 S256 challenge', () => {
    // RFC 7636 Appendix B.
    expect(codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
    const verifier = createCodeVerifier();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(codeChallengeS256(verifier)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('builds the consent URL with state, S256 challenge and scopes', () => {
    const { client } = scriptedClient([], { baseUrl: 'http://127.0.0.1:4010', apiKey: undefined, oauth });
    const req = client.auth.createAuthorizationUrl({
      redirectUri: 'https://app.test/cb',
      scopes: ['products_read', 'products_write'],
      extraParams: { seller_id: '1001' },
    });
    const url = new URL(req.url);
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:4010/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'client_1',
      redirect_uri: 'https://app.test/cb',
      scope: 'products_read products_write',
      state: req.state,
      code_challenge: codeChallengeS256(req.codeVerifier),
      code_challenge_method: 'S256',
      seller_id: '1001',
    });
    expect(req.state.length).toBeGreaterThanOrEqual(32);
    const prod = scriptedClient([], { baseUrl: undefined, oauth }).client;
    expect(
      prod.auth.createAuthorizationUrl({ redirectUri: 'https://a/cb', scopes: ['shop_read'] }).url,
    ).toMatch(/^https:\/\/www\.depop\.com\/settings\/oauth\/apps\/\?/);
  });

  it('reads the callback and checks the state', () => {
    expect(parseAuthorizationCallback('https://app.test/cb?code=abc&state=s1', 's1')).toEqual({
      code: 'abc',
      state: 's1',
    });
    expect(() => parseAuthorizationCallback('https://app.test/cb?code=abc&state=evil', 's1')).toThrow(
      /state/,
    );
    expect(() =>
      parseAuthorizationCallback('https://app.test/cb?error=access_denied&state=s1', 's1'),
    ).toThrow(/access_denied/);
  });
});

describe('token endpoint', () => {
  it('exchanges a code with the PKCE verifier (form body, no bearer)', async () => {
    const t = scriptedClient([json(200, tokenBody(1))], {
      apiKey: undefined,
      oauth: { ...oauth, redirectUri: 'https://app.test/cb' },
    });
    const tokens = await t.client.auth.exchangeCode({ code: 'code-1', codeVerifier: 'v'.repeat(43) });
    expect(tokens).toEqual({
      accessToken: tokenBody(1).access_token,
      refreshToken: tokenBody(1).refresh_token,
      expiresAt: t.clock.time + 3_600_000,
      scopes: ['shop_read', 'products_read'],
    });
    const req = t.transport.requests[0]!;
    expect(req.url).toBe('https://api.test/api/v1/oauth2/access-token/');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.headers.authorization).toBeUndefined();
    expect(form(req)).toEqual({
      grant_type: 'authorization_code',
      code: 'code-1',
      redirect_uri: 'https://app.test/cb',
      client_id: 'client_1',
      client_secret: 'secret_abcdefghijkl',
      code_verifier: 'v'.repeat(43),
    });
  });

  it('maps invalid_grant to ReauthorizationRequiredError and other errors to OAuthError', async () => {
    const t = scriptedClient(
      [
        json(400, {
          code: 400,
          error: 'invalid_grant',
          message: 'OAuth2 error',
          detail: 'refresh token has already been used',
          id: 'e1',
        }),
        json(400, {
          code: 400,
          error: 'invalid_request',
          message: 'OAuth2 error',
          detail: 'missing code',
          id: 'e2',
        }),
      ],
      { apiKey: undefined, oauth },
    );
    await expect(t.client.auth.refresh({ refreshToken: 'prt_x_0123456789' })).rejects.toBeInstanceOf(
      ReauthorizationRequiredError,
    );
    const err = await t.client.auth.refresh({ refreshToken: 'prt_x_0123456789' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthError);
    expect(err).toMatchObject({ code: 'invalid_request', errorId: 'e2', status: 400 });
  });
});

describe('OAuthTokenProvider', () => {
  /** The pair pat_<name>_0123456789 / prt_<name>_0123456789, expiring `inMs` after the clock's now. */
  const tokenPair = (clock: VirtualClock, name: string, inMs = 3_600_000): TokenSet => ({
    accessToken: `pat_${name}_0123456789`,
    refreshToken: `prt_${name}_0123456789`,
    expiresAt: clock.time + inMs,
  });
  const expired = (clock: VirtualClock) => tokenPair(clock, 'old', -1);

  it('100 concurrent callers on an expired token cause exactly one refresh', async () => {
    const clock = new VirtualClock();
    let refreshes = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const provider = new OAuthTokenProvider({
      tokens: expired(clock),
      now: clock.now,
      refresh: async (rt) => {
        refreshes++;
        expect(rt).toBe('prt_old_0123456789');
        await gate;
        return tokenPair(clock, 'new');
      },
    });
    const all = Promise.all(Array.from({ length: 100 }, () => provider.accessToken()));
    await Promise.resolve();
    release();
    const tokens = await all;
    expect(refreshes).toBe(1);
    expect(new Set(tokens)).toEqual(new Set(['pat_new_0123456789']));
  });

  it('keeps the rotated pair when an onRefresh observer throws', async () => {
    const clock = new VirtualClock();
    let refreshes = 0;
    const provider = new OAuthTokenProvider({
      tokens: expired(clock),
      now: clock.now,
      onRefresh: () => {
        throw new Error('observer bug');
      },
      refresh: async () => {
        refreshes++;
        return tokenPair(clock, 'new');
      },
    });
    await expect(provider.accessToken()).resolves.toBe('pat_new_0123456789');
    expect(provider.current().refreshToken).toBe('prt_new_0123456789');
    expect(refreshes).toBe(1);
  });

  it('hands the rotated tokens to onTokens and awaits it before using them', async () => {
    const clock = new VirtualClock();
    const order: string[] = [];
    let persisted: TokenSet | undefined;
    const t = scriptedClient([], {
      apiKey: undefined,
      oauth: {
        ...oauth,
        tokens: expired(clock),
        onTokens: async (tokens) => {
          order.push('onTokens:start');
          await new Promise((r) => setImmediate(r));
          persisted = tokens;
          order.push('onTokens:end');
        },
      },
      now: clock.now,
      sleep: clock.sleep,
    });
    t.transport.fallback = (req) => {
      if (req.url.endsWith('/access-token/')) {
        order.push('refresh');
        return json(200, tokenBody(2));
      }
      order.push(`api:${req.headers.authorization}`);
      return json(200, SHOP);
    };
    await t.client.shop.get();
    expect(order).toEqual([
      'refresh',
      'onTokens:start',
      'onTokens:end',
      `api:Bearer ${tokenBody(2).access_token}`,
    ]);
    expect(persisted?.refreshToken).toBe(tokenBody(2).refresh_token);
  });

  it('refreshes proactively shortly before expiry', async () => {
    const clock = new VirtualClock();
    let refreshes = 0;
    const provider = new OAuthTokenProvider({
      tokens: tokenPair(clock, 'a', 30_000),
      refreshSkewMs: 60_000,
      now: clock.now,
      refresh: async () => {
        refreshes++;
        return tokenPair(clock, 'b');
      },
    });
    expect(await provider.accessToken()).toBe('pat_b_0123456789');
    expect(await provider.accessToken()).toBe('pat_b_0123456789');
    expect(refreshes).toBe(1);
  });

  it('offers unpersisted tokens again when onTokens failed, without another refresh', async () => {
    const clock = new VirtualClock();
    let refreshes = 0;
    let fail = true;
    const saved: string[] = [];
    const provider = new OAuthTokenProvider({
      tokens: expired(clock),
      now: clock.now,
      refresh: async () => {
        refreshes++;
        return tokenPair(clock, 'n');
      },
      onTokens: (tokens) => {
        if (fail) throw new Error('db down');
        saved.push(tokens.refreshToken);
      },
    });
    await expect(provider.accessToken()).rejects.toMatchObject({ code: 'token_persistence_failed' });
    fail = false;
    expect(await provider.accessToken()).toBe('pat_n_0123456789');
    expect(saved).toEqual(['prt_n_0123456789']);
    expect(refreshes).toBe(1);
  });

  it('an expired-token 401 causes one refresh and one replay', async () => {
    const clock = new VirtualClock();
    const t = scriptedClient([], {
      apiKey: undefined,
      oauth: { ...oauth, tokens: { accessToken: 'pat_stale_0123456789', refreshToken: 'prt_1_0123456789' } },
      now: clock.now,
      sleep: clock.sleep,
    });
    t.transport.fallback = (req) => {
      if (req.url.endsWith('/access-token/')) return json(200, tokenBody(3));
      if (req.headers.authorization === 'Bearer pat_stale_0123456789')
        return envelope(401, 'unauthorized', 'access token expired: refresh it');
      return json(200, SHOP);
    };
    await expect(t.client.shop.get()).resolves.toEqual(SHOP);
    const urls = t.transport.requests.map((r) => r.url.replace('https://api.test', ''));
    expect(urls).toEqual(['/api/v1/shop/', '/api/v1/oauth2/access-token/', '/api/v1/shop/']);
    expect(t.events.filter((e) => e.type === 'token_refresh')).toHaveLength(1);
  });

  it('a 401 after the replay surfaces as UnauthorizedError (no loop)', async () => {
    const t = scriptedClient([], {
      apiKey: undefined,
      oauth: { ...oauth, tokens: { accessToken: 'pat_stale_0123456789', refreshToken: 'prt_1_0123456789' } },
    });
    t.transport.fallback = (req) =>
      req.url.endsWith('/access-token/')
        ? json(200, tokenBody(4))
        : envelope(401, 'unauthorized', 'invalid token');
    await expect(t.client.shop.get()).rejects.toBeInstanceOf(UnauthorizedError);
    expect(t.transport.requests).toHaveLength(3);
  });

  it('concurrent 401s share one refresh', async () => {
    const t = scriptedClient([], {
      apiKey: undefined,
      oauth: { ...oauth, tokens: { accessToken: 'pat_stale_0123456789', refreshToken: 'prt_1_0123456789' } },
      pacing: false,
    });
    let refreshes = 0;
    t.transport.fallback = async (req) => {
      if (req.url.endsWith('/access-token/')) {
        refreshes++;
        await new Promise((r) => setImmediate(r));
        return json(200, tokenBody(5));
      }
      return req.headers.authorization === 'Bearer pat_stale_0123456789'
        ? envelope(401, 'unauthorized', 'access token expired')
        : json(200, SHOP);
    };
    await Promise.all(Array.from({ length: 50 }, () => t.client.shop.get()));
    expect(refreshes).toBe(1);
  });

  it('invalid_grant → ReauthorizationRequiredError, and later calls fail fast', async () => {
    const clock = new VirtualClock();
    const t = scriptedClient([], {
      apiKey: undefined,
      oauth: { ...oauth, tokens: expired(clock) },
      now: clock.now,
      sleep: clock.sleep,
    });
    t.transport.fallback = () =>
      json(400, {
        code: 400,
        error: 'invalid_grant',
        message: 'OAuth2 error',
        detail: 'refresh token has expired',
        id: 'g1',
      });
    await expect(t.client.shop.get()).rejects.toBeInstanceOf(ReauthorizationRequiredError);
    await expect(t.client.shop.get()).rejects.toBeInstanceOf(ReauthorizationRequiredError);
    expect(t.transport.requests).toHaveLength(1);
  });
});
