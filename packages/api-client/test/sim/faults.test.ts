// Retries under each of the simulator's fault modes, jitter bounds on the real pipeline, and no
// duplicate listing after a create whose 504 or reset came after the commit.
import {
  OutcomeUnknownError,
  TransportError,
  backoffCeiling,
  type RetryEvent,
  type VerifyEvent,
} from '../../src/index.ts';
import type { FaultType } from '@selling-kit/simulator';
import { listing, shopPerFile, startShop } from '../helpers/sim.ts';

const shop = shopPerFile();

const retryOptions = { maxRetries: 3, baseDelayMs: 20, maxDelayMs: 200 };
const retriesOf = (requestId: string) =>
  shop.events.filter((e): e is RetryEvent => e.type === 'retry' && e.requestId === requestId);
const lastRequestId = () =>
  (shop.events.filter((e) => e.type === 'request').at(-1) as { requestId: string }).requestId;

async function productsWithSku(sku: string): Promise<number> {
  const res = await shop.admin('GET', `/admin/sellers/${shop.sellerId}/products`);
  const list = res.body as { sku: string | null; state?: string }[];
  return list.filter((p) => p.sku === sku).length;
}

/** Creates a listing while one `type` fault hits products.create; the body sent and the answer. */
async function createUnderFault(type: FaultType) {
  const body = listing();
  shop.fault({ type, operationId: 'products.create', count: 1 });
  const res = await shop.clientWith({ retry: retryOptions }).products.create(body);
  return { body, res };
}

describe('retry under each fault mode', () => {
  it('error_500: backs off with full jitter (within the ceiling) and succeeds', async () => {
    shop.fault({ type: 'error_500', operationId: 'shop.get', count: 3 });
    const client = shop.clientWith({ retry: retryOptions });
    await expect(client.shop.get()).resolves.toMatchObject({ id: shop.sellerId });
    const retries = retriesOf(lastRequestId());
    expect(retries.map((r) => r.reason)).toEqual(['server_error', 'server_error', 'server_error']);
    retries.forEach((r, n) => {
      expect(r.delayMs).toBeGreaterThanOrEqual(0);
      expect(r.delayMs).toBeLessThan(backoffCeiling(n, retryOptions));
      expect(r.errorId).toEqual(expect.any(String));
    });
  });

  it('timeout_before_commit (504) on a read: retried', async () => {
    shop.fault({ type: 'timeout_before_commit', operationId: 'shop.get', count: 1 });
    await expect(shop.clientWith({ retry: retryOptions }).shop.get()).resolves.toMatchObject({
      id: shop.sellerId,
    });
    expect(retriesOf(lastRequestId()).map((r) => r.reason)).toEqual(['gateway_timeout']);
  });

  it('reset_before_commit on a read: retried as a network failure', async () => {
    shop.fault({ type: 'reset_before_commit', operationId: 'shop.get', count: 2 });
    await expect(shop.clientWith({ retry: retryOptions }).shop.get()).resolves.toMatchObject({
      id: shop.sellerId,
    });
    expect(retriesOf(lastRequestId()).map((r) => r.reason)).toEqual(['network', 'network']);
  });

  it('latency beyond the per-attempt limit: the attempt times out and is retried', async () => {
    // The limit leaves a plain answer plenty of room on a loaded machine; only the delayed one exceeds it.
    shop.fault({ type: 'latency', operationId: 'shop.get', count: 1, latencyMs: 4000 });
    const client = shop.clientWith({ retry: retryOptions, timeoutMs: 1500 });
    await expect(client.shop.get()).resolves.toMatchObject({ id: shop.sellerId });
    const transportErrors = shop.events.filter(
      (e) => e.type === 'transport_error' && e.requestId === lastRequestId(),
    );
    expect(transportErrors).toMatchObject([{ kind: 'timeout' }]);
  });

  it('rate_limit_storm: waits Retry-After, then continues', async () => {
    shop.fault({ type: 'rate_limit_storm', operationId: 'shop.get', count: 2, retryAfterMs: 80 });
    await expect(shop.clientWith({}).shop.get()).resolves.toMatchObject({ id: shop.sellerId });
    const retries = retriesOf(lastRequestId());
    expect(retries.map((r) => [r.reason, r.delayMs])).toEqual([
      ['rate_limited', 80],
      ['rate_limited', 80],
    ]);
  });

  it('reset_before_commit on a refund: outcome unknown, not repeated', async () => {
    const { product_id } = await shop.client.products.create(listing());
    await shop.admin('POST', '/admin/orders', { sellerId: shop.sellerId, productIds: [product_id] });
    const [order] = await shop.client.orders.list({ limit: 1 }).toArray();
    shop.fault({ type: 'reset_before_commit', operationId: 'refunds.create', count: 1 });
    const err = await shop.client.refunds
      .create(order!.purchase_id, { items_refund_amount: '1.00' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as Error).cause).toBeInstanceOf(TransportError);
    expect(shop.events.filter((e) => e.type === 'request' && e.requestId === lastRequestId())).toHaveLength(
      1,
    );
  });
});

