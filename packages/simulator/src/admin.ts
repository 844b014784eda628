// The admin surface: a separate listener (its own port) to set up and inspect the simulated world.
// Partner credentials never reach it: the API port has no /admin routes, and when `config.adminToken`
// is set this listener accepts only `Authorization: Bearer <adminToken>` (compared in constant time). A
// bind to a non-loopback address needs a token (`adminTokenProblem`). Nothing here logs secrets.
import Fastify, { type FastifyInstance } from 'fastify';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { isLoopbackHost } from '@selling-kit/api-client/core';
import { ApiError } from './errors.ts';
import { worldRoutes } from './admin/world.ts';
import { partnersRoutes } from './admin/partners.ts';
import { sellersRoutes } from './admin/sellers.ts';
import { credentialsRoutes } from './admin/credentials.ts';
import { productsRoutes } from './admin/products.ts';
import { clockRoutes } from './admin/clock.ts';
import { faultsRoutes } from './admin/faults.ts';
import { webhooksRoutes } from './admin/webhooks.ts';
import { countersRoutes } from './admin/counters.ts';
import { json } from './admin/replies.ts';
import type { AdminDeps } from './admin/deps.ts';

export type { AdminDeps };

/** Where the admin token comes from besides `--admin-token-file` (never argv: `ps` shows it). */
export const ADMIN_TOKEN_ENV = 'SELLING_KIT_SIMULATOR_ADMIN_TOKEN';

/**
 * Why the admin surface may not listen on `host` with this token, or undefined. Loopback stays open
 * without one (a local test or `selling-kit dev`); any other address (0.0.0.0 in compose) needs one.
 */
export function adminTokenProblem(host: string, token: string | undefined): string | undefined {
  if (token || isLoopbackHost(host)) return undefined;
  return `the simulator's admin surface on ${host} needs an admin token: set ${ADMIN_TOKEN_ENV} or pass --admin-token-file`;
}

/** Constant-time check of an Authorization header (hashes first, so lengths never leak or throw). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(header ?? ''), digest(`Bearer ${token}`));
}

export function buildAdminServer(deps: AdminDeps): FastifyInstance {
  const { config } = deps;
  const app = Fastify({ logger: false, bodyLimit: 16 * 1024 * 1024, requestIdHeader: false });

  app.setErrorHandler((error: Error & { statusCode?: number }, _req, reply) => {
    const status =
      error instanceof ApiError
        ? error.status
        : error.statusCode && error.statusCode < 500
          ? error.statusCode
          : 500;
    const code = error instanceof ApiError ? error.code : status < 500 ? 'bad-request' : 'generic_error';
    return json(reply, { id: randomUUID(), errors: [{ code, message: error.message }] }, status);
  });
  app.setNotFoundHandler((req, reply) =>
    json(
      reply,
      {
        id: randomUUID(),
        errors: [{ code: 'generic_error', message: `no admin endpoint ${req.method} ${req.url}` }],
      },
      404,
    ),
  );

  app.addHook('onRequest', async (req) => {
    if (!config.adminToken) return;
    if (!bearerMatches(req.headers.authorization, config.adminToken)) {
      throw new ApiError(401, 'unauthorized', 'the admin surface needs the admin token');
    }
  });

  app.get('/admin/health', async (_req, reply) => json(reply, { status: 'OK' }));

  // The routes, by what they touch (admin/).
  worldRoutes(app, deps);
  partnersRoutes(app, deps);
  sellersRoutes(app, deps);
  credentialsRoutes(app, deps);
  productsRoutes(app, deps);
  clockRoutes(app, deps);
  faultsRoutes(app, deps);
  webhooksRoutes(app, deps);
  countersRoutes(app, deps);

  return app;
}
