// Webhook delivery: envelope, HMAC signature over `<timestamp>.<raw body>`, subscriptions per
// partner and event type, retries with backoff on a failing receiver, the delivery log, and that a
// slow or dead receiver never holds up the API.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookEvent } from '@selling-kit/api-client/core';
import { createOAuthClient, createSeller, type RunningSimulator } from '../../src/index.ts';
import type { Handlers } from '../../src/handlers/types.ts';
import { adminCall, call, startTestShop, type TestShop } from '../helpers.ts';

interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
}

/** A receiver answering with the next status of `script` (then `fallback`), or hanging when it is 0. */
async function receiver(script: number[] = [], fallback = 200) {
  const received: Received[] = [];
  const hanging: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      const status = script.length ? script.shift()! : fallback;
      if (status === 0) hanging.push(() => res.writeHead(200).end());
      else res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    release: () => hanging.splice(0).forEach((f) => f()),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const handlers: Handlers = {
  // A like, as the staging like/ endpoint would emit it.
  'products.simulateLikeBySku': ({ seller, params, events }) => {
    events.emit(seller.id, 'v1:product.like', {
      seller_id: seller.id,
      product_id: 7001,
      sku: params.sku,
      slug: `item-${params.sku}`,
      liker_id: 42,
    });
    return {};
  },
};

let shop: TestShop;
let sim: RunningSimulator;
const receivers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  shop = await startTestShop({
    handlers,
    config: { timeScale: 10, webhookRetryBaseDelayMs: 500, webhookTimeoutMs: 2000 },
  });
  sim = shop.sim;
});
afterAll(async () => {
  await sim.close();
  await Promise.all(receivers.map((r) => r.close()));
});
beforeEach(async () => {
  sim.world.webhooks.clear();
  sim.webhooks.reset();
});

