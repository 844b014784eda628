// The admin routes of the world: reset, seed, the whole state.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod/v4';
import { ApiError } from '../errors.ts';
import { applySeed, parseSeed } from '../platform/seed.ts';
import { parseInput } from '../handlers/params.ts';
import type { AdminDeps } from './deps.ts';
import { json, sellerSummary } from './replies.ts';

export function worldRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { world, config } = deps;
  app.post('/admin/reset', async (req, reply) => {
    const { empty } = parseInput(z.object({ empty: z.boolean().optional() }).strict(), req.body);
    await deps.reset(empty ?? false);
    return json(reply, { ok: true, sellers: world.sellers.size });
  });

  app.post('/admin/seed', async (req, reply) => {
    const doc = parseSeed(req.body); // 400 naming every problem
    try {
      return json(reply, await applySeed(world, config, doc));
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw new ApiError(409, 'generic_error', (e as Error).message);
    }
  });

  app.get('/admin/state', async (_req, reply) =>
    json(reply, {
      clock: {
        now: world.clock.now(),
        iso: new Date(world.clock.now()).toISOString(),
        timeScale: world.clock.scale,
      },
      partners: [...world.partners.values()],
      sellers: [...world.sellers.values()].map((s) => sellerSummary(world, s)),
      oauthClients: [...world.oauthClients.values()].map((c) => ({
        clientId: c.clientId,
        partnerId: c.partnerId,
        redirectUris: c.redirectUris,
      })),
      webhooks: [...world.webhooks.values()],
      counts: {
        apiKeys: world.apiKeys.size,
        accessTokens: world.accessTokens.size,
        refreshTokens: world.refreshTokens.size,
        authCodes: world.authCodes.size,
      },
    }),
  );
}
