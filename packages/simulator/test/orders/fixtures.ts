// Fixtures for the order-side tests: products created directly in the world (no products handlers
// needed), purchases through the domain's createOrder, OAuth access tokens with chosen scopes, and
// assertions on wire schemas and error envelopes.
import { randomBytes } from 'node:crypto';
import type { z } from 'zod/v4';
import { ErrorEnvelope, type Scope } from '@selling-kit/api-client/core';
import { createApiKey, createOAuthClient, createSeller, type NewSeller } from '../../src/world.ts';
import { createOrder } from '../../src/domain/orders.ts';
import type { OrderRecord, ProductRecord, SellerState, World } from '../../src/state.ts';
import type { CallResult, TestShop } from '../helpers.ts';

export interface ProductInput {
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
  const productId = ++world.ids.product;
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

/** Another shop with its own API key (partner defaults to a fresh id). */
export function otherShop(
  shop: TestShop,
  partnerId = `partner-${randomBytes(4).toString('hex')}`,
  input: NewSeller = {},
): { seller: SellerState; apiKey: string; partnerId: string } {
  const seller = createSeller(shop.sim.world, input);
  const { key } = createApiKey(shop.sim.world, partnerId, seller.id);
  return { seller, apiKey: key, partnerId };
}

/** An OAuth access token for `sellerId` holding exactly `scopes` (made directly in the world). */
export function oauthToken(
  world: World,
  sellerId: number,
  scopes: Scope[],
  partnerId = 'partner-oauth',
): string {
  const client = createOAuthClient(world, partnerId, ['http://127.0.0.1/callback']);
  const token = `pat_${randomBytes(20).toString('hex')}`;
  world.accessTokens.set(token, {
    token,
    clientId: client.clientId,
    sellerId,
    scopes,
    expiresAt: world.clock.now() + 3_600_000,
  });
  return token;
}

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
