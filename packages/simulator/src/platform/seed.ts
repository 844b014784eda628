// Seed documents: a JSON description of partners, sellers (shops), API keys, OAuth clients, addresses,
// profiles, webhook subscriptions and listings, loaded at start-up (`--seed file`) or through the admin
// surface (POST /admin/seed). The format is documented in the package README.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod/v4';
import {
  WEBHOOK_EVENT_TYPES,
  type ProductCreateRequest,
  type WebhookEventType,
} from '@selling-kit/api-client/core';
import type { SimulatorConfig } from '../config.ts';
import type { World } from '../state.ts';
import { addAddress, createApiKey, createOAuthClient, createSeller, ensurePartner } from '../world.ts';
import { createListing } from '../domain/products.ts';
import { parseInput } from '../handlers/params.ts';

const Profile = z
  .object({
    onboardingIncomplete: z.boolean(),
    manualShippingAllowed: z.boolean(),
    unsupportedCountry: z.boolean(),
  })
  .partial()
  .strict();

export const SeedAddress = z
  .object({
    id: z.number().int().positive().optional(),
    name: z.string().optional(),
    address: z.string().optional(),
    address2: z.string().nullable().optional(),
    city: z.string().optional(),
    state: z.string().optional(),
    postal_code: z.string().optional(),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .optional(),
    /** Shipping provider ids available from this address (default: the carriers of its country). */
    providers: z.array(z.string().min(1)).optional(),
  })
  .strict();

export const SeedSeller = z
  .object({
    id: z.number().int().positive().optional(),
    username: z.string().min(1).optional(),
    countryCode: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .optional(),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .optional(),
    profile: Profile.optional(),
    addresses: z.array(SeedAddress).optional(),
  })
  .strict();

const Credential = z.string().regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');

export const SeedDocument = z
  .object({
    partners: z
      .array(
        z
          .object({
            id: z.string().min(1),
            accessDenied: z.boolean().optional(),
            webhookSecret: z.string().min(1).optional(),
          })
          .strict(),
      )
      .optional(),
    sellers: z.array(SeedSeller).optional(),
    apiKeys: z
      .array(z.object({ key: Credential, partnerId: z.string().min(1), sellerId: z.number().int() }).strict())
      .optional(),
    oauthClients: z
      .array(
        z
          .object({
            clientId: Credential,
            clientSecret: Credential,
            partnerId: z.string().min(1),
            redirectUris: z.array(z.url()).min(1),
          })
          .strict(),
      )
      .optional(),
    webhooks: z
      .array(
        z
          .object({
            partnerId: z.string().min(1),
            url: z.url(),
            eventTypes: z
              .array(z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]))
              .optional(),
          })
          .strict(),
      )
      .optional(),
    /** Listings created through the domain's createListing (pictures are not fetched). */
    listings: z
      .array(z.object({ sellerId: z.number().int(), body: z.record(z.string(), z.unknown()) }).strict())
      .optional(),
  })
  .strict();
export type SeedDocument = z.infer<typeof SeedDocument>;

export interface SeedResult {
  partners: number;
  sellers: number[];
  apiKeys: number;
  oauthClients: number;
  webhooks: number;
  listings: number[];
}

/** Validates a document; throws a 400 bad-request ApiError listing every problem. */
export function parseSeed(input: unknown, source = 'seed'): SeedDocument {
  return parseInput(SeedDocument, input, source);
}

export async function readSeedFile(path: string): Promise<SeedDocument> {
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`seed file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  return parseSeed(json, `seed file ${path}`);
}

/** Applies a validated document to the world, in order: partners, sellers, keys, clients, webhooks, listings. */
export async function applySeed(
  world: World,
  config: SimulatorConfig,
  doc: SeedDocument,
): Promise<SeedResult> {
  const result: SeedResult = {
    partners: 0,
    sellers: [],
    apiKeys: 0,
    oauthClients: 0,
    webhooks: 0,
    listings: [],
  };
  for (const p of doc.partners ?? []) {
    const partner = ensurePartner(world, p.id, p.webhookSecret);
    if (p.accessDenied !== undefined) partner.accessDenied = p.accessDenied;
    result.partners++;
  }
  for (const s of doc.sellers ?? []) {
    const seller = createSeller(world, s);
    for (const { providers, ...address } of s.addresses ?? []) addAddress(world, seller, address, providers);
    result.sellers.push(seller.id);
  }
  for (const k of doc.apiKeys ?? []) {
    if (world.apiKeys.has(k.key)) throw new Error(`API key ${k.key.slice(0, 8)}… already exists`);
    createApiKey(world, k.partnerId, k.sellerId, k.key);
    result.apiKeys++;
  }
  for (const c of doc.oauthClients ?? []) {
    createOAuthClient(world, c.partnerId, c.redirectUris, c.clientId, c.clientSecret);
    result.oauthClients++;
  }
  for (const w of doc.webhooks ?? []) {
    ensurePartner(world, w.partnerId);
    const id = `wh_${randomUUID()}`;
    world.webhooks.set(id, {
      id,
      partnerId: w.partnerId,
      url: w.url,
      eventTypes: w.eventTypes ?? [...WEBHOOK_EVENT_TYPES],
      createdAt: world.clock.now(),
    });
    result.webhooks++;
  }
  if (doc.listings?.length) {
    for (const l of doc.listings) {
      const seller = world.sellers.get(l.sellerId);
      if (!seller) throw new Error(`listing for unknown seller ${l.sellerId}`);
      const product = await createListing(world, config, seller, l.body as ProductCreateRequest, {
        now: world.clock.now(),
        skipPictureFetch: true,
      });
      result.listings.push(product.productId);
    }
  }
  return result;
}
