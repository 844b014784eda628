// Webhook verification (HMAC-SHA256 over `<timestamp>.<raw body>`, constant time, replay window) and
// typed event parsing, with property-based tests on the verifier.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import {
  WebhookPayloadError,
  WebhookVerificationError,
  constructWebhookEvent,
  isKnownWebhookEvent,
  parseWebhookEvent,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
} from '../src/core/index.ts';
import { scriptedClient } from './helpers/scripted.ts';

const NOW = 1_800_000_000_000;
const nowSec = NOW / 1000;
const headersFor = (body: string, secret: string, ts = nowSec) => ({
  'X-Depop-Timestamp': String(ts),
  'X-Depop-Signature': signWebhook(body, secret, ts),
});
const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof WebhookVerificationError ? e.reason : `other: ${String(e)}`;
  }
  return 'passed';
};

const likeEvent = {
  id: 'evt_1',
  event_type: 'v1:product.like',
  created_at: '2026-05-01T10:00:00Z',
  data: { seller_id: 1, product_id: 7, sku: 'SKU-1', slug: 'tee-7', liker_id: 99, extra_field: 'kept' },
};

describe('signWebhook / verifyWebhook', () => {
  it('signs as the public reference says: hex HMAC-SHA256 of "<timestamp>.<raw body>"', () => {
    const expected = createHmac('sha256', 'whsec_x').update('1700000000.{"a":1}').digest('hex');
    expect(signWebhook('{"a":1}', 'whsec_x', 1700000000)).toBe(expected);
    expect(webhookHeaders('{"a":1}', 'whsec_x', 1700000000)).toEqual({
      'x-depop-timestamp': '1700000000',
      'x-depop-signature': expected,
    });
  });

  it('accepts any body signed with the secret, as string or bytes (property)', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ minLength: 1 }),
        fc.integer({ min: -300, max: 300 }),
        (body, secret, skew) => {
          const ts = nowSec + skew;
          const headers = headersFor(body, secret, ts);
          expect(verifyWebhook(body, headers, secret, { now: NOW })).toEqual({ timestamp: ts });
          expect(verifyWebhook(new TextEncoder().encode(body), headers, secret, { now: NOW })).toEqual({
            timestamp: ts,
          });
        },
      ),
    );
  });

  it('rejects any change to the body, the secret or the signature (property)', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        (body, other, secret, otherSecret) => {
          fc.pre(body !== other && secret !== otherSecret);
          const headers = headersFor(body, secret);
          expect(reason(() => verifyWebhook(other, headers, secret, { now: NOW }))).toBe(
            'signature_mismatch',
          );
          expect(reason(() => verifyWebhook(body, headers, otherSecret, { now: NOW }))).toBe(
            'signature_mismatch',
          );
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.string(),
        fc.integer({ min: 0, max: 63 }),
        fc.constantFrom(...'0123456789abcdef'),
        (body, i, ch) => {
          const headers = headersFor(body, 's3cret');
          const sig = headers['X-Depop-Signature'];
          fc.pre(sig[i] !== ch);
          const tampered = { ...headers, 'X-Depop-Signature': sig.slice(0, i) + ch + sig.slice(i + 1) };
          expect(reason(() => verifyWebhook(body, tampered, 's3cret', { now: NOW }))).toBe(
            'signature_mismatch',
          );
        },
      ),
    );
  });

  it('rejects timestamps outside the tolerance (replay window, property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 3600 }),
        (offset, past, tol) => {
          const ts = past ? nowSec - tol - offset : nowSec + tol + offset;
          const body = '{"x":1}';
          expect(
            reason(() =>
              verifyWebhook(body, headersFor(body, 'k', ts), 'k', { now: NOW, toleranceSec: tol }),
            ),
          ).toBe('timestamp_outside_tolerance');
        },
      ),
    );
  });

  it('names what is missing or malformed', () => {
    const body = '{}';
    const h = headersFor(body, 'k');
    expect(
      reason(() => verifyWebhook(body, { 'x-depop-timestamp': h['X-Depop-Timestamp'] }, 'k', { now: NOW })),
    ).toBe('missing_signature');
    expect(
      reason(() => verifyWebhook(body, { 'x-depop-signature': h['X-Depop-Signature'] }, 'k', { now: NOW })),
    ).toBe('missing_timestamp');
    expect(reason(() => verifyWebhook(body, { ...h, 'X-Depop-Timestamp': '12:00' }, 'k', { now: NOW }))).toBe(
      'malformed_timestamp',
    );
    expect(
      reason(() => verifyWebhook(body, { ...h, 'X-Depop-Signature': 'not-hex' }, 'k', { now: NOW })),
    ).toBe('signature_mismatch');
    expect(reason(() => verifyWebhook(body, h, '', { now: NOW }))).toBe('missing_secret');
    // Headers objects (fetch / undici) work too.
    expect(verifyWebhook(body, new Headers(h), 'k', { now: NOW }).timestamp).toBe(nowSec);
  });
});

describe('parseWebhookEvent', () => {
  it('reads each known event into the typed union, keeping unknown fields', () => {
    const event = parseWebhookEvent(JSON.stringify(likeEvent));
    expect(isKnownWebhookEvent(event)).toBe(true);
    if (!isKnownWebhookEvent(event) || event.event_type !== 'v1:product.like') throw new Error('narrowing');
    expect(event.data.slug).toBe('tee-7');
    expect(event.data.liker_id).toBe(99);
    expect((event.data as Record<string, unknown>).extra_field).toBe('kept');
    const refund = parseWebhookEvent({
      id: 'e2',
      event_type: 'v1:order.refund',
      created_at: '2026-05-01T10:00:00Z',
      data: { purchase_id: 'P1', refunded_by: 'PARTNER' },
    });
    expect(refund.event_type).toBe('v1:order.refund');
  });

  it('passes unknown event types through untouched', () => {
    const e = parseWebhookEvent({ id: 'e3', event_type: 'v2:shop.renamed', created_at: 'x', data: { a: 1 } });
    expect(isKnownWebhookEvent(e)).toBe(false);
    expect(e.data).toEqual({ a: 1 });
  });

  it('rejects bodies that are not events, and malformed known events', () => {
    expect(() => parseWebhookEvent('not json')).toThrow(WebhookPayloadError);
    expect(() => parseWebhookEvent({ hello: 1 })).toThrow(WebhookPayloadError);
    expect(() => parseWebhookEvent({ ...likeEvent, data: { slug: 5 } })).toThrow(/product\.like/);
  });

  it('verifies and parses in one step (also through client.webhooks)', () => {
    const body = JSON.stringify(likeEvent);
    expect(constructWebhookEvent(body, headersFor(body, 'k'), 'k', { now: NOW }).id).toBe('evt_1');
    const { client, clock } = scriptedClient([], { webhookSecret: 'whsec_client_secret' });
    const ts = Math.floor(clock.time / 1000);
    const sig = client.webhooks.sign(body, ts);
    const event = client.webhooks.construct(body, {
      'x-depop-timestamp': String(ts),
      'x-depop-signature': sig,
    });
    expect(event.event_type).toBe('v1:product.like');
    expect(() =>
      client.webhooks.verify(body, { 'x-depop-timestamp': String(ts), 'x-depop-signature': sig }, 'wrong'),
    ).toThrow(WebhookVerificationError);
  });
});
