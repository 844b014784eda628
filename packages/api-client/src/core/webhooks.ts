// Webhook signatures and events (public reference §7): `X-Depop-Signature` is the hex HMAC-SHA256,
// keyed with the partner's signing secret, of `<X-Depop-Timestamp>.<raw body>`; the timestamp is Unix
// seconds. Verify on the exact bytes received: re-serialised JSON does not match. n8n-safe
// (`node:crypto` is on n8n's allow-list).
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WebhookEvent,
} from './schemas/webhooks.ts';

export type WebhookHeaders =
  Record<string, string | string[] | undefined> | { get(name: string): string | null };

export type WebhookVerificationFailure =
  | 'missing_signature'
  | 'missing_timestamp'
  | 'malformed_timestamp'
  | 'timestamp_outside_tolerance'
  | 'signature_mismatch'
  | 'missing_secret';

export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationFailure;
  constructor(reason: WebhookVerificationFailure, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** The event could not be read (not JSON, or a known event type with a malformed payload). */
export class WebhookPayloadError extends Error {
  readonly issues: string[];
  constructor(message: string, issues: string[] = []) {
    super(message);
    this.name = 'WebhookPayloadError';
    this.issues = issues;
  }
}

export interface VerifyWebhookOptions {
  /** Largest accepted age (or clock skew) of the timestamp, in seconds. Default 300; 0 disables the check. */
  toleranceSec?: number;
  /** Current time in ms (default `Date.now()`). */
  now?: number;
}

export const DEFAULT_WEBHOOK_TOLERANCE_SEC = 300;

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name];
  if (value === undefined) {
    const lower = name.toLowerCase();
    const key = Object.keys(record).find((k) => k.toLowerCase() === lower);
    value = key === undefined ? undefined : record[key];
  }
  return Array.isArray(value) ? value[0] : value;
}

function bodyBytes(rawBody: string | Uint8Array): Uint8Array {
  return typeof rawBody === 'string' ? new TextEncoder().encode(rawBody) : rawBody;
}

function hmac(secret: string, timestamp: string, rawBody: string | Uint8Array): Uint8Array {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(bodyBytes(rawBody)).digest();
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** 64 hex characters → 32 bytes; anything else → undefined. */
function sha256FromHex(text: string): Uint8Array | undefined {
  if (!/^[0-9a-fA-F]{64}$/.test(text)) return undefined;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** The signature header value for a body (for tests and for the simulator's deliveries). */
export function signWebhook(
  rawBody: string | Uint8Array,
  secret: string,
  timestamp: number | string,
): string {
  return hex(hmac(secret, String(timestamp), rawBody));
}

/** Both headers for a body, e.g. to send a signed test delivery. */
export function webhookHeaders(
  rawBody: string | Uint8Array,
  secret: string,
  timestampSec: number = Math.floor(Date.now() / 1000),
): Record<string, string> {
  return {
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestampSec),
    [WEBHOOK_SIGNATURE_HEADER]: signWebhook(rawBody, secret, timestampSec),
  };
}

/**
 * Checks the signature (constant time) and the timestamp's age. Returns the timestamp (Unix seconds);
 * throws a WebhookVerificationError naming the reason otherwise.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): { timestamp: number } {
  if (!secret) throw new WebhookVerificationError('missing_secret', 'no webhook signing secret configured');
  const signature = readHeader(headers, WEBHOOK_SIGNATURE_HEADER)?.trim();
  if (!signature)
    throw new WebhookVerificationError('missing_signature', `missing ${WEBHOOK_SIGNATURE_HEADER}`);
  const timestampText = readHeader(headers, WEBHOOK_TIMESTAMP_HEADER)?.trim();
  if (!timestampText) {
    throw new WebhookVerificationError('missing_timestamp', `missing ${WEBHOOK_TIMESTAMP_HEADER}`);
  }
  if (!/^\d{1,12}$/.test(timestampText)) {
    throw new WebhookVerificationError(
      'malformed_timestamp',
      `${WEBHOOK_TIMESTAMP_HEADER} is not Unix seconds`,
    );
  }
  const timestamp = Number(timestampText);
  const tolerance = options.toleranceSec ?? DEFAULT_WEBHOOK_TOLERANCE_SEC;
  if (tolerance > 0) {
    const nowSec = (options.now ?? Date.now()) / 1000;
    if (Math.abs(nowSec - timestamp) > tolerance) {
      throw new WebhookVerificationError(
        'timestamp_outside_tolerance',
        `timestamp is more than ${tolerance} s away from now (replay protection)`,
      );
    }
  }
  const expected = hmac(secret, timestampText, rawBody);
  const given = sha256FromHex(signature);
  if (!given || !timingSafeEqual(given, expected)) {
    throw new WebhookVerificationError('signature_mismatch', 'signature does not match the body');
  }
  return { timestamp };
}

/** An event whose type this version of the kit does not know: passed through untouched. */
export interface UnknownWebhookEvent {
  id: string;
  event_type: string;
  created_at: string;
  data: Record<string, unknown>;
  [key: string]: unknown;
}

export type ParsedWebhookEvent = WebhookEvent | UnknownWebhookEvent;

const KNOWN_TYPES: ReadonlySet<string> = new Set<string>(WEBHOOK_EVENT_TYPES);

export function isKnownWebhookEvent(event: ParsedWebhookEvent): event is WebhookEvent {
  return KNOWN_TYPES.has(event.event_type);
}

/**
 * Reads an event body into the typed union (lenient: unknown fields are kept). Unknown event types
 * pass through as `UnknownWebhookEvent`; narrow with `isKnownWebhookEvent()` before switching on
 * `event_type`.
 */
export function parseWebhookEvent(raw: string | Uint8Array | object): ParsedWebhookEvent {
  let value: unknown = raw;
  if (typeof raw === 'string' || raw instanceof Uint8Array) {
    const text = typeof raw === 'string' ? raw : new TextDecoder().decode(raw);
    try {
      value = JSON.parse(text);
    } catch {
      throw new WebhookPayloadError('webhook body is not JSON');
    }
  }
  const v = value as Record<string, unknown> | null;
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof v.id !== 'string' ||
    typeof v.event_type !== 'string' ||
    typeof v.data !== 'object' ||
    v.data === null
  ) {
    throw new WebhookPayloadError(
      'webhook body is not an event envelope { id, event_type, created_at, data }',
    );
  }
  if (!KNOWN_TYPES.has(v.event_type)) return v as UnknownWebhookEvent;
  const parsed = WebhookEvent.safeParse(v);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`);
    throw new WebhookPayloadError(`malformed ${v.event_type} event: ${issues[0]}`, issues);
  }
  return parsed.data;
}

/** verifyWebhook + parseWebhookEvent in one step (the usual receiver). */
export function constructWebhookEvent(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): ParsedWebhookEvent {
  verifyWebhook(rawBody, headers, secret, options);
  return parseWebhookEvent(rawBody);
}
