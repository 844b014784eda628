// The admin routes of the clock and the config.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod/v4';
import { parseInput } from '../handlers/params.ts';
import type { AdminDeps } from './deps.ts';
import { ConfigPatch, json } from './replies.ts';

export function clockRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { world, config, faults } = deps;
  const clockView = () => ({
    now: world.clock.now(),
    iso: new Date(world.clock.now()).toISOString(),
    timeScale: world.clock.scale,
  });
  app.get('/admin/clock', async (_req, reply) => json(reply, clockView()));
  app.post('/admin/clock/advance', async (req, reply) => {
    const body = parseInput(
      z
        .object({ ms: z.number().nonnegative().optional(), seconds: z.number().nonnegative().optional() })
        .strict()
        .refine((b) => b.ms !== undefined || b.seconds !== undefined, { message: 'give ms or seconds' }),
      req.body,
    );
    world.clock.advance((body.ms ?? 0) + (body.seconds ?? 0) * 1000);
    return json(reply, clockView());
  });
  app.get('/admin/config', async (_req, reply) => json(reply, { ...config, adminToken: undefined }));
  app.patch('/admin/config', async (req, reply) => {
    const body = parseInput(ConfigPatch, req.body);
    const { rateLimits, seed, ...rest } = body;
    Object.assign(config, rest);
    if (rateLimits) Object.assign(config.rateLimits, rateLimits);
    if (seed !== undefined) {
      config.seed = seed;
      faults.reseed(seed);
    }
    return json(reply, { ...config, adminToken: undefined });
  });
}
