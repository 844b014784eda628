// The admin routes of faults: rules injected into the API.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod/v4';
import { FaultRuleInput } from '../platform/faults.ts';
import { parseInput } from '../handlers/params.ts';
import type { AdminDeps } from './deps.ts';
import { json, notFound } from './replies.ts';

export function faultsRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { faults } = deps;
  app.get('/admin/faults', async (_req, reply) => json(reply, faults.counters()));
  app.post('/admin/faults', async (req, reply) => {
    const body = req.body as { rules?: unknown; seed?: unknown } | undefined;
    const many = body && typeof body === 'object' && 'rules' in body;
    if (many) {
      const { rules, seed } = parseInput(
        z.object({ rules: z.array(FaultRuleInput), seed: z.number().int().optional() }).strict(),
        body,
      );
      if (seed !== undefined) faults.reseed(seed);
      return json(
        reply,
        rules.map((r) => faults.add(r)),
        201,
      );
    }
    return json(reply, faults.add(parseInput(FaultRuleInput, body)), 201);
  });
  app.delete('/admin/faults', async (req, reply) => {
    const { seed } = parseInput(z.object({ seed: z.coerce.number().int().optional() }), req.query);
    faults.clear(seed);
    return json(reply, { ok: true });
  });
  app.delete('/admin/faults/:faultId', async (req, reply) => {
    const { faultId } = req.params as { faultId: string };
    if (!faults.remove(faultId)) throw notFound(`fault ${faultId}`);
    return json(reply, { ok: true });
  });
}