async function subscribe(url: string, partnerId = 'partner-test', eventTypes?: string[]) {
  const res = await adminCall(sim, 'POST', '/admin/webhooks', { partnerId, url, eventTypes });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

const like = (sku = 'SKU-1') => shop.call('POST', `/api/v1/products/by-sku/${sku}/like/`);

test('a delivery carries the envelope and a signature verifiable with HMAC-SHA256 over "<ts>.<raw body>"', async () => {
  const r = await receiver();
  receivers.push(r);
  await adminCall(sim, 'PATCH', '/admin/partners/partner-test', { webhookSecret: 'whsec_test_secret' });
  await subscribe(r.url);
  expect((await like('SKU-1')).status).toBe(200);
  await sim.webhooks.idle();

  expect(r.received).toHaveLength(1);
  const { headers, raw } = r.received[0]!;
  const ts = headers['x-depop-timestamp'] as string;
  const sig = headers['x-depop-signature'] as string;
  expect(ts).toMatch(/^\d{10}$/);
  expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(300);
  const expected = createHmac('sha256', 'whsec_test_secret').update(`${ts}.${raw}`).digest('hex');
  expect(sig).toMatch(/^[0-9a-f]{64}$/);
  expect(timingSafeEqual(Buffer.from(sig, 'hex'), Buffer.from(expected, 'hex'))).toBe(true);
  // A tampered body does not verify.
  const tampered = createHmac('sha256', 'whsec_test_secret').update(`${ts}.${raw} `).digest('hex');
  expect(tampered).not.toBe(sig);

  const event = WebhookEvent.parse(JSON.parse(raw));
  expect(event).toMatchObject({
    event_type: 'v1:product.like',
    data: { seller_id: shop.seller.id, sku: 'SKU-1', slug: 'item-SKU-1', liker_id: 42 },
  });
  expect(new Date(event.created_at).toISOString()).toBe(event.created_at);
  expect(headers['content-type']).toBe('application/json');

  const log = (await adminCall(sim, 'GET', '/admin/webhooks/deliveries')).body;
  expect(log).toHaveLength(1);
  expect(log[0]).toMatchObject({ state: 'delivered', eventId: event.id, eventType: 'v1:product.like' });
  expect(log[0].attempts).toHaveLength(1);
});

test('a failing receiver is retried with backoff until it answers 2xx', async () => {
  const r = await receiver([500, 503]);
  receivers.push(r);
  await subscribe(r.url);
  await like();
  await sim.webhooks.idle();
  expect(r.received).toHaveLength(3);
  // The same event (same id and body) every time; each attempt signed with its own timestamp.
  const bodies = new Set(r.received.map((x) => x.raw));
  expect(bodies.size).toBe(1);
  const [delivery] = (await adminCall(sim, 'GET', '/admin/webhooks/deliveries')).body;
  expect(delivery.state).toBe('delivered');
  expect(delivery.attempts.map((a: { status: number }) => a.status)).toEqual([500, 503, 200]);
  const counters = (await adminCall(sim, 'GET', '/admin/counters')).body.webhooks;
  expect(counters).toMatchObject({ deliveries: 1, delivered: 1, failed: 0, attempts: 3 });
});

test('after webhookMaxAttempts failures the delivery is given up; an unreachable URL never crashes', async () => {
  const r = await receiver([], 500);
  receivers.push(r);
  await subscribe(r.url);
  await subscribe('http://127.0.0.1:1/unreachable');
  await like();
  await sim.webhooks.idle();
  expect(r.received).toHaveLength(sim.config.webhookMaxAttempts);
  const log = (await adminCall(sim, 'GET', '/admin/webhooks/deliveries?state=failed')).body;
  expect(log).toHaveLength(2);
  const unreachable = log.find((d: { url: string }) => d.url.includes(':1/'));
  expect(unreachable.attempts[0].error).toBeTruthy();
  expect((await shop.call('GET', '/status')).status).toBe(200);
});

test('subscriptions filter by event type and by partner', async () => {
  const orders = await receiver();
  const mine = await receiver();
  const theirs = await receiver();
  receivers.push(orders, mine, theirs);
  await subscribe(orders.url, 'partner-test', ['v1:order.new']);
  await subscribe(mine.url, 'partner-test', ['v1:product.like', 'v1:product.unlike']);
  await subscribe(theirs.url, 'someone-else');
  await like();
  await sim.webhooks.idle();
  expect(orders.received).toHaveLength(0);
  expect(mine.received).toHaveLength(1);
  expect(theirs.received).toHaveLength(0);
});

test('a cross-lister connected by OAuth receives its sellers’ events', async () => {
  const r = await receiver();
  receivers.push(r);
  const client = createOAuthClient(sim.world, 'crosslister', ['http://127.0.0.1:9/cb']);
  const seller = createSeller(sim.world, { username: 'connected' });
  const tokens = (
    await adminCall(sim, 'POST', '/admin/oauth/tokens', { clientId: client.clientId, sellerId: seller.id })
  ).body;
  await subscribe(r.url, 'crosslister');
  const res = await call(sim.url, 'POST', '/api/v1/products/by-sku/X/like/', undefined, {
    token: tokens.access_token,
  });
  expect(res.status).toBe(200);
  await like(); // the API-key shop's event: not this partner's seller
  await sim.webhooks.idle();
  expect(r.received).toHaveLength(1);
  expect(JSON.parse(r.received[0]!.raw).data.seller_id).toBe(seller.id);
});

test('a hanging receiver does not hold up the API; the attempt times out and is retried', async () => {
  await adminCall(sim, 'PATCH', '/admin/config', { webhookTimeoutMs: 300 });
  const r = await receiver([0, 0], 200);
  receivers.push(r);
  await subscribe(r.url);
  const res = await like();
  expect(res.status).toBe(200);
  // The request has been answered while its delivery is still pending at the receiver.
  const pending = (await adminCall(sim, 'GET', '/admin/webhooks/deliveries?state=pending')).body;
  expect(pending).toHaveLength(1);
  await sim.webhooks.idle();
  r.release();
  await adminCall(sim, 'PATCH', '/admin/config', { webhookTimeoutMs: 2000 });
  const [delivery] = (await adminCall(sim, 'GET', '/admin/webhooks/deliveries')).body;
  expect(delivery.state).toBe('delivered');
  expect(delivery.attempts.map((a: { error?: string; status?: number }) => a.error ?? a.status)).toEqual([
    'timeout',
    'timeout',
    200,
  ]);
});

test('POST /admin/events emits an event for a seller as a handler would', async () => {
  const r = await receiver();
  receivers.push(r);
  await subscribe(r.url, 'partner-test', ['v1:order.refund']);
  const res = await adminCall(sim, 'POST', '/admin/events', {
    sellerId: shop.seller.id,
    eventType: 'v1:order.refund',
    data: { purchase_id: 'p-1', refunded_by: 'PARTNER' },
  });
  expect(res.status).toBe(202);
  expect(res.body.deliveries).toHaveLength(1);
  await sim.webhooks.idle();
  expect(JSON.parse(r.received[0]!.raw)).toMatchObject({
    id: res.body.eventId,
    event_type: 'v1:order.refund',
  });
});
