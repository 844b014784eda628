// Retry decisions of the request pipeline, per the spec's status table, over a scripted transport.
import fc from 'fast-check';
import {
  BadRequestError,
  ConflictError,
  InsufficientScopeError,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitedError,
  RequestAbortedError,
  ServerError,
  TransportError,
  ValidationError,
  backoffCeiling,
  backoffDelay,
  DEFAULT_RETRY,
  type RetryEvent,
} from '../src/client/index.ts';
import { CREATE_BODY, PRODUCT, envelope, json, scriptedClient } from './helpers/scripted.ts';

const SHOP = { id: 1, username: 'shop', country_code: 'GB' };
const retries = (events: { type: string }[]) => events.filter((e): e is RetryEvent => e.type === 'retry');

describe('backoff with full jitter', () => {
  it('stays within [0, min(cap, base·2^n)) for any random value and attempt', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 100_000 }),
        (retry, r, baseDelayMs, extra) => {
          const options = { baseDelayMs, maxDelayMs: baseDelayMs + extra };
          const delay = backoffDelay(retry, options, () => r);
          const ceiling = Math.min(options.maxDelayMs, baseDelayMs * 2 ** retry);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(Math.max(1, ceiling));
          expect(backoffCeiling(retry, options)).toBe(ceiling);
        },
      ),
    );
  });

  it('grows exponentially up to the cap', () => {
    const o = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffCeiling(n, o))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(backoffDelay(3, o, () => 0)).toBe(0);
    expect(backoffDelay(3, o, () => 0.999999)).toBe(799);
  });

  it('spreads the waits of retrying callers (jitter is drawn per retry)', async () => {
    let i = 0;
    const values = [0.1, 0.9, 0.4];
    const t = scriptedClient(
      [
        envelope(500, 'generic_error'),
        envelope(500, 'generic_error'),
        envelope(500, 'generic_error'),
        json(200, SHOP),
      ],
      {
        random: () => values[i++ % values.length]!,
      },
    );
    await t.client.shop.get();
    expect(t.clock.sleeps).toEqual([
      Math.floor(0.1 * DEFAULT_RETRY.baseDelayMs),
      Math.floor(0.9 * DEFAULT_RETRY.baseDelayMs * 2),
      Math.floor(0.4 * DEFAULT_RETRY.baseDelayMs * 4),
    ]);
  });
});

