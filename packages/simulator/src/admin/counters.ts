// The admin routes of counters: rate limits, faults, webhooks.
import type { FastifyInstance } from 'fastify';
import type { AdminDeps } from './deps.ts';
import { json } from './replies.ts';

export function countersRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { rateLimiter, faults, webhooks } = deps;
  app.get('/admin/counters', async (_req, reply) =>
    json(reply, {
      rateLimits: rateLimiter.snapshot(),
      faults: faults.counters(),
      webhooks: webhooks.counters(),
    }),
  );
  app.post('/admin/counters/reset', async (_req, reply) => {
    rateLimiter.resetCounters();
    return json(reply, { ok: true });
  });
}
