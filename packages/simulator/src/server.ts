// The partner-facing HTTP server: one Fastify route per operation of the client core's table
// (http/operation-route.ts, the request path: URL checks → faults (gateway/network) → auth → rate limit
// (gateway 429) → scopes → handler → post-commit faults), and around the routes what keeps every
// answer in the service's format: the request guards, the body parsers, the error and not-found
// answers (http/replies.ts). Every failure leaves as the service's error envelope (or the token
// endpoint's OAuth format, or the gateway's 429 body), never as a crash.
import Fastify, {
  type FastifyError,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  OPERATIONS,
  GRANT_ENDPOINT_PATH,
  type Operation,
  DOT_SEGMENT_RULE,
  isDotSegment,
} from '@selling-kit/api-client/core';
import { OPENAPI_DOCUMENT_PATH, openApiYaml } from '@selling-kit/api-client/openapi';
import { ApiError, OAuthError, apiError } from './errors.ts';
import type { SimulatorConfig } from './config.ts';
import type { Handlers } from './handlers/types.ts';
import type { EventSink } from './platform/events.ts';
import type { World } from './state.ts';
import { RateLimiter } from './platform/rate-limiter.ts';
import { FaultInjector } from './platform/faults.ts';
import { DEMO_ASSET_PREFIX, type Asset } from './platform/assets.ts';
import { recordContract } from './platform/contract-recorder.ts';
import { handlers as builtInHandlers } from './handlers/index.ts';
import { AUTHORIZE_PATH, authorize } from './handlers/auth.ts';
import { operationRoute, toFastifyPath, type RouteDeps } from './http/operation-route.ts';
import {
  clientErrorHandler,
  sendApiError,
  sendFailure,
  sendOAuthError,
  SERVER_ERROR_MESSAGE,
  writeRawError,
} from './http/replies.ts';
import {
  checkRequestSize,
  longestSegment,
  MAX_HEAD_BYTES,
  MAX_SEGMENT_LENGTH,
  pathOf,
} from './http/request.ts';

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

export function buildApiServer(deps: ApiServerDeps): FastifyInstance {
  const { world, config } = deps;
  const routeDeps: RouteDeps = {
    world,
    config,
    events: deps.events,
    rateLimiter: deps.rateLimiter ?? new RateLimiter(config, world.clock),
    faults: deps.faults ?? new FaultInjector(config.seed, world.clock),
  };
  const app = Fastify(serverOptions(config));
  refuseDotSegments(app);
  answerConnectAndUpgrade(app);
  addBodyParsers(app);
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, req, reply) =>
    sendFailure(req, reply, asWireError(error, config)),
  );
  app.setNotFoundHandler(async (req, reply) => {
    checkRequestSize(req, config);
    return sendNotFound(pathOf(req.url), req.method, reply);
  });
  recordContract(app);
  addOperationRoutes(app, deps.handlers, routeDeps);
  addAuthorizeRoute(app, world, config);
  addOpenApiRoute(app);
  if (deps.assets) addDemoAssetRoute(app, deps.assets);
  return app;
}

/**
 * Fastify's and Node's settings: the body and head limits, no logger and no request-id header (the
 * service has neither), and the answers to what fails before any route runs (a URL or a path parameter
 * too long → 414, bad framing → the parser's error) in the service's format.
 */
function serverOptions(config: SimulatorConfig): FastifyHttpOptions<Server> {
  return {
    bodyLimit: config.bodyLimitBytes,
    logger: false,
    requestIdHeader: false,
    // Longer path parameters (an SKU is at most 50 characters) → 414 through frameworkErrors.
    routerOptions: { maxParamLength: MAX_SEGMENT_LENGTH },
    // No Host header is no reason to answer outside the error format.
    http: { maxHeaderSize: MAX_HEAD_BYTES, requireHostHeader: false },
    clientErrorHandler,
    frameworkErrors: (error, req, reply) => sendFailure(req, reply, frameworkError(error)),
  };
}

/** A request Fastify could not route: a bad or too long URL → 414, anything else → 400. */
function frameworkError(error: FastifyError): ApiError {
  const bad = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  return bad
    ? new ApiError(414, 'generic_error', 'the request URL is too long or malformed')
    : new ApiError(400, 'bad-request', error.message);
}

/**
 * L2: a path with a dot-segment (`.`, `..`, `%2e`…) is never routed — neither to the path it would
 * normalise to nor to a listing whose SKU reads `..` — the client core refuses to send one.
 */
