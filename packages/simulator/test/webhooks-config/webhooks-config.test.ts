import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  WEBHOOK_EVENT_TYPES,
  WebhookEvent,
  WebhookSubscription,
  WebhookSubscriptionList,
} from '@selling-kit/api-client/core';
import { createApiKey, createSeller } from '../../src/world.ts';
import { signWebhook } from '../../src/index.ts';
import { MAX_WEBHOOKS_PER_PARTNER } from '../../src/handlers/webhooks.ts';
import { expectError, expectSchema, newOrder, oauthToken, otherShop, testShopPerFile } from '../fixtures.ts';

const shop = testShopPerFile({}, ({ sim }) => sim.world.webhooks.clear());

const PATH = '/api/v1/webhooks/';
const create = (body: unknown, token?: string) => shop.call('POST', PATH, body, token ? { token } : {});
const list = async (token?: string) => {
  const res = await shop.call('GET', PATH, undefined, token ? { token } : {});
  expect(res.status).toBe(200);
  return expectSchema(WebhookSubscriptionList, res.body).data;
};

describe('webhook configuration: /api/v1/webhooks/', () => {
  test('create → 200 WebhookSubscription with every event type by default; list shows it', async () => {
    const res = await create({ url: 'https://partner.example.test/hooks' });
    expect(res.status).toBe(200);
    const sub = expectSchema(WebhookSubscription, res.body);
    expect(sub.id).toMatch(/^wh_/);
    expect(sub.url).toBe('https://partner.example.test/hooks');
    expect(sub.event_types).toEqual(WEBHOOK_EVENT_TYPES);
    expect(Number.isNaN(Date.parse(sub.created_at))).toBe(false);
    expect(await list()).toEqual([sub]);
    expect(shop.sim.world.webhooks.get(sub.id)?.partnerId).toBe('partner-test');
  });

  test('chosen event types are kept (duplicates dropped)', async () => {
    const res = await create({
      url: 'http://127.0.0.1:9/orders',
      event_types: ['v1:order.new', 'v1:order.refund', 'v1:order.new'],
    });
    expect(res.body.event_types).toEqual(['v1:order.new', 'v1:order.refund']);
  });

  test('an unknown event type, an empty list, a missing or malformed url → 422 validation naming the field; a wrong type → 400', async () => {
    expect(
      expectError(
        await create({ url: 'https://a.example.test/', event_types: ['v1:order.shipped'] }),
        422,
        'validation',
      ),
    ).toContain('event_types');
    expect(
      expectError(await create({ url: 'https://a.example.test/', event_types: [] }), 422, 'validation'),
    ).toContain('event_types');
    expect(expectError(await create({}), 422, 'validation')).toMatch(/url.*required/);
    expect(expectError(await create({ url: 'not a url' }), 422, 'validation')).toContain('url');
    expect(expectError(await create({ url: 42 }), 400, 'bad-request')).toContain('url');
    expect(await list()).toEqual([]);
  });

  test('a URL that is not http(s) → 422 validation', async () => {
    for (const url of ['ftp://files.example.test/hook', 'mailto:ops@example.test']) {
      expect(expectError(await create({ url }), 422, 'validation')).toContain('http or https');
    }
  });

  test('the same URL twice → 409 generic_error naming the existing subscription', async () => {
    const first = await create({ url: 'https://dup.example.test/' });
    const msg = expectError(await create({ url: 'https://dup.example.test/' }), 409, 'generic_error');
    expect(msg).toContain(first.body.id);
  });

  test(`at most ${MAX_WEBHOOKS_PER_PARTNER} subscriptions per partner → 422 validation beyond`, async () => {
    for (let i = 0; i < MAX_WEBHOOKS_PER_PARTNER; i++)
      expect((await create({ url: `https://many.example.test/${i}` })).status).toBe(200);
    expectError(await create({ url: 'https://many.example.test/one-more' }), 422, 'validation');
  });

  test('delete → empty 200 and gone; deleting again is the same 200 (idempotent, as the operation table says)', async () => {
    const sub = (await create({ url: 'https://gone.example.test/' })).body;
    const del = await shop.call('DELETE', `${PATH}${sub.id}/`);
    expect(del.status).toBe(200);
    expect(del.text).toBe('');
    expect(await list()).toEqual([]);
    const again = await shop.call('DELETE', `${PATH}${sub.id}/`);
    expect([again.status, again.text]).toEqual([200, '']);
    // An id that never existed is still unknown.
    expectError(await shop.call('DELETE', `${PATH}wh_never/`), 404, 'generic_error');
  });

  test('partners are isolated: another partner neither sees nor deletes a subscription', async () => {
    const mine = (await create({ url: 'https://mine.example.test/' })).body;
    const other = otherShop(shop, 'partner-other');
    expect(await list(other.apiKey)).toEqual([]);
    expectError(
      await shop.call('DELETE', `${PATH}${mine.id}/`, undefined, { token: other.apiKey }),
      404,
      'generic_error',
    );
    // …nor, once it is deleted, learns that it existed.
    expect((await shop.call('DELETE', `${PATH}${mine.id}/`)).status).toBe(200);
    expectError(
      await shop.call('DELETE', `${PATH}${mine.id}/`, undefined, { token: other.apiKey }),
      404,
      'generic_error',
    );
    const mine2 = (await create({ url: 'https://mine.example.test/' })).body;
    const theirs = (await create({ url: 'https://mine.example.test/' }, other.apiKey)).body; // same URL, other partner: fine
    expect((await list()).map((s) => s.id)).toEqual([mine2.id]);
    expect((await list(other.apiKey)).map((s) => s.id)).toEqual([theirs.id]);
  });

  test('subscriptions belong to the partner, not the shop: its other shops and OAuth apps see them', async () => {
    const sub = (await create({ url: 'https://shared.example.test/' })).body;
    const second = createSeller(shop.sim.world);
    const { key } = createApiKey(shop.sim.world, 'partner-test', second.id);
    expect((await list(key)).map((s) => s.id)).toEqual([sub.id]);
    const token = oauthToken(shop, ['shop_read'], 'partner-test');
    expect((await list(token)).map((s) => s.id)).toEqual([sub.id]);
    const foreignToken = oauthToken(shop, ['shop_read'], 'partner-cross-lister');
    expect(await list(foreignToken)).toEqual([]);
  });

  test('a subscription receives the signed v1:order.new of its partner’s shop', async () => {
    const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const sub = await create({ url: `http://127.0.0.1:${port}/hook`, event_types: ['v1:order.new'] });
      expect(sub.status).toBe(200);
      const order = newOrder(shop);
      await shop.call('POST', `/api/v1/orders/${order.purchaseId}/refund/`, { items_refund_amount: '1.00' }); // not subscribed
      await shop.sim.webhooks.idle();
      expect(received).toHaveLength(1);
      const event = expectSchema(WebhookEvent, JSON.parse(received[0]!.body));
      expect(event.event_type).toBe('v1:order.new');
      expect(event.data).toMatchObject({ purchase_id: order.purchaseId, seller_id: shop.seller.id });
      const secret = shop.sim.world.partners.get('partner-test')!.webhookSecret!;
      const ts = received[0]!.headers['x-depop-timestamp'] as string;
      expect(received[0]!.headers['x-depop-signature']).toBe(signWebhook(secret, ts, received[0]!.body));
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
