// Creating and seeding the world: partners, sellers (shops), API keys, OAuth clients, addresses.
// Used by the admin surface, the demo seed and tests.
import { randomBytes } from 'node:crypto';
import { LISTING_MARKETS, type SellerAddress } from '@selling-kit/api-client/core';
import type { Clock } from './platform/clock.ts';
import { defaultProvidersFor } from './domain/shipping.ts';
import type {
  AccessTokenRecord,
  ApiKeyRecord,
  OAuthClientRecord,
  PartnerState,
  SellerProfile,
  SellerState,
  World,
} from './state.ts';

/**
 * Where a world's purchase ids start. The service never reuses a purchase id, and consumers keep them
 * past a simulator's life (a Temporal server's delist workflows are keyed by order, and `selling-kit dev`
 * keeps its Temporal data between runs while its simulator starts afresh): so each world numbers its
 * orders from a base taken from the wall clock (10,000 ids per second), never the ids of an earlier run.
 */
function firstPurchaseId(): number {
  return 434_000_000_000 + (Math.floor(Date.now() / 1000) % 10_000_000) * 10_000;
}

export function createWorld(clock: Clock): World {
  return {
    clock,
    partners: new Map(),
    sellers: new Map(),
    apiKeys: new Map(),
    oauthClients: new Map(),
    authCodes: new Map(),
    accessTokens: new Map(),
    refreshTokens: new Map(),
    webhooks: new Map(),
    deletedWebhooks: new Map(),
    ids: { product: 7_000_000, seller: 1000, address: 500, order: firstPurchaseId(), lineItem: 90_000 },
  };
}

/** Empties the world in place (the object and its clock stay, so references held by tests remain valid). */
export function resetWorld(world: World): void {
  const fresh = createWorld(world.clock);
  world.partners.clear();
  world.sellers.clear();
  world.apiKeys.clear();
  world.oauthClients.clear();
  world.authCodes.clear();
  world.accessTokens.clear();
  world.refreshTokens.clear();
  world.webhooks.clear();
  world.deletedWebhooks.clear();
  world.ids = fresh.ids;
}

export function ensurePartner(world: World, partnerId: string, webhookSecret?: string): PartnerState {
  let partner = world.partners.get(partnerId);
  if (!partner) {
    partner = { id: partnerId, accessDenied: false, webhookSecret: webhookSecret ?? newSecret('whsec_', 24) };
    world.partners.set(partnerId, partner);
  } else if (webhookSecret) {
    partner.webhookSecret = webhookSecret;
  }
  return partner;
}

export interface NewSeller {
  id?: number;
  username?: string;
  countryCode?: string;
  currency?: string;
  profile?: Partial<SellerProfile>;
}

const CURRENCY_BY_COUNTRY: Record<string, string> = LISTING_MARKETS;

export function createSeller(world: World, input: NewSeller = {}): SellerState {
  const id = input.id ?? ++world.ids.seller;
  if (world.sellers.has(id)) throw new Error(`seller ${id} already exists`);
  world.ids.seller = Math.max(world.ids.seller, id);
  const countryCode = input.countryCode ?? 'GB';
  const seller: SellerState = {
    id,
    username: input.username ?? `seller${id}`,
    countryCode,
    currency: input.currency ?? CURRENCY_BY_COUNTRY[countryCode] ?? 'GBP',
    profile: {
      onboardingIncomplete: false,
      manualShippingAllowed: true,
      unsupportedCountry: false,
      ...input.profile,
    },
    addresses: [],
    shippingProviders: new Map(),
    products: new Map(),
    skus: new Map(),
    slugs: new Map(),
    offers: [],
    orders: new Map(),
    ratingAverage: 4.8,
    ratingCount: 0,
  };
  world.sellers.set(id, seller);
  return seller;
}

export function addAddress(
  world: World,
  seller: SellerState,
  input: Partial<SellerAddress> = {},
  /** Default: the catalogued carriers of the address's country (domain/shipping.ts). */
  providers?: string[],
) {
  const address: SellerAddress = {
    id: input.id ?? ++world.ids.address,
    name: input.name ?? seller.username,
    address: input.address ?? '1 Market Street',
    address2: input.address2 ?? null,
    city: input.city ?? 'London',
    state: input.state ?? 'London',
    postal_code: input.postal_code ?? 'E1 6AN',
    country: input.country ?? seller.countryCode,
    last_modified: input.last_modified ?? new Date(world.clock.now()).toISOString(),
  };
  seller.addresses.push(address);
  seller.shippingProviders.set(address.id, providers ?? defaultProvidersFor(address.country));
  return address;
}

export function newSecret(prefix: string, bytes = 20): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}

export function createApiKey(
  world: World,
  partnerId: string,
  sellerId: number,
  key = newSecret('pak_'),
): ApiKeyRecord {
  ensurePartner(world, partnerId);
  if (!world.sellers.has(sellerId)) throw new Error(`seller ${sellerId} does not exist`);
  const record = { key, partnerId, sellerId };
  world.apiKeys.set(key, record);
  return record;
}

export function createOAuthClient(
  world: World,
  partnerId: string,
  redirectUris: string[],
  clientId = newSecret('client_', 8),
  clientSecret = newSecret('secret_', 16),
): OAuthClientRecord {
  ensurePartner(world, partnerId);
  const record = { clientId, clientSecret, partnerId, redirectUris };
  world.oauthClients.set(clientId, record);
  return record;
}

/**
 * An access token and a refresh token granted to an OAuth client for a seller: what the token endpoint
 * issues, and what tests and benches seed a world with (a seller already connected).
 */
export function grantTokens(
  world: World,
  grant: {
    clientId: string;
    sellerId: number;
    scopes: AccessTokenRecord['scopes'];
    accessExpiresAt: number;
    refreshExpiresAt: number;
  },
): { accessToken: string; refreshToken: string } {
  const { clientId, sellerId, scopes } = grant;
  const accessToken = newSecret('pat_');
  const refreshToken = newSecret('prt_');
  world.accessTokens.set(accessToken, {
    token: accessToken,
    clientId,
    sellerId,
    scopes,
    expiresAt: grant.accessExpiresAt,
  });
  world.refreshTokens.set(refreshToken, {
    token: refreshToken,
    clientId,
    sellerId,
    scopes,
    used: false,
    expiresAt: grant.refreshExpiresAt,
  });
  return { accessToken, refreshToken };
}
