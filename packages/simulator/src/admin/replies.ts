// What the admin routes share: JSON replies (Maps and Sets as objects and arrays), lookups that answer 404.
import type { FastifyReply } from 'fastify';
import { z } from 'zod/v4';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '@selling-kit/api-client/core';
import { ApiError } from '../errors.ts';
import type { ProductRecord, SellerState, World } from '../state.ts';
import { findProductInWorld } from '../domain/product-lookup.ts';

/** Maps and Sets as JSON objects and arrays. */
export function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  return value;
}

export function json(reply: FastifyReply, value: unknown, status = 200): FastifyReply {
  return reply.code(status).type('application/json').send(JSON.stringify(value, replacer));
}

export const notFound = (what: string) => new ApiError(404, 'generic_error', `${what} not found`);

export function sellerOf(world: World, id: string | number): SellerState {
  const seller = world.sellers.get(Number(id));
  if (!seller) throw notFound(`seller ${id}`);
  return seller;
}

export function productOf(world: World, id: number): ProductRecord {
  const product = findProductInWorld(world, id);
  if (!product) throw notFound('product');
  return product;
}

export function sellerSummary(world: World, s: SellerState) {
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

export const IdParam = z.object({ id: z.coerce.number().int() });
export const EventTypeEnum = z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]);

export const ConfigPatch = z
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
