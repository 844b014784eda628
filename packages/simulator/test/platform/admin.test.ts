// The admin surface: its own listener, out of reach of partner credentials; world set-up (partners,
// sellers, keys, addresses, OAuth clients, profiles, seeds), inspection, bans, clock, reset.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, DEMO, type RunningSimulator } from '../../src/index.ts';
import { adminCall, call, probeHandlers } from '../helpers.ts';
import { addProduct } from '../fixtures.ts';

const running: RunningSimulator[] = [];
afterAll(() => Promise.all(running.map((s) => s.close())));

async function start(options: Parameters<typeof startSimulator>[0] = {}) {
  const sim = await startSimulator({ handlers: probeHandlers, ...options });
  running.push(sim);
  return sim;
}

describe('isolation from partners', () => {
  test('the admin surface is not on the API port, and the API is not on the admin port', async () => {
    const sim = await start({ demo: true });
    expect(sim.adminUrl).not.toBe(sim.url);
    const onApi = await call(sim.url, 'GET', '/admin/state', undefined, { token: DEMO.apiKey });
    expect(onApi.status).toBe(404);
    expect(onApi.body.errors[0].code).toBe('generic_error');
    const reset = await call(sim.url, 'POST', '/admin/reset', {}, { token: DEMO.apiKey });
    expect(reset.status).toBe(404);
    expect(sim.world.sellers.has(DEMO.sellerId)).toBe(true);
    const apiOnAdmin = await call(sim.adminUrl, 'GET', '/api/v1/shop/', undefined, { token: DEMO.apiKey });
    expect(apiOnAdmin.status).toBe(404);
  });

  test('with an admin token, partner credentials (API key or OAuth token) are refused', async () => {
    const sim = await start({ demo: true, config: { adminToken: 'adm_secret' } });
    const withKey = await call(sim.adminUrl, 'GET', '/admin/state', undefined, { token: DEMO.apiKey });
    expect(withKey.status).toBe(401);
    const tokens = await adminCall(sim, 'POST', '/admin/oauth/tokens', {
      clientId: DEMO.oauth.clientId,
      sellerId: DEMO.sellerId,
    });
    expect(tokens.status).toBe(201);
    const withToken = await call(sim.adminUrl, 'GET', '/admin/state', undefined, {
      token: tokens.body.access_token,
    });
    expect(withToken.status).toBe(401);
    expect((await call(sim.adminUrl, 'GET', '/admin/state')).status).toBe(401);
    expect((await adminCall(sim, 'GET', '/admin/state')).status).toBe(200);
    // The token is never echoed by the config view.
    expect((await adminCall(sim, 'GET', '/admin/config')).text).not.toContain('adm_secret');
  });
});

