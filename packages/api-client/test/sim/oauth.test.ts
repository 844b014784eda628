// OAuth 2.0 against the simulator: consent URL (PKCE S256) → redirect with code → code exchange →
// calls as the seller; rotation with persistence; single-flight refresh under 100 concurrent calls;
// an expired access token answered 401 → one refresh, one replay; a spent refresh token → re-authorise.
import {
  ReauthorizationRequiredError,
  createClient,
  type LogEvent,
  type TokenSet,
  type Transport,
} from '../../src/index.ts';
import { createUndiciTransport } from '../../src/index.ts';
import { createOAuthClient, startShop, type SimShop } from '../helpers/sim.ts';

let shop: SimShop;
const transports: { close(): Promise<void> }[] = [];
beforeAll(async () => {
  shop = await startShop({ config: { accessTokenTtlSec: 3600 } });
});
afterAll(async () => {
  await Promise.all(transports.map((t) => t.close()));
  await shop.close();
});

const REDIRECT = 'https://crosslister.example/callback';

/** A transport that counts token-endpoint requests. */
function countingTransport(): Transport & { tokenRequests: number; close(): Promise<void> } {
  const inner = createUndiciTransport();
  const t = {
    tokenRequests: 0,
    send: (req: Parameters<Transport['send']>[0]) => {
      if (req.url.includes('/oauth2/access-token/')) t.tokenRequests++;
      return inner.send(req);
    },
    close: () => inner.close(),
  };
  return t;
}

async function connectSeller(scopes = ['shop_read', 'products_read', 'orders_read']) {
  const app = createOAuthClient(shop.sim.world, `partner-${Math.random().toString(36).slice(2)}`, [REDIRECT]);
  const transport = countingTransport();
  transports.push(transport);
  const events: LogEvent[] = [];
  const client = createClient({
    baseUrl: shop.sim.url,
    oauth: { clientId: app.clientId, clientSecret: app.clientSecret, redirectUri: REDIRECT },
    transport,
    logger: (e) => events.push(e),
  });
  const request = client.auth.createAuthorizationUrl({
    scopes,
    extraParams: { seller_id: String(shop.sellerId) },
  });
  const consent = await fetch(request.url, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const callback = client.auth.parseCallback(consent.headers.get('location')!, request.state);
  const tokens = await client.auth.exchangeCode({ code: callback.code, codeVerifier: request.codeVerifier });
  return { app, client, transport, events, tokens };
}

describe('OAuth against the simulator', () => {
  it('consent URL → code → exchange → calls as the seller', async () => {
    const { client, tokens } = await connectSeller();
    expect(tokens.accessToken).toMatch(/^pat_/);
    expect(tokens.refreshToken).toMatch(/^prt_/);
    expect(tokens.scopes).toEqual(['shop_read', 'products_read', 'orders_read']);
    const seller = client.forSeller({ tokens, sellerId: shop.sellerId });
    await expect(seller.shop.get()).resolves.toMatchObject({ id: shop.sellerId });
  });

  it('refresh rotates the pair; the new refresh token is persisted before the new access token is used', async () => {
    const { client, tokens, transport } = await connectSeller();
    const saved: TokenSet[] = [];
    const seller = client.forSeller({
      sellerId: shop.sellerId,
      tokens: { ...tokens, expiresAt: Date.now() - 1 },
      onTokens: async (t) => {
        await new Promise((r) => setTimeout(r, 20));
        saved.push(t);
      },
    });
    await expect(seller.shop.get()).resolves.toMatchObject({ id: shop.sellerId });
    expect(transport.tokenRequests).toBe(2); // exchange + one refresh
    expect(saved).toHaveLength(1);
    expect(saved[0]!.refreshToken).not.toBe(tokens.refreshToken);
    // The rotated-away refresh token no longer works.
    await expect(client.auth.refresh({ refreshToken: tokens.refreshToken })).rejects.toBeInstanceOf(
      ReauthorizationRequiredError,
    );
    // The persisted one does.
    await expect(client.auth.refresh({ refreshToken: saved[0]!.refreshToken })).resolves.toMatchObject({
      accessToken: expect.any(String),
    });
  });

  it('100 concurrent calls on an expired token: exactly one refresh request', async () => {
    const { client, tokens, transport, events } = await connectSeller();
    let persisted = 0;
    const seller = client.forSeller({
      sellerId: shop.sellerId,
      tokens: { ...tokens, expiresAt: Date.now() - 1 },
      onTokens: () => {
        persisted++;
      },
    });
    const before = transport.tokenRequests;
    const results = await Promise.all(Array.from({ length: 100 }, () => seller.shop.get()));
    expect(results.every((r) => r.id === shop.sellerId)).toBe(true);
    expect(transport.tokenRequests - before).toBe(1);
    expect(persisted).toBe(1);
    expect(events.filter((e) => e.type === 'token_refresh')).toHaveLength(1);
  });

  it('an access token the server considers expired (401) → one refresh and one replay, even for 100 callers', async () => {
    const { client, tokens, transport, events } = await connectSeller();
    // The client believes the token is valid; the server's clock says it expired.
    const seller = client.forSeller({ sellerId: shop.sellerId, tokens: { ...tokens, expiresAt: undefined } });
    // The simulator's clock moves past the token's lifetime (later tests issue fresh tokens).
    shop.sim.world.clock.advance(2 * 3600 * 1000);
    const before = transport.tokenRequests;
    const results = await Promise.all(Array.from({ length: 100 }, () => seller.shop.get()));
    expect(results.every((r) => r.id === shop.sellerId)).toBe(true);
    expect(transport.tokenRequests - before).toBe(1);
    const replays = events.filter((e) => e.type === 'retry' && e.reason === 'unauthorized');
    expect(replays).toHaveLength(100);
  });

  it('a refresh token that was already used → ReauthorizationRequiredError, and the provider stops trying', async () => {
    const { client, tokens, transport } = await connectSeller();
    await client.auth.refresh({ refreshToken: tokens.refreshToken });
    const seller = client.forSeller({
      sellerId: shop.sellerId,
      tokens: { ...tokens, expiresAt: Date.now() - 1 },
    });
    const before = transport.tokenRequests;
    await expect(seller.shop.get()).rejects.toBeInstanceOf(ReauthorizationRequiredError);
    await expect(seller.shop.get()).rejects.toBeInstanceOf(ReauthorizationRequiredError);
    expect(transport.tokenRequests - before).toBe(1);
  });
});
