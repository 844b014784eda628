// Webhooks end to end: a subscription made through the client, a delivery signed by the simulator,
// verified and parsed by the client on the raw bytes received.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NotFoundError, WebhookVerificationError, isKnownWebhookEvent } from '../../src/index.ts';
import { startShop, type SimShop } from '../helpers/sim.ts';

interface Delivery {
  body: string;
  headers: http.IncomingHttpHeaders;
}

let shop: SimShop;
let receiver: http.Server;
let receiverUrl = '';
const deliveries: Delivery[] = [];
const SECRET = 'whsec_client_test_0123456789';

beforeAll(async () => {
  shop = await startShop();
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  await shop.admin('PATCH', '/admin/partners/partner-client-test', { webhookSecret: SECRET });
});
afterAll(async () => {
  await shop.close();
  await new Promise<void>((r) => receiver.close(() => r()));
});

async function waitFor<T>(check: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('webhook deliveries from the simulator', () => {
  it('verifies and parses a signed delivery; rejects it with another secret or a changed body', async () => {
    const client = shop.clientWith({ webhookSecret: SECRET });
    const sub = await client.webhooks.create({ url: receiverUrl, event_types: ['v1:product.like'] });
    const data = {
      seller_id: shop.sellerId,
      product_id: 7000123,
      sku: 'SKU-LIKE',
      slug: 'tee-7000123',
      liker_id: 4321,
    };
    const emitted = await shop.admin('POST', '/admin/events', {
      sellerId: shop.sellerId,
      eventType: 'v1:product.like',
      data,
    });
    expect(emitted.status).toBe(202);
    const delivery = await waitFor(() => deliveries[0], 'the delivery');

    const event = client.webhooks.construct(delivery.body, delivery.headers);
    expect(isKnownWebhookEvent(event)).toBe(true);
    if (!isKnownWebhookEvent(event) || event.event_type !== 'v1:product.like')
      throw new Error('not a like event');
    expect(event.data).toMatchObject({ slug: 'tee-7000123', liker_id: 4321, product_id: 7000123 });

    expect(() => client.webhooks.verify(delivery.body, delivery.headers, 'whsec_other_secret')).toThrow(
      WebhookVerificationError,
    );
    const tampered = delivery.body.replace('4321', '4322');
    expect(() => client.webhooks.verify(tampered, delivery.headers)).toThrow(/signature/);
    await client.webhooks.delete(sub.id);
  });
});

describe('webhooks.delete is idempotent (operation table)', () => {
  it('a repeated delete succeeds like the first; an id that never existed is a NotFoundError', async () => {
    const client = shop.clientWith({});
    const sub = await client.webhooks.create({ url: `${receiverUrl}/twice` });
    await expect(client.webhooks.delete(sub.id)).resolves.toBeUndefined();
    await expect(client.webhooks.delete(sub.id)).resolves.toBeUndefined();
    expect((await client.webhooks.list()).map((w) => w.id)).not.toContain(sub.id);
    await expect(client.webhooks.delete('wh_never_existed')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a delete whose answer was lost after it committed is retried and succeeds', async () => {
    const client = shop.clientWith({ retry: { maxRetries: 3, baseDelayMs: 20, maxDelayMs: 200 } });
    const sub = await client.webhooks.create({ url: `${receiverUrl}/lost-answer` });
    shop.fault({ type: 'timeout_after_commit', operationId: 'webhooks.delete', count: 1 });
    const before = shop.events.length;
    await expect(client.webhooks.delete(sub.id)).resolves.toBeUndefined();
    const attempts = shop.events
      .slice(before)
      .filter((e) => e.type === 'request' && e.operationId === 'webhooks.delete');
    expect(attempts).toHaveLength(2); // the 504 that committed, then the retry answered 200
    expect((await client.webhooks.list()).map((w) => w.id)).not.toContain(sub.id);
  });
});
