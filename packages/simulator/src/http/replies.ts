// How a failure leaves the simulator, in the service's wire formats: the error envelope
// (`{ id, errors: [{ code, message }] }`), the token endpoint's OAuth format, the gateway's 429 body, a
// dropped connection (a fault), and answers written on a raw socket Node took away from the router.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { GRANT_ENDPOINT_PATH, type RateLimitBody } from '@selling-kit/api-client/core';
import { ApiError, OAuthError } from '../errors.ts';
import { retryAfter } from '../platform/rate-limiter.ts';
import type { World } from '../state.ts';
import { isTokenRequest, MAX_HEAD_BYTES, pathOf } from './request.ts';

export const GATEWAY_TIMEOUT_MESSAGE =
  'The request timed out; the operation may or may not have completed. Verify before retrying.';
export const SERVER_ERROR_MESSAGE = 'Something went wrong on our side, please retry later.';

/** The service's error envelope. */
const apiErrorEnvelope = (code: string, message: string) => ({
  id: randomUUID(),
  errors: [{ code, message }],
});

/** The token endpoint's error format (`error_description` as OAuth clients read it, `detail` as ours). */
const oauthErrorEnvelope = (status: number, error: string, detail: string) => ({
  code: status,
  error,
  message: 'OAuth2 error',
  detail,
  error_description: detail,
  id: randomUUID(),
});

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  return reply.code(err.status).type('application/json').send(apiErrorEnvelope(err.code, err.message));
}

export function sendOAuthError(reply: FastifyReply, err: OAuthError): FastifyReply {
  return reply
    .code(err.status)
    .type('application/json')
    .header('cache-control', 'no-store')
    .send(oauthErrorEnvelope(err.status, err.error, err.detail));
}

/**
 * Any failure in the format its endpoint speaks: the token endpoint's OAuth format (a service error
 * becoming `server_error` or `invalid_request`), every other endpoint's error envelope.
 */
export function sendFailure(
  req: FastifyRequest,
  reply: FastifyReply,
  err: ApiError | OAuthError,
): FastifyReply {
  if (isTokenRequest(req)) {
    if (err instanceof ApiError)
      err = new OAuthError(err.status, err.status >= 500 ? 'server_error' : 'invalid_request', err.message);
    return sendOAuthError(reply, err);
  }
  if (err instanceof OAuthError) return sendOAuthError(reply, err);
  return sendApiError(reply, err);
}

/**
 * The gateway's 429 (its own format, `RateLimitBody`, plus an `id` like every error). Retry-After is in
 * whole REAL seconds rounded up; `retry_after_ms` is the exact real wait.
 */
export function sendRateLimited(
  reply: FastifyReply,
  world: World,
  group: string,
  retryAfterSimMs: number,
): FastifyReply {
  const wait = retryAfter(world.clock, retryAfterSimMs);
  const body: RateLimitBody & { id: string } = {
    id: randomUUID(),
    message: `Rate limit exceeded for the "${group}" group. Retry after ${wait.ms} ms.`,
    code: 'too_many_requests',
    group,
    retry_after_ms: wait.ms,
  };
  return reply.code(429).header('retry-after', String(wait.seconds)).type('application/json').send(body);
}

/** Drops the connection without an answer (a "connection reset" fault). */
export function resetConnection(req: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  const socket = req.raw.socket as Socket & { resetAndDestroy?: () => Socket };
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

/** Called by the parser for requests Node rejects before routing (bad framing, oversize heads…). */
export function clientErrorHandler(
  err: Error & { code?: string; rawPacket?: unknown },
  socket: Socket,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let message = 'the request could not be parsed';
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // The parser cannot tell a long request line from long headers; URLs up to MAX_HEAD_BYTES reach
    // the application and get their 414 there.
    status = 431;
    message = `the request line and headers exceed ${MAX_HEAD_BYTES} bytes`;
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'the request took too long to arrive';
  }
  writeRawError(socket, status, message);
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** Answers on a socket Node has taken away from the router (parse errors, CONNECT), then closes it. */
export function writeRawError(socket: Duplex, status: number, message: string, url?: string): void {
  const body = JSON.stringify(
    url !== undefined && pathOf(url) === GRANT_ENDPOINT_PATH
      ? oauthErrorEnvelope(status, 'invalid_request', message)
      : apiErrorEnvelope('generic_error', message),
  );
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
