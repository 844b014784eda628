// The admin surface: a separate listener (its own port) to set up and inspect the simulated world.
// Partner credentials never reach it: the API port has no /admin routes, and when `config.adminToken`
// is set this listener accepts only `Authorization: Bearer <adminToken>` (compared in constant time). A
// bind to a non-loopback address needs a token (`adminTokenProblem`). Nothing here logs secrets.
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod/v4';
import {
  SCOPES,
  WEBHOOK_EVENT_TYPES,
  isLoopbackHost,
  type Scope,
  type WebhookEventType,
} from '@selling-kit/api-client/core';
import type { SimulatorConfig } from './config.ts';
import { ApiError } from './errors.ts';
import type { ProductRecord, SellerState, World } from './state.ts';
import type { RateLimiter } from './platform/rate-limiter.ts';
import { FaultRuleInput, type FaultInjector } from './platform/faults.ts';
import type { WebhookDispatcher } from './platform/webhooks.ts';
import { applySeed, parseSeed, SeedAddress, SeedSeller } from './platform/seed.ts';
import { likeProduct, unlikeProduct } from './domain/products.ts';
import { findProductInWorld } from './domain/product-lookup.ts';
import { productUpdatedData } from './domain/product-wire.ts';
import { parseInput } from './handlers/params.ts';
import { createOrder } from './domain/orders.ts';
import {
  addAddress,
  createApiKey,
  createOAuthClient,
  createSeller,
  ensurePartner,
  newSecret,
} from './world.ts';

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

export interface AdminDeps {
  world: World;
  config: SimulatorConfig;
  rateLimiter: RateLimiter;
  faults: FaultInjector;
  webhooks: WebhookDispatcher;
  /** Back to the start-up state (demo and seed re-applied) or, with `empty`, to an empty world. */
  reset(empty: boolean): Promise<void>;
}

/** Maps and Sets as JSON objects and arrays. */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  return value;
}

function json(reply: FastifyReply, value: unknown, status = 200): FastifyReply {
  return reply.code(status).type('application/json').send(JSON.stringify(value, replacer));
}

const notFound = (what: string) => new ApiError(404, 'generic_error', `${what} not found`);

function sellerOf(world: World, id: string | number): SellerState {
  const seller = world.sellers.get(Number(id));
  if (!seller) throw notFound(`seller ${id}`);
  return seller;
}

function productOf(world: World, id: number): ProductRecord {
  const product = findProductInWorld(world, id);
  if (!product) throw notFound('product');
  return product;
}

function sellerSummary(world: World, s: SellerState) {
  return {
    id: s.id,
    username: s.username,
    countryCode: s.countryCode,
    currency: s.currency,
    profile: s.profile,
    addresses: s.addresses.length,
    products: s.products.size,
    orders: s.orders.size,
    offers: s.offers.length,
    apiKeys: [...world.apiKeys.values()].filter((k) => k.sellerId === s.id).map((k) => k.key),
  };
}

const IdParam = z.object({ id: z.coerce.number().int() });
const EventTypeEnum = z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]);

const ConfigPatch = z
  .object({
    rateLimitsEnabled: z.boolean(),
    rateLimits: z
      .object({
        create_update: z.object({ limit: z.number().int().positive(), windowMs: z.number().positive() }),
        insights: z.object({ limit: z.number().int().positive(), windowMs: z.number().positive() }),
        general: z.object({ limit: z.number().int().positive(), windowMs: z.number().positive() }),
      })
      .partial(),
    appWideLimit: z.object({ limit: z.number().int().positive(), windowMs: z.number().positive() }),
    readAfterCreateDelayMs: z.number().nonnegative(),
    accessTokenTtlSec: z.number().positive(),
    refreshTokenTtlSec: z.number().positive(),
    authCodeTtlSec: z.number().positive(),
    minPercentOff: z.number().min(0).max(100),
    fetchPictures: z.boolean(),
    pictureFetchTimeoutMs: z.number().int().positive(),
    webhookMaxAttempts: z.number().int().positive(),
    webhookRetryBaseDelayMs: z.number().nonnegative(),
    webhookTimeoutMs: z.number().int().positive(),
    maxUrlLength: z.number().int().positive(),
    seed: z.number().int(),
  })
  .partial()
  .strict();

