// The default Node transport, over undici (the HTTP engine inside Node's own fetch): a keep-alive
// connection pool, one time limit per attempt (a single timer aborting the request), the caller's
// AbortSignal, no redirects. Chosen over got as the default because got's own per-call work costs
// about as much as the whole round trip to a local server (see bench/overhead.bench.ts); got stays
// available in ./got.ts. Node-only: never imported by the n8n-safe code under core/ and client/.
import { Agent, request, type Dispatcher } from 'undici';
import { RequestAbortedError, TransportError } from '../core/errors.ts';
import type { Transport, TransportRequest, TransportResponse } from '../core/transport.ts';
import { NOT_SENT_CODES } from './not-sent.ts';

export interface UndiciTransportOptions {
  /** Connections per origin kept open. Default 64. */
  connections?: number;
  /** Idle connection lifetime, ms. Default 30 000. */
  keepAliveTimeoutMs?: number;
  /** Time limit of the TCP/TLS connect, ms. Default 10 000. */
  connectTimeoutMs?: number;
  /** Default per-attempt time limit when the request carries none, ms. Default 30 000. */
  timeoutMs?: number;
  /** Your own dispatcher (proxy agent, mock agent, custom TLS). */
  dispatcher?: Dispatcher;
}

const TIMED_OUT = Symbol('timed out');

export function createUndiciTransport(
  options: UndiciTransportOptions = {},
): Transport & { close(): Promise<void> } {
  const ownDispatcher = options.dispatcher
    ? undefined
    : new Agent({
        connections: options.connections ?? 64,
        keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
        connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      });
  const dispatcher = options.dispatcher ?? ownDispatcher!;
  const defaultTimeout = options.timeoutMs ?? 30_000;
  let closed = false;

  return {
    async send(req: TransportRequest): Promise<TransportResponse> {
      const outer = req.signal;
      if (outer?.aborted) throw new RequestAbortedError(undefined, outer.reason);
      const controller = new AbortController();
      const timeoutMs = req.timeoutMs ?? defaultTimeout;
      const timer = setTimeout(() => controller.abort(TIMED_OUT), timeoutMs);
      const onAbort = () => controller.abort(outer!.reason);
      outer?.addEventListener('abort', onAbort, { once: true });
      try {
        const res = await request(req.url, {
          method: req.method,
          headers: req.headers,
          body: req.body,
          signal: controller.signal,
          dispatcher,
          // The single timer above is the attempt's limit; undici's own phase timers stay out of the way.
          headersTimeout: 0,
          bodyTimeout: 0,
        });
        const body = await res.body.text();
        return { status: res.statusCode, headers: res.headers, body };
      } catch (e) {
        if (controller.signal.aborted && controller.signal.reason === TIMED_OUT) {
          throw new TransportError({
            kind: 'timeout',
            message: `no answer within ${timeoutMs} ms`,
            requestSent: true,
            cause: e,
          });
        }
        if (outer?.aborted) throw new RequestAbortedError(undefined, e);
        throw networkError(e);
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener('abort', onAbort);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await ownDispatcher?.close();
    },
  };
}

function networkError(e: unknown): TransportError {
  const err = e as { code?: string; cause?: { code?: string }; message?: string };
  const code = err?.code ?? err?.cause?.code ?? 'network';
  return new TransportError({
    kind: code === 'UND_ERR_CONNECT_TIMEOUT' ? 'timeout' : 'network',
    message: `network error ${code}${err?.message ? `: ${err.message}` : ''}`,
    requestSent: !NOT_SENT_CODES.has(code),
    code: 'network',
    cause: e,
  });
}