function refuseDotSegments(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    if (pathOf(req.url).split('/').some(isDotSegment))
      throw new ApiError(
        400,
        'bad-request',
        `a path segment is a dot-segment ("." or ".."): ${DOT_SEGMENT_RULE}`,
      );
  });
}

/** CONNECT (and protocol upgrades) bypass the router: answer them in the error format too. */
function answerConnectAndUpgrade(app: FastifyInstance): void {
  app.server.on('connect', (_req: unknown, socket: Duplex) =>
    writeRawError(socket, 405, 'CONNECT is not supported'),
  );
  app.server.on('upgrade', (req: { url?: string }, socket: Duplex) =>
    writeRawError(socket, 400, 'protocol upgrades are not supported', req.url ?? ''),
  );
}

/**
 * The bodies the API takes: JSON (empty → no body; invalid → the service's 400), forms (the token
 * endpoint), and any other type kept as raw bytes, which operations with a JSON body reject.
 */
function addBodyParsers(app: FastifyInstance): void {
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
}

/** Whatever a route or hook threw, as the error the client is told about. */
function asWireError(
  error: Error & { statusCode?: number; code?: string },
  config: SimulatorConfig,
): ApiError | OAuthError {
  if (error instanceof OAuthError || error instanceof ApiError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new ApiError(413, 'generic_error', `request body exceeds ${config.bodyLimitBytes} bytes`);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
    return new ApiError(error.statusCode === 415 ? 400 : error.statusCode, 'bad-request', error.message);
  // An unexpected throw is a simulator bug: the client sees a 5xx retry-later, developers can see
  // the stack with SELLING_KIT_SIM_DEBUG=1 (never logged otherwise).
  if (process.env.SELLING_KIT_SIM_DEBUG) console.error(error);
  return new ApiError(500, 'generic_error', SERVER_ERROR_MESSAGE);
}

/** No route: a too long segment → 414, the token endpoint by another method → 405, else 404. */
function sendNotFound(path: string, method: string, reply: FastifyReply): FastifyReply {
  if (longestSegment(path) > MAX_SEGMENT_LENGTH) {
    throw new ApiError(414, 'generic_error', `a path segment exceeds ${MAX_SEGMENT_LENGTH} characters`);
  }
  if (path === GRANT_ENDPOINT_PATH) {
    return sendOAuthError(reply, new OAuthError(405, 'invalid_request', `use POST ${GRANT_ENDPOINT_PATH}`));
  }
  return sendApiError(
    reply,
    new ApiError(404, 'generic_error', `no endpoint for ${method} ${path.slice(0, 200)}`),
  );
}

/** One route per operation of the core's table that has a handler. */
function addOperationRoutes(app: FastifyInstance, handlers: Handlers, deps: RouteDeps): void {
  for (const op of OPERATIONS) {
    const handler = handlers[op.id];
    if (!handler) continue;
    app.route({
      method: op.method,
      url: toFastifyPath(op.path),
      // A test's stand-in handler is not the simulator: its answers stay out of the contract check.
      config: { operationId: handler === builtInHandlers[op.id] ? op.id : undefined },
      handler: operationRoute(op, handler, deps),
    });
  }
}

/** OAuth consent (auto-approving) for cross-lister tests and demos. */
function addAuthorizeRoute(app: FastifyInstance, world: World, config: SimulatorConfig): void {
  app.get(AUTHORIZE_PATH, async (req, reply) => {
    const result = authorize(world, config, req.query as Record<string, unknown>);
    if (result.kind === 'error') return sendOAuthError(reply, result.error);
    return reply.code(302).header('location', result.location).header('cache-control', 'no-store').send();
  });
}

/** The generated OpenAPI document, where the public service serves its own (no credential, not metered). */
function addOpenApiRoute(app: FastifyInstance): void {
  let openApiText: string | undefined;
  app.get(OPENAPI_DOCUMENT_PATH, async (_req, reply) => {
    openApiText ??= openApiYaml();
    return reply.type('application/yaml; charset=utf-8').send(openApiText);
  });
}

/** The demo's pictures, served without auth at /demo-assets/<name>. */
function addDemoAssetRoute(app: FastifyInstance, assets: Map<string, Asset>): void {
  app.get(`${DEMO_ASSET_PREFIX}:name`, async (req, reply) => {
    const asset = assets.get((req.params as { name: string }).name);
    if (!asset) return sendApiError(reply, new ApiError(404, 'generic_error', 'no such demo asset'));
    return reply.type(asset.contentType).header('cache-control', 'public, max-age=3600').send(asset.body);
  });
}

export type { Operation };