export function buildAdminServer(deps: AdminDeps): FastifyInstance {
  const { world, config, rateLimiter, faults, webhooks } = deps;
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

  // --- world ------------------------------------------------------------------------------------
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

  // --- partners ---------------------------------------------------------------------------------
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

  // --- sellers (shops) --------------------------------------------------------------------------
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

  // --- credentials --------------------------------------------------------------------------------
  app.post('/admin/api-keys', async (req, reply) => {
    const body = parseInput(
      z
        .object({
          partnerId: z.string().min(1),
          sellerId: z.number().int(),
          key: z
            .string()
            .regex(/^[\x21-\x7e]+$/)
            .optional(),
        })
        .strict(),
      req.body,
    );
    sellerOf(world, body.sellerId);
    if (body.key && world.apiKeys.has(body.key))
      throw new ApiError(409, 'generic_error', 'that API key exists');
    return json(reply, createApiKey(world, body.partnerId, body.sellerId, body.key), 201);
  });
  app.post('/admin/oauth-clients', async (req, reply) => {
    const body = parseInput(
      z
        .object({
          partnerId: z.string().min(1),
          redirectUris: z.array(z.url()).min(1),
          clientId: z
            .string()
            .regex(/^[\x21-\x7e]+$/)
            .optional(),
          clientSecret: z
            .string()
            .regex(/^[\x21-\x7e]+$/)
            .optional(),
        })
        .strict(),
      req.body,
    );
    if (body.clientId && world.oauthClients.has(body.clientId)) {
      throw new ApiError(409, 'generic_error', 'that client id exists');
    }
    return json(
      reply,
      createOAuthClient(world, body.partnerId, body.redirectUris, body.clientId, body.clientSecret),
      201,
    );
  });
  /** Issues a token pair without the consent redirect (tests of cross-lister flows). */
  app.post('/admin/oauth/tokens', async (req, reply) => {
    const body = parseInput(
      z
        .object({
          clientId: z.string().min(1),
          sellerId: z.number().int(),
          scopes: z.array(z.enum(SCOPES)).default([...SCOPES]),
        })
        .strict(),
      req.body,
    );
    const client = world.oauthClients.get(body.clientId);
    if (!client) throw notFound(`OAuth client ${body.clientId}`);
    sellerOf(world, body.sellerId);
    const now = world.clock.now();
    const scopes = [...new Set(body.scopes)] as Scope[];
    const accessToken = newSecret('pat_');
    const refreshToken = newSecret('prt_');
    world.accessTokens.set(accessToken, {
      token: accessToken,
      clientId: client.clientId,
      sellerId: body.sellerId,
      scopes,
      expiresAt: now + config.accessTokenTtlSec * 1000,
    });
    world.refreshTokens.set(refreshToken, {
      token: refreshToken,
      clientId: client.clientId,
      sellerId: body.sellerId,
      scopes,
      used: false,
      expiresAt: now + config.refreshTokenTtlSec * 1000,
    });
    return json(
      reply,
      {
        access_token: accessToken,
        refresh_token: refreshToken,
        expires_in: config.accessTokenTtlSec,
        token_type: 'Bearer',
        scope: scopes.join(' '),
      },
      201,
    );
  });

  // --- products, orders, likes ------------------------------------------------------------------
  app.get('/admin/products/:id', async (req, reply) => {
    const product = productOf(world, parseInput(IdParam, req.params).id);
    return json(reply, product);
  });
  app.post('/admin/products/:id/ban', async (req, reply) => {
    const product = productOf(world, parseInput(IdParam, req.params).id);
    if (product.state !== 'banned') {
      product.previousState = product.state;
      product.state = 'banned';
      product.updatedAt = world.clock.now();
      webhooks.emit(product.sellerId, 'v1:product.updated', productUpdatedData(product, ['status']));
    }
    return json(reply, {
      productId: product.productId,
      state: product.state,
      previousState: product.previousState,
    });
  });
  app.post('/admin/products/:id/likes', async (req, reply) => {
    const product = productOf(world, parseInput(IdParam, req.params).id);
    const body = parseInput(z.object({ likerId: z.number().int().positive().optional() }).strict(), req.body);
    const likerId = body.likerId ?? 900_001 + product.likes.size;
    likeProduct(world.sellers.get(product.sellerId)!, product.productId, likerId, webhooks);
    return json(reply, { productId: product.productId, likerId, likes: product.likes.size }, 201);
  });
  app.delete('/admin/products/:id/likes/:likerId', async (req, reply) => {
    const { id, likerId } = parseInput(
      z.object({ id: z.coerce.number().int(), likerId: z.coerce.number().int() }),
      req.params,
    );
    const product = productOf(world, id);
    unlikeProduct(world.sellers.get(product.sellerId)!, product.productId, likerId, webhooks);
    return json(reply, { productId: product.productId, likerId, likes: product.likes.size });
  });
  app.post('/admin/orders', async (req, reply) => {
    const body = parseInput(
      z
        .object({
          sellerId: z.number().int(),
          productIds: z.array(z.number().int()).min(1),
          buyerId: z.number().int().positive().optional(),
        })
        .strict(),
      req.body,
    );
    const seller = sellerOf(world, body.sellerId);
    const order = createOrder(world, seller, body.productIds, {
      now: world.clock.now(),
      buyerId: body.buyerId,
      events: webhooks,
    });
    return json(reply, order, 201);
  });

  // --- clock and config ---------------------------------------------------------------------------
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

  // --- faults ---------------------------------------------------------------------------------------
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

  // --- webhooks ---------------------------------------------------------------------------------------
  app.get('/admin/webhooks', async (_req, reply) => json(reply, [...world.webhooks.values()]));
  app.post('/admin/webhooks', async (req, reply) => {
    const body = parseInput(
      z
        .object({ partnerId: z.string().min(1), url: z.url(), eventTypes: z.array(EventTypeEnum).optional() })
        .strict(),
      req.body,
    );
    ensurePartner(world, body.partnerId);
    const id = `wh_${randomUUID()}`;
    const sub = {
      id,
      partnerId: body.partnerId,
      url: body.url,
      eventTypes: body.eventTypes ?? [...WEBHOOK_EVENT_TYPES],
      createdAt: world.clock.now(),
    };
    world.webhooks.set(id, sub);
    return json(reply, sub, 201);
  });
  app.delete('/admin/webhooks/:webhookId', async (req, reply) => {
    const { webhookId } = req.params as { webhookId: string };
    if (!world.webhooks.delete(webhookId)) throw notFound(`webhook ${webhookId}`);
    return json(reply, { ok: true });
  });
  app.get('/admin/webhooks/events', async (_req, reply) => json(reply, webhooks.events));
  app.get('/admin/webhooks/deliveries', async (req, reply) => {
    const q = parseInput(
      z
        .object({ partnerId: z.string(), eventType: z.string(), state: z.string(), eventId: z.string() })
        .partial(),
      req.query,
    );
    return json(
      reply,
      webhooks.deliveries.filter(
        (d) =>
          (!q.partnerId || d.partnerId === q.partnerId) &&
          (!q.eventType || d.eventType === q.eventType) &&
          (!q.state || d.state === q.state) &&
          (!q.eventId || d.eventId === q.eventId),
      ),
    );
  });
  /** Emits an event for a seller as a handler would (tests of receivers). */
  app.post('/admin/events', async (req, reply) => {
    const body = parseInput(
      z
        .object({
          sellerId: z.number().int(),
          eventType: EventTypeEnum,
          data: z.record(z.string(), z.unknown()),
        })
        .strict(),
      req.body,
    );
    sellerOf(world, body.sellerId);
    const before = webhooks.events.length;
    webhooks.emit(body.sellerId, body.eventType, body.data);
    const event = webhooks.events.length > before ? webhooks.events[webhooks.events.length - 1] : undefined;
    return json(reply, { eventId: event?.id, deliveries: event?.deliveryIds ?? [] }, 202);
  });

  // --- counters -------------------------------------------------------------------------------------
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

  return app;
}
