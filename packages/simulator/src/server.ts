// The partner-facing HTTP server: one Fastify route per operation of the client core's table.
// Auth → scopes → handler; every failure leaves as the service's error envelope (or the token
// endpoint's OAuth format), never as a crash.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { OPERATIONS, type Operation } from '@selling-kit/api-client/core';
import { ApiError, OAuthError, apiError } from './errors.ts';
import type { SimulatorConfig } from './config.ts';
import type { EventSink, Handlers } from './handlers/types.ts';
import type { Principal, World } from './state.ts';
import { authenticate, requireScopes } from './platform/auth.ts';

export interface ApiServerDeps {
  world: World;
  config: SimulatorConfig;
  handlers: Handlers;
  events: EventSink;
}

/** `/api/v1/products/by-sku/{sku}/` → `/api/v1/products/by-sku/:sku/` */
export function toFastifyPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  return reply
    .code(err.status)
    .type('application/json')
    .send({ id: randomUUID(), errors: [{ code: err.code, message: err.message }] });
}

export function sendOAuthError(reply: FastifyReply, err: OAuthError): FastifyReply {
  return reply.code(err.status).type('application/json').send({
    code: err.status,
    error: err.error,
    message: 'OAuth2 error',
    detail: err.detail,
    error_description: err.detail,
    id: randomUUID(),
  });
}

export function buildApiServer(deps: ApiServerDeps): FastifyInstance {
  const { world, config, handlers, events } = deps;
  const app = Fastify({ bodyLimit: config.bodyLimitBytes, logger: false, maxParamLength: 500 });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (e) {
      done(apiError('bad-request', `request body is not valid JSON: ${(e as Error).message}`), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  // Any other content type: keep the raw bytes; the operation's body check rejects them.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, _req, reply) => {
    if (error instanceof OAuthError) return sendOAuthError(reply, error);
    if (error instanceof ApiError) return sendApiError(reply, error);
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendApiError(
        reply,
        new ApiError(413, 'bad-request', `request body exceeds ${config.bodyLimitBytes} bytes`),
      );
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendApiError(reply, new ApiError(400, 'bad-request', error.message));
    }
    return sendApiError(
      reply,
      new ApiError(500, 'generic_error', 'Something went wrong on our side, please retry later.'),
    );
  });
  app.setNotFoundHandler((req, reply) =>
    sendApiError(
      reply,
      new ApiError(404, 'generic_error', `no endpoint for ${req.method} ${req.url.split('?')[0]}`),
    ),
  );

  for (const op of OPERATIONS) {
    const handler = handlers[op.id];
    if (!handler) continue;
    app.route({
      method: op.method,
      url: toFastifyPath(op.path),
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const principal = op.auth === 'bearer' ? authenticate(world, req.headers.authorization) : undefined;
        if (principal) requireScopes(op, principal);
        const result = await handler({
          op,
          world,
          config,
          principal: principal ?? (undefined as unknown as Principal),
          seller: principal ? world.sellers.get(principal.sellerId)! : (undefined as never),
          params: req.params as Record<string, string>,
          query: req.query as Record<string, unknown>,
          body: req.body,
          now: world.clock.now(),
          events,
        });
        reply.code(result.status ?? 200);
        if (result.body === undefined) return reply.send();
        return reply.type('application/json').send(result.body);
      },
    });
  }
  return app;
}

export type { Operation };
