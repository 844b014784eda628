// The admin routes of partners (their access and webhook secret).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod/v4';
import { parseInput } from '../handlers/params.ts';
import { ensurePartner } from '../world.ts';
import type { AdminDeps } from './deps.ts';
import { json, notFound } from './replies.ts';

export function partnersRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { world } = deps;
  const PartnerBody = z
    .object({
      id: z.string().min(1),
      accessDenied: z.boolean().optional(),
      webhookSecret: z.string().min(1).optional(),
    })
    .strict();
  app.get('/admin/partners', async (_req, reply) => json(reply, [...world.partners.values()]));
  app.post('/admin/partners', async (req, reply) => {
    const body = parseInput(PartnerBody, req.body);
    const partner = ensurePartner(world, body.id, body.webhookSecret);
    if (body.accessDenied !== undefined) partner.accessDenied = body.accessDenied;
    return json(reply, partner, 201);
  });
  app.patch('/admin/partners/:partnerId', async (req, reply) => {
    const { partnerId } = req.params as { partnerId: string };
    const partner = world.partners.get(partnerId);
    if (!partner) throw notFound(`partner ${partnerId}`);
    const body = parseInput(PartnerBody.omit({ id: true }), req.body);
    if (body.accessDenied !== undefined) partner.accessDenied = body.accessDenied;
    if (body.webhookSecret !== undefined) partner.webhookSecret = body.webhookSecret;
    return json(reply, partner);
  });
}
