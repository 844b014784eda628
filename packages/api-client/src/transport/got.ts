// The Node transport, over got: keep-alive agents, a time limit per attempt, AbortSignal, no got-level
// retries, redirects or status errors (the client runtime owns those). Node-only: never imported by
// the n8n-safe code under core/ and client/.
import http from 'node:http';
import https from 'node:https';
import got, { RequestError, TimeoutError, type Got, type Method } from 'got';
import { RequestAbortedError, TransportError } from '../core/errors.ts';
import type { Transport, TransportRequest, TransportResponse } from '../core/transport.ts';
import { NOT_SENT_CODES } from './not-sent.ts';

export interface GotTransportOptions {
  /** Sockets per host kept open between calls. Default 64. */
  maxSockets?: number;
  /** Idle socket lifetime, ms. Default 30 000. */
  keepAliveMsecs?: number;
  /** Your own agents (proxies, custom TLS). */
  agent?: { http?: http.Agent; https?: https.Agent };
  /** Default per-attempt time limit when the request carries none, ms. Default 30 000. */
  timeoutMs?: number;
  /** A preconfigured got instance (hooks, TLS options); retries/redirects/throwing are still turned off. */
  got?: Got;
}

export function createGotTransport(options: GotTransportOptions = {}): Transport & { close(): void } {
  const agentOptions = {
    keepAlive: true,
    keepAliveMsecs: options.keepAliveMsecs ?? 30_000,
    maxSockets: options.maxSockets ?? 64,
  };
  const agent = {
    http: options.agent?.http ?? new http.Agent(agentOptions),
    https: options.agent?.https ?? new https.Agent(agentOptions),
  };
  const instance = (options.got ?? got).extend({
    agent,
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    decompress: true,
    responseType: 'text',
  });
  const defaultTimeout = options.timeoutMs ?? 30_000;

  return {
    async send(req: TransportRequest): Promise<TransportResponse> {
      if (req.signal?.aborted) throw new RequestAbortedError(undefined, req.signal.reason);
      try {
        const res = await instance(req.url, {
          method: req.method as Method,
          headers: req.headers,
          body: req.body,
          signal: req.signal,
          timeout: { request: req.timeoutMs ?? defaultTimeout },
        });
        return { status: res.statusCode, headers: res.headers, body: res.body };
      } catch (e) {
        throw toTransportError(e, req.signal);
      }
    },
    close() {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}

function toTransportError(e: unknown, signal: AbortSignal | undefined): TransportError {
  if (signal?.aborted) return new RequestAbortedError(undefined, e);
  if (e instanceof TimeoutError) {
    const beforeConnect = e.event === 'lookup' || e.event === 'connect' || e.timings?.connect === undefined;
    return new TransportError({
      kind: 'timeout',
      message: `no answer within the time limit (${e.event})`,
      requestSent: !beforeConnect,
      code: 'timeout',
      cause: e,
    });
  }
  if (e instanceof RequestError) {
    const code = e.code ?? 'network';
    return new TransportError({
      kind: 'network',
      message: `network error ${code}: ${e.message}`,
      requestSent: !NOT_SENT_CODES.has(code),
      code: 'network',
      cause: e,
    });
  }
  if (e instanceof Error && e.name === 'AbortError') return new RequestAbortedError(undefined, e);
  return new TransportError({
    kind: 'network',
    message: e instanceof Error ? e.message : String(e),
    cause: e,
  });
}
