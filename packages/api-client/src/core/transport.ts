// The seam between the client runtime and the network. The Node entry plugs in undici (got on request); n8n plugs in
// `httpRequestWithAuthentication` (returnFullResponse); tests plug in scripted fakes. A transport sends
// exactly one attempt: no retries, no redirects, no status-based throwing.
import type { HttpMethod } from './operations.ts';

export interface TransportRequest {
  method: HttpMethod;
  /** Absolute URL, query string included. */
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Serialised body (JSON or form), when there is one. */
  body?: string;
  signal?: AbortSignal;
  /** Time limit for this one attempt, in milliseconds. */
  timeoutMs?: number;
}

export interface TransportResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** The raw body text ('' when empty). */
  body: string;
}

/**
 * Sends one attempt. Resolves for every HTTP status; rejects only with a `TransportError`
 * (kind `timeout`, `network` or `aborted`) when no answer came back.
 */
export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
}

/** Waits `ms` milliseconds; rejects (with a RequestAbortedError) when `signal` fires. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
