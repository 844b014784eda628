// The simulator tests' shared set-up, in one place: the shop a test file or a test runs against, a valid
// listing (the package's `validListing` with this suite's SKU and sizes), products and orders put straight
// into the world, other shops and OAuth tokens, and assertions on wire schemas and error envelopes.
// Plumbing (starting a simulator, calling it) is in ./helpers.ts.
import { randomBytes } from 'node:crypto';
import type { z } from 'zod/v4';
import { ErrorEnvelope, type Scope } from '@selling-kit/api-client/core';
import { createApiKey, createOAuthClient, createSeller, type NewSeller } from '../src/world.ts';
import { createOrder } from '../src/domain/orders.ts';
import { validListing } from '../src/testing.ts';
import type { OrderRecord, ProductRecord, SellerState, World } from '../src/state.ts';
import type { StartSimulatorOptions } from '../src/index.ts';
import { startTestShop, type CallResult, type TestShop } from './helpers.ts';

// --- the shop under test -------------------------------------------------------------------------------

/**
 * One shop for the whole file: started before the first test, closed after the last. The returned object
 * is filled in when the file starts, so read its fields inside tests and hooks. `beforeEachTest` puts back
 * what tests change (cleared lists, reset webhook logs).
 */
export function testShopPerFile(
  options: StartSimulatorOptions = {},
  beforeEachTest?: (shop: TestShop) => void | Promise<void>,
): TestShop {
  const shop = {} as TestShop;
  beforeAll(async () => {
    Object.assign(shop, await startTestShop(options));
  });
  afterAll(() => shop.sim.close());
  if (beforeEachTest) beforeEach(() => beforeEachTest(shop));
  return shop;
}

/** A fresh shop for every test (started before it, closed after it); read its fields inside tests. */
export function testShopPerTest(options: StartSimulatorOptions = {}): TestShop {
  const shop = {} as TestShop;
  beforeEach(async () => {
    Object.assign(shop, await startTestShop(options));
  });
  afterEach(() => shop.sim.close());
  return shop;
}

// --- listings through the API --------------------------------------------------------------------------

/** A create body every rule accepts: SKU TEE-1, a Nike tee in size set 44; override any field. */
export function listing(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...validListing({
      sku: 'TEE-1',
      description: 'Vintage Nike tee, boxy fit #nike',
      pictures: [{ url: 'https://img.example/1.jpg' }],
      size_set_id: 44,
      size_id: 18,
    }),
    ...over,
  };
}

/** The same listing as a full update (PUT) body: no SKU, attributes present. */
export function putBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  const { sku: _sku, ...rest } = listing(over);
  return { attributes: {}, ...rest };
}

export async function createProduct(shop: TestShop, over: Record<string, unknown> = {}) {
  const res = await shop.call('POST', '/api/v1/products/', listing(over));
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body as { product_id: number; slug: string; sku: string | null };
}

// --- products and orders straight into the world ---------------------------------------------------------

export interface ProductInput {
  /** Default: the world's next product id. */
  productId?: number;
  sku?: string | null;
  state?: ProductRecord['state'];
  quantity?: number;
  isBoosted?: boolean;
  brand?: string;
  likes?: number[];
  bagCount?: number;
  visibleAt?: number;
  fields?: Record<string, unknown>;
  pictures?: ProductRecord['pictures'];
}

