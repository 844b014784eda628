// The admin routes of sellers (shops): create, profile, addresses, what they hold.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod/v4';
import { ApiError } from '../errors.ts';
import { SeedAddress, SeedSeller } from '../platform/seed.ts';
import { parseInput } from '../handlers/params.ts';
import { addAddress, createApiKey, createSeller } from '../world.ts';
import type { AdminDeps } from './deps.ts';
import { IdParam, json, sellerOf, sellerSummary } from './replies.ts';

export function sellersRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { world } = deps;
  app.get('/admin/sellers', async (_req, reply) =>
    json(
      reply,
      [...world.sellers.values()].map((s) => sellerSummary(world, s)),
    ),
  );
  app.post('/admin/sellers', async (req, reply) => {
    const body = parseInput(
      SeedSeller.extend({
        /** Also create an API key for this partner: true = generated, a string = that key. */
        partnerId: z.string().min(1).optional(),
        apiKey: z.union([z.boolean(), z.string().regex(/^[\x21-\x7e]+$/)]).optional(),
      }).strict(),
      req.body,
    );
    if (body.id !== undefined && world.sellers.has(body.id))
      throw new ApiError(409, 'generic_error', `seller ${body.id} exists`);
    const seller = createSeller(world, body);
    for (const { providers, ...address } of body.addresses ?? [])
      addAddress(world, seller, address, providers);
    let apiKey: string | undefined;
    if (body.apiKey) {
      const key = createApiKey(
        world,
        body.partnerId ?? 'partner-default',
        seller.id,
        typeof body.apiKey === 'string' ? body.apiKey : undefined,
      );
      apiKey = key.key;
    }
    return json(reply, { ...sellerSummary(world, seller), addresses: seller.addresses, apiKey }, 201);
  });
  app.get('/admin/sellers/:id', async (req, reply) => {
    const seller = sellerOf(world, parseInput(IdParam, req.params).id);
    return json(reply, { ...seller, apiKeys: sellerSummary(world, seller).apiKeys });
  });
  app.patch('/admin/sellers/:id/profile', async (req, reply) => {
    const seller = sellerOf(world, parseInput(IdParam, req.params).id);
    const body = parseInput(
      z
        .object({
          onboardingIncomplete: z.boolean(),
          manualShippingAllowed: z.boolean(),
          unsupportedCountry: z.boolean(),
        })
        .partial()
        .strict(),
      req.body,
    );
    Object.assign(seller.profile, body);
    return json(reply, seller.profile);
  });
  app.post('/admin/sellers/:id/addresses', async (req, reply) => {
    const seller = sellerOf(world, parseInput(IdParam, req.params).id);
    const { providers, ...address } = parseInput(SeedAddress, req.body);
    return json(reply, addAddress(world, seller, address, providers), 201);
  });
  app.get('/admin/sellers/:id/products', async (req, reply) =>
    json(reply, [...sellerOf(world, parseInput(IdParam, req.params).id).products.values()]),
  );
  app.get('/admin/sellers/:id/orders', async (req, reply) =>
    json(reply, [...sellerOf(world, parseInput(IdParam, req.params).id).orders.values()]),
  );
  app.get('/admin/sellers/:id/offers', async (req, reply) =>
    json(reply, sellerOf(world, parseInput(IdParam, req.params).id).offers),
  );
}