describe('retry decisions', () => {
  it('retries a 500 with backoff and then succeeds', async () => {
    const t = scriptedClient([envelope(500, 'generic_error'), json(200, SHOP)]);
    await expect(t.client.shop.get()).resolves.toEqual(SHOP);
    expect(t.transport.requests).toHaveLength(2);
    const [r] = retries(t.events);
    expect(r).toMatchObject({
      reason: 'server_error',
      status: 500,
      attempt: 1,
      errorId: 'err-generic_error',
    });
    expect(r!.delayMs).toBeLessThan(DEFAULT_RETRY.baseDelayMs);
  });

  it('gives up after maxRetries with the last ServerError and its attempt count', async () => {
    const t = scriptedClient([], { retry: { maxRetries: 2 } }, envelope(502, 'unexpected_response'));
    const err = await t.client.shop.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status: 502, code: 'unexpected_response', attempts: 3, retryable: true });
    expect(t.transport.requests).toHaveLength(3);
  });

  it('retries 500 even for non-idempotent calls (the spec says so)', async () => {
    const t = scriptedClient([envelope(500, 'generic_error'), json(200, undefined)]);
    await t.client.refunds.create('P1', { items_refund_amount: '5.00' });
    expect(t.transport.requests).toHaveLength(2);
  });

  it.each([
    [400, 'bad-request', BadRequestError],
    [403, 'insufficient_scope', InsufficientScopeError],
    [404, 'product_not_found', NotFoundError],
    [409, 'product_has_active_offers', ConflictError],
    [414, 'generic_error', BadRequestError],
    [422, 'invalid_brand', ValidationError],
  ])('never retries %i %s', async (status, code, cls) => {
    const t = scriptedClient([envelope(status, code)], {}, json(200, PRODUCT));
    await expect(t.client.products.getBySku('SKU-1')).rejects.toBeInstanceOf(cls);
    expect(t.transport.requests).toHaveLength(1);
    expect(retries(t.events)).toHaveLength(0);
  });

  it('waits the gateway body’s exact retry_after_ms on 429, then continues', async () => {
    const t = scriptedClient([
      json(
        429,
        { message: 'slow down', code: 'too_many_requests', group: 'general', retry_after_ms: 1234 },
        { 'retry-after': '2' },
      ),
      json(200, SHOP),
    ]);
    await t.client.shop.get();
    expect(t.clock.sleeps).toContain(1234);
    expect(retries(t.events)[0]).toMatchObject({ reason: 'rate_limited', delayMs: 1234 });
  });

  it('falls back to the Retry-After header (seconds) and to the envelope format', async () => {
    const t = scriptedClient([
      { ...envelope(429, 'too_many_requests', 'Rate limit exceeded'), headers: { 'retry-after': '3' } },
      json(200, SHOP),
    ]);
    await t.client.shop.get();
    expect(t.clock.sleeps).toContain(3000);
  });

  it('retries 429 for non-idempotent calls too (not processed), then surfaces RateLimitedError', async () => {
    const tooMany = json(429, {
      message: 'x',
      code: 'too_many_requests',
      group: 'create_update',
      retry_after_ms: 10,
    });
    const t = scriptedClient([], { retry: { maxRateLimitRetries: 2 } }, tooMany);
    const err = await t.client.products.create(CREATE_BODY).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ retryAfterMs: 10, group: 'create_update', attempts: 3 });
  });

  it('fails at once when Retry-After exceeds maxRetryAfterMs', async () => {
    const t = scriptedClient([
      json(429, { message: 'x', code: 'too_many_requests', group: 'general', retry_after_ms: 120_000 }),
    ]);
    const err = await t.client.shop.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(t.transport.requests).toHaveLength(1);
  });

  it('retries a 504 of an idempotent call (PUT by SKU, GET)', async () => {
    const t = scriptedClient([
      envelope(504, 'generic_error'),
      json(200, { product_id: 1, slug: 's', sku: 'SKU-1' }),
    ]);
    const { sku, ...put } = CREATE_BODY;
    await expect(t.client.products.updateBySku(sku, { ...put, attributes: {} })).resolves.toMatchObject({
      product_id: 1,
    });
    expect(t.transport.requests.map((r) => r.method)).toEqual(['PUT', 'PUT']);
  });

  it('turns a 504 of a non-idempotent call into OutcomeUnknownError without repeating it', async () => {
    const t = scriptedClient([envelope(504, 'generic_error', 'timed out', 'gw-1')], {}, json(200, undefined));
    const err = await t.client.refunds.create('P1', { items_refund_amount: '5.00' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({
      status: 504,
      errorId: 'gw-1',
      operationId: 'refunds.create',
      retryable: false,
    });
    expect(t.transport.requests).toHaveLength(1);
  });

  it('a create with verification off: a 504 is OutcomeUnknownError with no lookup by SKU', async () => {
    const t = scriptedClient([envelope(504, 'generic_error', 'timed out', 'gw-2')], {}, json(200, PRODUCT));
    const err = await t.client.products.create(CREATE_BODY, { verify: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ status: 504, operationId: 'products.create' });
    expect(t.transport.requests.map((r) => r.method)).toEqual(['POST']);
  });

  it('treats a timeout after sending a non-idempotent call as outcome unknown', async () => {
    const timeout = new TransportError({ kind: 'timeout', message: 'no answer', requestSent: true });
    const t = scriptedClient([timeout], {}, json(200, undefined));
    const err = await t.client.offers
      .submitBySku('SKU-1', { offer_recipient_id: 5, offer_value: 10, offer_currency: 'GBP' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as Error).cause).toBe(timeout);
    expect(t.transport.requests).toHaveLength(1);
  });

  it('repeats a non-idempotent call when the request never left (connection refused)', async () => {
    const refused = new TransportError({ kind: 'network', message: 'ECONNREFUSED', requestSent: false });
    const t = scriptedClient([refused, json(200, undefined)]);
    await t.client.refunds.create('P1', { items_refund_amount: '5.00' });
    expect(t.transport.requests).toHaveLength(2);
    expect(retries(t.events)[0]).toMatchObject({ reason: 'network' });
  });

  it('retries network failures of idempotent calls', async () => {
    const reset = new TransportError({ kind: 'network', message: 'ECONNRESET', requestSent: true });
    const t = scriptedClient([reset, reset, json(200, SHOP)]);
    await expect(t.client.shop.get()).resolves.toEqual(SHOP);
    expect(t.transport.requests).toHaveLength(3);
  });

  it('stops on abort without retrying', async () => {
    const controller = new AbortController();
    const t = scriptedClient(
      [
        () => {
          controller.abort();
          return envelope(500, 'generic_error');
        },
      ],
      {},
      json(200, SHOP),
    );
    await expect(t.client.shop.get({ signal: controller.signal })).rejects.toBeInstanceOf(
      RequestAbortedError,
    );
    expect(t.transport.requests).toHaveLength(1);
  });

  it('respects the total time limit across retries', async () => {
    const t = scriptedClient(
      [],
      { totalTimeoutMs: 1000, retry: { baseDelayMs: 400, maxRetries: 10 }, random: () => 0.99 },
      envelope(500, 'generic_error'),
    );
    const err = await t.client.shop.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(t.transport.requests.length).toBeLessThan(4);
    expect(t.clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThan(1000);
  });

  it('passes the per-attempt time limit to the transport', async () => {
    const t = scriptedClient([json(200, SHOP)], { timeoutMs: 1234 });
    await t.client.shop.get();
    expect(t.transport.requests[0]!.timeoutMs).toBe(1234);
    t.transport.push(json(200, SHOP));
    await t.client.shop.get({ timeoutMs: 50 });
    expect(t.transport.requests[1]!.timeoutMs).toBe(50);
  });
});

describe('404 right after a create (the spec: a new listing may need a short delay to be readable)', () => {
  const created = { product_id: 7000001, slug: 'vintage-tee-7000001', sku: 'SKU-1' };

  it('re-tries product_not_found for the keys of a listing created moments ago', async () => {
    const t = scriptedClient(
      [
        json(200, created),
        envelope(404, 'product_not_found'),
        envelope(404, 'product_not_found'),
        json(200, PRODUCT),
      ],
      { verifyCreate: { delaysMs: [0, 100, 200, 400] } },
    );
    await t.client.products.create(CREATE_BODY);
    await expect(t.client.products.getBySlug(created.slug)).resolves.toMatchObject({
      product_id: created.product_id,
    });
    expect(t.clock.sleeps).toEqual([100, 200]);
    expect(retries(t.events).map((r) => r.reason)).toEqual([
      'not_found_after_create',
      'not_found_after_create',
    ]);
  });

  it('does not re-try a 404 for other keys, or once the window has passed', async () => {
    const t = scriptedClient(
      [json(200, created), envelope(404, 'product_not_found'), envelope(404, 'product_not_found')],
      {
        verifyCreate: { delaysMs: [0, 100], readAfterCreateWindowMs: 5000 },
      },
    );
    await t.client.products.create(CREATE_BODY);
    await expect(t.client.products.getBySku('OTHER')).rejects.toBeInstanceOf(NotFoundError);
    t.clock.advance(5001);
    await expect(t.client.products.getBySku('SKU-1')).rejects.toBeInstanceOf(NotFoundError);
    expect(t.transport.requests).toHaveLength(3);
  });
});

describe('products.create after a 504 or a timeout', () => {
  const created = { product_id: 7000001, slug: 'vintage-tee-7000001', sku: 'SKU-1' };

  it('returns the listing found by SKU instead of creating it twice', async () => {
    const t = scriptedClient(
      [
        envelope(504, 'generic_error'),
        envelope(404, 'product_not_found'),
        envelope(404, 'product_not_found'),
        json(200, PRODUCT),
      ],
      { verifyCreate: { delaysMs: [0, 100, 200, 400] } },
    );
    await expect(t.client.products.create(CREATE_BODY)).resolves.toEqual(created);
    expect(t.transport.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'GET', 'GET']);
    expect(t.transport.requests[1]!.url).toBe('https://api.test/api/v1/products/by-sku/SKU-1/');
    expect(t.events.find((e) => e.type === 'verify')).toMatchObject({ outcome: 'found', checks: 3 });
  });

  it('re-creates only after every check confirms the listing absent', async () => {
    const t = scriptedClient(
      [
        new TransportError({ kind: 'timeout', message: 'no answer', requestSent: true }),
        envelope(404, 'product_not_found'),
        envelope(404, 'product_not_found'),
        json(200, created),
      ],
      { verifyCreate: { delaysMs: [0, 300] } },
    );
    await expect(t.client.products.create(CREATE_BODY)).resolves.toEqual(created);
    expect(t.transport.requests.map((r) => r.method)).toEqual(['POST', 'GET', 'GET', 'POST']);
    expect(t.clock.sleeps).toContain(300);
    expect(retries(t.events).map((r) => r.reason)).toEqual(['verified_absent']);
  });

  it('returns the listing when the re-create reports the SKU as taken', async () => {
    const t = scriptedClient(
      [
        envelope(504, 'generic_error'),
        envelope(404, 'product_not_found'),
        envelope(422, 'validation', 'sku already used'),
        json(200, PRODUCT),
      ],
      { verifyCreate: { delaysMs: [0] } },
    );
    await expect(t.client.products.create(CREATE_BODY)).resolves.toEqual(created);
  });

  it('cannot verify without a SKU: OutcomeUnknownError', async () => {
    const { sku: _sku, ...noSku } = CREATE_BODY;
    const t = scriptedClient([envelope(504, 'generic_error')], {}, json(200, created));
    await expect(t.client.products.create(noSku)).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(t.transport.requests).toHaveLength(1);
  });

  it('cannot confirm when the verification itself fails: OutcomeUnknownError', async () => {
    const t = scriptedClient(
      [envelope(504, 'generic_error'), envelope(403, 'insufficient_scope', 'missing products_read')],
      {
        verifyCreate: { delaysMs: [0] },
      },
    );
    await expect(t.client.products.create(CREATE_BODY)).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(t.transport.requests.map((r) => r.method)).toEqual(['POST', 'GET']);
  });
});