describe('products.create: no duplicate after a 504 or reset that committed', () => {
  it('timeout_after_commit: verified by SKU, one listing, its keys returned', async () => {
    const { body, res } = await createUnderFault('timeout_after_commit');
    expect(res).toMatchObject({ sku: body.sku, product_id: expect.any(Number), slug: expect.any(String) });
    expect(await productsWithSku(body.sku!)).toBe(1);
    const verify = shop.events.find(
      (e): e is VerifyEvent => e.type === 'verify' && e.requestId === lastCreateId(),
    );
    expect(verify?.outcome).toBe('found');
    expect((await shop.client.products.getBySku(body.sku!)).product_id).toBe(res.product_id);
  });

  it('reset_after_commit: verified by SKU, one listing', async () => {
    const { body, res } = await createUnderFault('reset_after_commit');
    expect(res.sku).toBe(body.sku);
    expect(await productsWithSku(body.sku!)).toBe(1);
  });

  it('timeout_before_commit: confirmed absent, re-created once', async () => {
    const { body, res } = await createUnderFault('timeout_before_commit');
    expect(res.sku).toBe(body.sku);
    expect(await productsWithSku(body.sku!)).toBe(1);
    const reasons = shop.events
      .filter((e): e is RetryEvent => e.type === 'retry' && e.requestId === lastCreateId())
      .map((r) => r.reason);
    expect(reasons).toEqual(['verified_absent']);
  });

  it('a 504 on a create without SKU → OutcomeUnknownError, nothing repeated', async () => {
    const { sku: _sku, ...noSku } = listing();
    shop.fault({ type: 'timeout_after_commit', operationId: 'products.create', count: 1 });
    await expect(shop.clientWith({ retry: retryOptions }).products.create(noSku)).rejects.toBeInstanceOf(
      OutcomeUnknownError,
    );
  });

  it('reads a listing right after creating it, across the read-after-create delay', async () => {
    const delayed = await startShop({ config: { readAfterCreateDelayMs: 300 } });
    try {
      const client = delayed.clientWith({ verifyCreate: { delaysMs: [0, 100, 200, 400, 800] } });
      const { sku, product_id } = await client.products.create(listing());
      await expect(client.products.getBySku(sku!)).resolves.toMatchObject({ product_id });
      const reasons = delayed.events.filter((e): e is RetryEvent => e.type === 'retry').map((r) => r.reason);
      expect(reasons.length).toBeGreaterThan(0);
      expect(new Set(reasons)).toEqual(new Set(['not_found_after_create']));
    } finally {
      await delayed.close();
    }
  });

  it('re-checks across the read-after-create delay before deciding', async () => {
    const delayed = await startShop({ config: { readAfterCreateDelayMs: 300 } });
    try {
      const body = listing();
      delayed.fault({ type: 'timeout_after_commit', operationId: 'products.create', count: 1 });
      const client = delayed.clientWith({
        retry: retryOptions,
        verifyCreate: { delaysMs: [0, 100, 200, 400, 800] },
      });
      const res = await client.products.create(body);
      expect(res.sku).toBe(body.sku);
      const all = (await delayed.admin('GET', `/admin/sellers/${delayed.sellerId}/products`)).body as {
        sku: string;
      }[];
      expect(all.filter((p) => p.sku === body.sku)).toHaveLength(1);
      const verify = delayed.events.find((e): e is VerifyEvent => e.type === 'verify');
      expect(verify).toMatchObject({ outcome: 'found' });
      expect(verify!.checks).toBeGreaterThan(1);
    } finally {
      await delayed.close();
    }
  });
});

describe('webhooks.create after a 504 that committed', () => {
  it('finds the subscription by URL instead of failing or subscribing twice', async () => {
    shop.fault({ type: 'timeout_after_commit', operationId: 'webhooks.create', count: 1 });
    const url = `https://hooks.example.com/${Date.now()}`;
    const sub = await shop.clientWith({ retry: retryOptions }).webhooks.create({ url });
    expect(sub.url).toBe(url);
    expect((await shop.client.webhooks.list()).filter((w) => w.url === url)).toHaveLength(1);
    await shop.client.webhooks.delete(sub.id);
  });
});

function lastCreateId(): string {
  const requests = shop.events.filter((e) => e.type === 'request' && e.operationId === 'products.create');
  return (requests.at(-1) as { requestId: string }).requestId;
}
