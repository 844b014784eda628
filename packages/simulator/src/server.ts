// The partner-facing HTTP server: one Fastify route per operation of the client core's table.
// Request path: URL checks → faults (gateway/network) → auth → rate limit (gateway 429) → scopes →
// handler → post-commit faults. Every failure leaves as the service's error envelope (or the token
// endpoint's OAuth format, or the gateway's 429 body), never as a crash.
import Fastify, {
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  OPERATIONS,
  GRANT_ENDPOINT_PATH,
  type Operation,
  type RateLimitBody,
  DOT_SEGMENT_RULE,
  isDotSegment,
} from '@selling-kit/api-client/core';
import { ApiError, OAuthError, apiError } from './errors.ts';
import type { SimulatorConfig } from './config.ts';
import type { Handler, Handlers } from './handlers/types.ts';
import type { EventSink } from './platform/events.ts';
import type { Principal, World } from './state.ts';
import { authenticate, requireScopes } from './platform/auth.ts';
import { RateLimiter, retryAfter } from './platform/rate-limiter.ts';
import { FaultInjector, type FaultRule } from './platform/faults.ts';
import { DEMO_ASSET_PREFIX, type Asset } from './platform/assets.ts';
import { recordContract } from './platform/contract-recorder.ts';
import { handlers as builtInHandlers, RULE_FIRST_NOUNS } from './handlers/index.ts';
import { parseOperationBody } from './handlers/params.ts';
import { AUTHORIZE_PATH, authorize } from './handlers/auth.ts';
import { OPENAPI_DOCUMENT_PATH, openApiYaml } from '@selling-kit/api-client/openapi';

export interface ApiServerDeps {
  world: World;
  config: SimulatorConfig;
  handlers: Handlers;
  events: EventSink;
  rateLimiter?: RateLimiter;
  faults?: FaultInjector;
  /** Served without auth at /demo-assets/<name>. */
  assets?: Map<string, Asset>;
}

/** Largest request head (request line + headers) Node's parser accepts; beyond it → 431 from the parser. */
export const MAX_HEAD_BYTES = 1024 * 1024;
/** SPEC GAP: largest total of header names and values the simulator serves; beyond it → 431. */
export const MAX_HEADER_BYTES = 64 * 1024;
/** Longest path segment a route matches (an SKU is at most 50 characters); longer → 414. */
export const MAX_SEGMENT_LENGTH = 500;

/** `/api/v1/products/by-sku/{sku}/` → `/api/v1/products/by-sku/:sku/` */
export function toFastifyPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

function errorBody(code: string, message: string): string {
  return JSON.stringify({ id: randomUUID(), errors: [{ code, message }] });
}

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  return reply
    .code(err.status)
    .type('application/json')
    .send({ id: randomUUID(), errors: [{ code: err.code, message: err.message }] });
}

