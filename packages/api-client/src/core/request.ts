// Request building and answer reading, shared by every transport: URL + query encoding, header
// lookup, lenient JSON parsing and the gateway's Retry-After. Transport-free and n8n-safe.
import { OPERATIONS, buildPath, type HttpMethod, type Operation } from './operations.ts';
import type { TransportResponse } from './transport.ts';

export const PRODUCTION_BASE_URL = 'https://partnerapi.depop.com';
export const STAGING_BASE_URL = 'https://partnerapi-staging.depop.com';
/** The client's id for each logical request (every attempt carries it): for tracing, and how the
 * simulator's contract recorder tells the client's requests from a test's raw ones. */
export const REQUEST_ID_HEADER = 'x-request-id';

export type QueryValue = string | number | boolean | Date | null | undefined;

/** `{ limit: 10, state: 'sold', cursor: undefined }` → `?limit=10&state=sold` (undefined/null skipped). */
export function encodeQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(name, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Base URL without its trailing slash + the filled path template + the query string. */
export function buildUrl(
  baseUrl: string,
  pathTemplate: string,
  pathParams?: Record<string, string | number>,
  query?: Record<string, QueryValue>,
): string {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  return base + buildPath(pathTemplate, pathParams) + encodeQuery(query);
}

/** Case-insensitive header lookup; the first value of a repeated header. */
export function headerValue(headers: TransportResponse['headers'], name: string): string | undefined {
  const lower = name.toLowerCase();
  let value = headers[lower];
  if (value === undefined) {
    for (const [k, v] of Object.entries(headers)) {
      if (k.toLowerCase() === lower) {
        value = v;
        break;
      }
    }
  }
  return Array.isArray(value) ? value[0] : value;
}

/** JSON when the text is JSON, the text itself otherwise, undefined when empty. */
export function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * How long a 429 asks to wait, in ms: the gateway body's exact `retry_after_ms` when present, else the
 * Retry-After header (delta-seconds or an HTTP date), else undefined.
 */
export function parseRetryAfter(
  headers: TransportResponse['headers'],
  body: unknown,
  now: number,
): number | undefined {
  if (typeof body === 'object' && body !== null) {
    const ms = (body as Record<string, unknown>).retry_after_ms;
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return ms;
  }
  const header = headerValue(headers, 'retry-after')?.trim();
  if (!header) return undefined;
  if (/^\d+(\.\d+)?$/.test(header)) return Math.round(Number(header) * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const TEMPLATE_MATCHERS: { op: Operation; re: RegExp }[] = OPERATIONS.map((op) => ({
  op,
  re: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, '[^/]+')}$`),
}));

/** The operation a method + concrete path belongs to (for the escape-hatch `request()`). */
export function matchOperation(method: HttpMethod, path: string): Operation | undefined {
  const bare = path.split('?')[0]!;
  return TEMPLATE_MATCHERS.find((m) => m.op.method === method && m.re.test(bare))?.op;
}