describe('world set-up', () => {
  test('partners, sellers with keys, addresses and OAuth clients created through the admin surface work on the API', async () => {
    const sim = await start();
    expect((await adminCall(sim, 'POST', '/admin/partners', { id: 'acme' })).status).toBe(201);
    const seller = await adminCall(sim, 'POST', '/admin/sellers', {
      username: 'acme-shop',
      countryCode: 'US',
      partnerId: 'acme',
      apiKey: true,
    });
    expect(seller.status).toBe(201);
    expect(seller.body).toMatchObject({ username: 'acme-shop', countryCode: 'US', currency: 'USD' });
    expect(seller.body.apiKey).toMatch(/^pak_/);
    const me = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: seller.body.apiKey });
    expect(me.body).toMatchObject({ id: seller.body.id, username: 'acme-shop' });

    const key2 = await adminCall(sim, 'POST', '/admin/api-keys', {
      partnerId: 'acme',
      sellerId: seller.body.id,
      key: 'pak_custom_key',
    });
    expect(key2.status).toBe(201);
    expect((await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: 'pak_custom_key' })).status).toBe(
      200,
    );
    expect(
      (await adminCall(sim, 'POST', '/admin/api-keys', { partnerId: 'acme', sellerId: 424242 })).status,
    ).toBe(404);

    const address = await adminCall(sim, 'POST', `/admin/sellers/${seller.body.id}/addresses`, {
      city: 'Brooklyn',
      country: 'US',
      providers: ['USPS'],
    });
    expect(address.status).toBe(201);
    expect(sim.world.sellers.get(seller.body.id)!.addresses[0]).toMatchObject({
      city: 'Brooklyn',
      id: address.body.id,
    });
    expect(sim.world.sellers.get(seller.body.id)!.shippingProviders.get(address.body.id)).toEqual(['USPS']);

    const client = await adminCall(sim, 'POST', '/admin/oauth-clients', {
      partnerId: 'acme',
      redirectUris: ['http://127.0.0.1:9/cb'],
    });
    expect(client.status).toBe(201);
    expect(sim.world.oauthClients.get(client.body.clientId)!.partnerId).toBe('acme');
  });

  test('seller profiles and partner access denial', async () => {
    const sim = await start({ demo: true });
    const res = await adminCall(sim, 'PATCH', `/admin/sellers/${DEMO.sellerId}/profile`, {
      onboardingIncomplete: true,
      manualShippingAllowed: false,
      unsupportedCountry: true,
    });
    expect(res.status).toBe(200);
    expect(sim.world.sellers.get(DEMO.sellerId)!.profile).toEqual({
      onboardingIncomplete: true,
      manualShippingAllowed: false,
      unsupportedCountry: true,
    });
    expect(
      (await adminCall(sim, 'PATCH', `/admin/sellers/${DEMO.sellerId}/profile`, { bogus: 1 })).status,
    ).toBe(400);
    await adminCall(sim, 'PATCH', `/admin/partners/${DEMO.partnerId}`, { accessDenied: true });
    const denied = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: DEMO.apiKey });
    expect(denied.body.errors[0].code).toBe('partner_access_denied');
  });

  test('a product can be banned, keeping its previous state; state inspection is JSON', async () => {
    const sim = await start({ demo: true });
    const seller = sim.world.sellers.get(DEMO.sellerId)!;
    addProduct(sim.world, seller, { productId: 123, likes: [5, 6] });
    const ban = await adminCall(sim, 'POST', '/admin/products/123/ban');
    expect(ban.status).toBe(200);
    expect(ban.body).toEqual({ productId: 123, state: 'banned', previousState: 'selling' });
    expect(seller.products.get(123)!.state).toBe('banned');
    expect((await adminCall(sim, 'POST', '/admin/products/999/ban')).status).toBe(404);

    const product = await adminCall(sim, 'GET', '/admin/products/123');
    expect(product.body).toMatchObject({ productId: 123, state: 'banned', likes: [5, 6] });
    const full = await adminCall(sim, 'GET', `/admin/sellers/${DEMO.sellerId}`);
    expect(full.body.products['123'].sku).toBe('SKU-123');
    expect(full.body.apiKeys).toContain(DEMO.apiKey);
    const list = await adminCall(sim, 'GET', `/admin/sellers/${DEMO.sellerId}/products`);
    expect(list.body).toHaveLength(1 + (sim.demo?.listings.length ?? 0));
    for (const path of ['orders', 'offers']) {
      const res = await adminCall(sim, 'GET', `/admin/sellers/${DEMO.sellerId}/${path}`);
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
    }
    const state = await adminCall(sim, 'GET', '/admin/state');
    expect(state.body.sellers.map((s: { id: number }) => s.id)).toEqual([DEMO.sellerId, DEMO.usSellerId]);
  });

  test('an order for products is created through the domain and announced by webhook', async () => {
    const sim = await start({ demo: true });
    const seller = sim.world.sellers.get(DEMO.sellerId)!;
    addProduct(sim.world, seller, { productId: 321 });
    const res = await adminCall(sim, 'POST', '/admin/orders', { sellerId: DEMO.sellerId, productIds: [321] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ sellerId: DEMO.sellerId, status: 'SHIPPING_PENDING' });
    expect(res.body.lineItems[0]).toMatchObject({ product_id: 321 });
    expect(seller.orders.has(res.body.purchaseId)).toBe(true);
    expect(sim.webhooks.events.map((e) => e.eventType)).toContain('v1:order.new');
    const orders = await adminCall(sim, 'GET', `/admin/sellers/${DEMO.sellerId}/orders`);
    expect(orders.body.map((o: { purchaseId: string }) => o.purchaseId)).toContain(res.body.purchaseId);
    // The domain's own refusals come back in the envelope: the product is sold out now.
    const again = await adminCall(sim, 'POST', '/admin/orders', {
      sellerId: DEMO.sellerId,
      productIds: [321],
    });
    expect(again.status).toBe(422);
    expect(again.body.errors[0].code).toBe('product_not_on_sale');
    expect((await adminCall(sim, 'POST', '/admin/orders', { sellerId: 1, productIds: [321] })).status).toBe(
      404,
    );
  });

  test('the clock advances on demand', async () => {
    const sim = await start();
    const before = sim.world.clock.now();
    const res = await adminCall(sim, 'POST', '/admin/clock/advance', { seconds: 3600 });
    expect(res.status).toBe(200);
    expect(res.body.now).toBeGreaterThanOrEqual(before + 3_600_000);
    expect((await adminCall(sim, 'POST', '/admin/clock/advance', {})).status).toBe(400);
  });

  test('reset returns to the start-up world (or an empty one) and clears counters and faults', async () => {
    const sim = await start({ demo: true });
    await adminCall(sim, 'POST', '/admin/sellers', { username: 'extra' });
    await adminCall(sim, 'POST', '/admin/faults', { type: 'error_500', operationId: 'status.get' });
    await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: DEMO.apiKey });
    expect(sim.world.sellers.size).toBe(3);
    const reset = await adminCall(sim, 'POST', '/admin/reset', {});
    expect(reset.status).toBe(200);
    expect([...sim.world.sellers.keys()]).toEqual([DEMO.sellerId, DEMO.usSellerId]);
    expect((await call(sim.url, 'GET', '/status')).status).toBe(200);
    expect((await adminCall(sim, 'GET', '/admin/counters')).body.rateLimits).toEqual({});
    expect((await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: DEMO.apiKey })).status).toBe(200);

    await adminCall(sim, 'POST', '/admin/reset', { empty: true });
    expect(sim.world.sellers.size).toBe(0);
    expect((await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: DEMO.apiKey })).status).toBe(401);
  });
});