/** Puts a product straight into the seller's shop (defaults: GBP/seller currency 25.00, manual 3.50). */
export function addProduct(world: World, seller: SellerState, input: ProductInput = {}): ProductRecord {
  const now = world.clock.now();
  const productId = input.productId ?? ++world.ids.product;
  const slug = `test-item-${productId}`;
  const sku = input.sku === undefined ? `SKU-${productId}` : input.sku;
  const product: ProductRecord = {
    productId,
    sellerId: seller.id,
    sku,
    slug,
    state: input.state ?? 'selling',
    fields: {
      description: `Test item ${productId} #vintage`,
      price_amount: '25.00',
      price_currency: seller.currency,
      national_shipping_cost: '3.50',
      department: 'menswear',
      product_type: 'tshirts',
      condition: 'used_good',
      brand_name: input.brand ?? 'Nike',
      ...input.fields,
    },
    brand: input.brand ?? 'Nike',
    pictures: input.pictures ?? [
      { url: `https://media.example.test/${productId}.jpg`, width: 1280, height: 1280 },
    ],
    quantity: input.quantity ?? 1,
    isBoosted: input.isBoosted ?? false,
    createdAt: now,
    updatedAt: now,
    visibleAt: input.visibleAt ?? now,
    likes: new Set(input.likes ?? []),
    bagCount: input.bagCount ?? 0,
  };
  if (input.fields && 'depop_shipping' in input.fields) delete product.fields.national_shipping_cost;
  seller.products.set(productId, product);
  if (sku) seller.skus.set(sku, productId);
  seller.slugs.set(slug, productId);
  return product;
}

/**
 * A product's platform shipping (`fields.depop_shipping`) from one of the seller's addresses: a label of
 * `provider`'s `parcelSize`, paid by `payer`.
 */
export function platformShipping(
  addressId: number,
  payer: 'buyer' | 'seller',
  provider = 'ROYAL_MAIL',
  parcelSize = 'SMALL',
) {
  return {
    depop_shipping: {
      address_id: addressId,
      shipping_provider_id: provider,
      parcel_size_id: parcelSize,
      payer,
    },
  };
}

/** A test buyer buys the products (through the domain, as the admin surface and purchase/ do). */
export function purchase(
  shop: TestShop,
  productIds: number[],
  seller: SellerState = shop.seller,
): OrderRecord {
  const world = shop.sim.world;
  return createOrder(world, seller, productIds, { now: world.clock.now(), events: shop.sim.webhooks });
}

/** Lists one product and sells it: the quickest way to an order. */
export function newOrder(
  shop: TestShop,
  input: ProductInput = {},
  seller: SellerState = shop.seller,
): OrderRecord {
  const product = addProduct(shop.sim.world, seller, input);
  return purchase(shop, [product.productId], seller);
}

// --- other credentials ------------------------------------------------------------------------------------

/**
 * Another shop with its own API key and no address (partner defaults to a fresh id). For one with an
 * address, use the package's `addShop`.
 */
export function otherShop(
  shop: TestShop,
  partnerId = `partner-${randomBytes(4).toString('hex')}`,
  input: NewSeller = {},
): { seller: SellerState; apiKey: string; partnerId: string } {
  const seller = createSeller(shop.sim.world, input);
  const { key } = createApiKey(shop.sim.world, partnerId, seller.id);
  return { seller, apiKey: key, partnerId };
}

/** An OAuth access token of the test shop's seller holding exactly `scopes` (a cross-lister's token). */
export function oauthToken(shop: TestShop, scopes: Scope[], partnerId = 'partner-oauth'): string {
  const world = shop.sim.world;
  const client = createOAuthClient(world, partnerId, ['http://127.0.0.1/callback']);
  const token = `pat_${randomBytes(20).toString('hex')}`;
  world.accessTokens.set(token, {
    token,
    clientId: client.clientId,
    sellerId: shop.seller.id,
    scopes,
    expiresAt: world.clock.now() + 3_600_000,
  });
  return token;
}

// --- assertions -------------------------------------------------------------------------------------------

/** The error code of a response (the service's envelope). */
export const codeOf = (res: { body: { errors?: { code: string }[] } }) => res.body.errors?.[0]?.code;

/** Asserts that a body parses with a core schema; on failure the issues are shown. */
export function expectSchema<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  expect(result.success ? [] : result.error.issues).toEqual([]);
  return result.data as z.infer<T>;
}

/** Asserts the service's error envelope with this status and code; returns the message. */
export function expectError(res: CallResult, status: number, code: string): string {
  expect({ status: res.status, code: res.body?.errors?.[0]?.code }).toEqual({ status, code });
  expectSchema(ErrorEnvelope, res.body);
  return res.body.errors[0].message as string;
}