export function sendOAuthError(reply: FastifyReply, err: OAuthError): FastifyReply {
  return reply.code(err.status).type('application/json').header('cache-control', 'no-store').send({
    code: err.status,
    error: err.error,
    message: 'OAuth2 error',
    detail: err.detail,
    error_description: err.detail,
    id: randomUUID(),
  });
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

const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

/** Drops the connection without an answer (a "connection reset" fault). */
function resetConnection(req: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  const socket = req.raw.socket as Socket & { resetAndDestroy?: () => Socket };
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

const GATEWAY_TIMEOUT_MESSAGE =
  'The request timed out; the operation may or may not have completed. Verify before retrying.';
const SERVER_ERROR_MESSAGE = 'Something went wrong on our side, please retry later.';

/** Called by the parser for requests Node rejects before routing (bad framing, oversize heads…). */
function clientErrorHandler(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
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
function writeRawError(socket: Duplex, status: number, message: string, url?: string): void {
  const body =
    url !== undefined && pathOf(url) === GRANT_ENDPOINT_PATH
      ? JSON.stringify({
          code: status,
          error: 'invalid_request',
          message: 'OAuth2 error',
          detail: message,
          error_description: message,
          id: randomUUID(),
        })
      : errorBody('generic_error', message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

function headerBytes(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i++) n += raw[i]!.length;
  return n;
}

function longestSegment(path: string): number {
  let longest = 0;
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i === path.length || path.charCodeAt(i) === 47 /* / */) {
      longest = Math.max(longest, i - start);
      start = i + 1;
    }
  }
  return longest;
}

/** 414 for long URLs, 431 for oversize headers (checked before anything else). */
function checkRequestSize(req: FastifyRequest, config: SimulatorConfig): void {
  if (req.url.length > config.maxUrlLength) {
    throw new ApiError(414, 'generic_error', `the request URL exceeds ${config.maxUrlLength} characters`);
  }
  if (headerBytes(req.raw.rawHeaders) > MAX_HEADER_BYTES) {
    throw new ApiError(431, 'generic_error', `the request headers exceed ${MAX_HEADER_BYTES} bytes`);
  }
}

/** The SKU a request is about (a body's `sku`, or a by-sku path's), for faults that target one SKU. */
function skuOf(req: FastifyRequest): string | undefined {
  const inPath = (req.params as { sku?: string } | undefined)?.sku;
  if (inPath !== undefined) return inPath;
  const body = req.body as { sku?: unknown } | undefined;
  return body && typeof body === 'object' && typeof body.sku === 'string' ? body.sku : undefined;
}

function isTokenRequest(req: FastifyRequest): boolean {
  return pathOf(req.url) === GRANT_ENDPOINT_PATH;
}

// eslint-disable-next-line max-lines-per-function -- over the house's limit: to be split (issue 25)
export function buildApiServer(deps: ApiServerDeps): FastifyInstance {
  const { world, config, handlers, events } = deps;
  const rateLimiter = deps.rateLimiter ?? new RateLimiter(config, world.clock);
  const faults = deps.faults ?? new FaultInjector(config.seed, world.clock);
  const options: FastifyHttpOptions<Server> = {
    bodyLimit: config.bodyLimitBytes,
    logger: false,
    requestIdHeader: false,
    // Longer path parameters (an SKU is at most 50 characters) → 414 through frameworkErrors.
    routerOptions: { maxParamLength: MAX_SEGMENT_LENGTH },
    // No Host header is no reason to answer outside the error format.
    http: { maxHeaderSize: MAX_HEAD_BYTES, requireHostHeader: false },
    clientErrorHandler,
    frameworkErrors: (error, req, reply) => {
      const bad = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const err = bad
        ? new ApiError(414, 'generic_error', 'the request URL is too long or malformed')
        : new ApiError(400, 'bad-request', error.message);
      if (isTokenRequest(req))
        return sendOAuthError(reply, new OAuthError(err.status, 'invalid_request', err.message));
      return sendApiError(reply, err);
    },
  };
  const app = Fastify(options);

  // L2: a path with a dot-segment (`.`, `..`, `%2e`…) is never routed — neither to the path it would
  // normalise to nor to a listing whose SKU reads `..` — the client core refuses to send one.
  app.addHook('onRequest', async (req) => {
    if (pathOf(req.url).split('/').some(isDotSegment))
      throw new ApiError(
        400,
        'bad-request',
        `a path segment is a dot-segment ("." or ".."): ${DOT_SEGMENT_RULE}`,
      );
  });

  // CONNECT (and protocol upgrades) bypass the router: answer them in the error format too.
  app.server.on('connect', (_req: unknown, socket: Duplex) =>
    writeRawError(socket, 405, 'CONNECT is not supported'),
  );
  app.server.on('upgrade', (req: { url?: string }, socket: Duplex) =>
    writeRawError(socket, 400, 'protocol upgrades are not supported', req.url ?? ''),
  );

  app.removeAllContentTypeParsers();
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (text.length === 0 || text.trim() === '') return done(null, undefined);
    jsonParser(req, text, (err, value) => {
      if (err) done(apiError('bad-request', `request body is not valid JSON: ${err.message}`), undefined);
      else done(null, value);
    });
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    // Null prototype (a `__proto__` field stays a field); a repeated name becomes an array so the
    // token endpoint can reject duplicates.
    const out: Record<string, string | string[]> = Object.create(null);
    for (const [name, value] of new URLSearchParams(body as string)) {
      const prev = out[name];
      out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
    done(null, out);
  });
  // Any other content type: keep the raw bytes; operations with a JSON body reject them below.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, req, reply) => {
    let err: ApiError | OAuthError;
    if (error instanceof OAuthError || error instanceof ApiError) err = error;
    else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      err = new ApiError(413, 'generic_error', `request body exceeds ${config.bodyLimitBytes} bytes`);
    } else if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      err = new ApiError(error.statusCode === 415 ? 400 : error.statusCode, 'bad-request', error.message);
    } else {
      // An unexpected throw is a simulator bug: the client sees a 5xx retry-later, developers can see
      // the stack with SELLING_KIT_SIM_DEBUG=1 (never logged otherwise).
      if (process.env.SELLING_KIT_SIM_DEBUG) console.error(error);
      err = new ApiError(500, 'generic_error', SERVER_ERROR_MESSAGE);
    }
    if (isTokenRequest(req)) {
      if (err instanceof ApiError)
        err = new OAuthError(err.status, err.status >= 500 ? 'server_error' : 'invalid_request', err.message);
      return sendOAuthError(reply, err);
    }
    if (err instanceof OAuthError) return sendOAuthError(reply, err);
    return sendApiError(reply, err);
  });

  app.setNotFoundHandler(async (req, reply) => {
    checkRequestSize(req, config);
    const path = pathOf(req.url);
    if (longestSegment(path) > MAX_SEGMENT_LENGTH) {
      throw new ApiError(414, 'generic_error', `a path segment exceeds ${MAX_SEGMENT_LENGTH} characters`);
    }
    if (path === GRANT_ENDPOINT_PATH) {
      return sendOAuthError(reply, new OAuthError(405, 'invalid_request', `use POST ${GRANT_ENDPOINT_PATH}`));
    }
    return sendApiError(
      reply,
      new ApiError(404, 'generic_error', `no endpoint for ${req.method} ${path.slice(0, 200)}`),
    );
  });

  recordContract(app);
  for (const op of OPERATIONS) {
    const handler = handlers[op.id];
    if (!handler) continue;
    app.route({
      method: op.method,
      url: toFastifyPath(op.path),
      // A test's stand-in handler is not the simulator: its answers stay out of the contract check.
      config: { operationId: handler === builtInHandlers[op.id] ? op.id : undefined },
      handler: routeHandler(op, handler),
    });
  }

  function routeHandler(op: Operation, handler: Handler) {
    const group = op.group;
    const isToken = op.id === 'auth.token';
    const jsonBody = op.body !== undefined && !isToken;
    // Parsed here so no handler names a schema; rule-first handlers check the body themselves.
    const bodySchema = jsonBody && !RULE_FIRST_NOUNS.has(op.id.split('.')[0]!) ? op.body : undefined;
    return async (req: FastifyRequest, reply: FastifyReply) => {
      checkRequestSize(req, config);
      let fault: FaultRule | undefined;
      if (faults.active) {
        const outcome = faults.pick(op.id, req.method, pathOf(req.url), skuOf(req));
        if (outcome.delayMs > 0) await sleep(outcome.delayMs);
        fault = outcome.rule;
        if (fault) {
          switch (fault.type) {
            case 'error_500':
              throw new ApiError(500, fault.code ?? 'generic_error', SERVER_ERROR_MESSAGE);
            case 'error_502':
              throw new ApiError(502, 'unexpected_response', '');
            case 'error_422': {
              const code = fault.code ?? 'validation';
              throw new ApiError(422, code, fault.message ?? `the request was refused (${code})`);
            }
            case 'timeout_before_commit':
              throw new ApiError(504, 'generic_error', GATEWAY_TIMEOUT_MESSAGE);
            case 'reset_before_commit':
              return resetConnection(req, reply);
            case 'rate_limit_storm':
              return sendRateLimited(reply, world, group ?? 'general', faults.stormWaitMs(fault));
          }
        }
      }
      let principal: Principal | undefined;
      if (op.auth === 'bearer') {
        principal = authenticate(world, req.headers.authorization);
        if (group) {
          const decision = rateLimiter.check(principal, group);
          if (!decision.allowed)
            return sendRateLimited(reply, world, decision.group, decision.retryAfterSimMs);
        }
        requireScopes(op, principal);
      }
      if (jsonBody && Buffer.isBuffer(req.body)) {
        throw apiError('bad-request', 'the request body must be JSON (Content-Type: application/json)');
      }
      const seller = principal ? world.sellers.get(principal.sellerId) : undefined;
      if (principal && !seller) throw apiError('unauthorized', 'the credential’s shop no longer exists');
      const result = await handler({
        op,
        world,
        config,
        principal: principal ?? (undefined as unknown as Principal),
        seller: seller ?? (undefined as never),
        params: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
        body: bodySchema ? parseOperationBody(bodySchema, req.body) : req.body,
        now: world.clock.now(),
        events,
      });
      if (fault) {
        if (fault.type === 'timeout_after_commit') {
          throw new ApiError(504, 'generic_error', GATEWAY_TIMEOUT_MESSAGE);
        }
        if (fault.type === 'error_500_after_commit') {
          throw new ApiError(500, fault.code ?? 'generic_error', SERVER_ERROR_MESSAGE);
        }
        if (fault.type === 'reset_after_commit') return resetConnection(req, reply);
      }
      reply.code(result.status ?? 200);
      if (isToken) reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      if (result.body === undefined) return reply.send();
      return reply.type('application/json').send(result.body);
    };
  }

  // OAuth consent (auto-approving) for cross-lister tests and demos.
  app.get(AUTHORIZE_PATH, async (req, reply) => {
    const result = authorize(world, config, req.query as Record<string, unknown>);
    if (result.kind === 'error') return sendOAuthError(reply, result.error);
    return reply.code(302).header('location', result.location).header('cache-control', 'no-store').send();
  });

  // The generated OpenAPI document, where the public service serves its own (no credential, not metered).
  let openApiText: string | undefined;
  app.get(OPENAPI_DOCUMENT_PATH, async (_req, reply) => {
    openApiText ??= openApiYaml();
    return reply.type('application/yaml; charset=utf-8').send(openApiText);
  });

  if (deps.assets) {
    const assets = deps.assets;
    app.get(`${DEMO_ASSET_PREFIX}:name`, async (req, reply) => {
      const asset = assets.get((req.params as { name: string }).name);
      if (!asset) return sendApiError(reply, new ApiError(404, 'generic_error', 'no such demo asset'));
      return reply.type(asset.contentType).header('cache-control', 'public, max-age=3600').send(asset.body);
    });
  }
  return app;
}

export type { Operation };