describe('seed documents', () => {
  const doc = {
    partners: [{ id: 'p1', webhookSecret: 'whsec_p1' }],
    sellers: [
      {
        id: 2001,
        username: 'seeded',
        countryCode: 'GB',
        profile: { manualShippingAllowed: false },
        addresses: [{ id: 801, city: 'Leeds', providers: ['EVRI'] }],
      },
    ],
    apiKeys: [{ key: 'pak_seeded', partnerId: 'p1', sellerId: 2001 }],
    oauthClients: [
      {
        clientId: 'client_p1',
        clientSecret: 'secret_p1',
        partnerId: 'p1',
        redirectUris: ['http://127.0.0.1:9/cb'],
      },
    ],
    webhooks: [{ partnerId: 'p1', url: 'http://127.0.0.1:9/hooks', eventTypes: ['v1:order.new'] }],
  };

  test('--seed file: sellers, keys, profiles, addresses, clients and webhooks are loaded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sim-seed-'));
    const file = join(dir, 'seed.json');
    await writeFile(file, JSON.stringify(doc));
    const sim = await start({ seed: file });
    const seller = sim.world.sellers.get(2001)!;
    expect(seller.profile.manualShippingAllowed).toBe(false);
    expect(seller.addresses[0]).toMatchObject({ id: 801, city: 'Leeds', country: 'GB' });
    expect(sim.world.partners.get('p1')!.webhookSecret).toBe('whsec_p1');
    expect(sim.world.oauthClients.get('client_p1')!.clientSecret).toBe('secret_p1');
    expect([...sim.world.webhooks.values()][0]).toMatchObject({
      partnerId: 'p1',
      eventTypes: ['v1:order.new'],
    });
    const me = await call(sim.url, 'GET', '/api/v1/shop/', undefined, { token: 'pak_seeded' });
    expect(me.body).toMatchObject({ id: 2001, username: 'seeded' });
  });

  test('an invalid seed is refused with every problem listed', async () => {
    await expect(start({ seed: { sellers: [{ id: 'x' }], bogus: true } as never })).rejects.toThrow(
      /sellers\.0\.id/,
    );
    const sim = await start();
    const res = await adminCall(sim, 'POST', '/admin/seed', {
      apiKeys: [{ key: 'has space', partnerId: 'p' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/apiKeys\.0\.key/);
    expect(res.body.errors[0].message).toMatch(/apiKeys\.0\.sellerId/);
    const ok = await adminCall(sim, 'POST', '/admin/seed', doc);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ sellers: [2001], apiKeys: 1, oauthClients: 1, webhooks: 1 });
    expect((await adminCall(sim, 'POST', '/admin/seed', doc)).status).toBe(409);
  });
});

test('GET /status answers {"status":"OK"} without credentials', async () => {
  const sim = await start();
  const res = await call(sim.url, 'GET', '/status');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'OK' });
});

test('demo assets are served as live PNG pictures', async () => {
  const sim = await start({ demo: true });
  const res = await fetch(`${sim.url}/demo-assets/tee-black.png`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('image/png');
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
  expect(bytes.readUInt32BE(16)).toBe(480); // IHDR width
  expect(bytes[25]).toBe(2); // colour type 2: RGB, no alpha
  expect((await call(sim.url, 'GET', '/demo-assets/nope.png')).status).toBe(404);
});
