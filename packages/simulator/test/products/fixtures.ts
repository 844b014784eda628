// A valid listing body and helpers shared by the products and offers tests.
import type { Scope } from '@selling-kit/api-client/core';
import type { TestShop } from '../helpers.ts';
import { addAddress, createApiKey, createSeller } from '../../src/world.ts';

export function listing(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sku: 'TEE-1',
    address: { country_code: 'GB' },
    description: 'Vintage Nike tee, boxy fit #nike',
    price_currency: 'GBP',
    price_amount: '20.00',
    national_shipping_cost: '3.50',
    quantity: 1,
    pictures: [{ url: 'https://img.example/1.jpg' }],
    department: 'menswear',
    product_type: 'tshirts',
    size_set_id: 44,
    size_id: 18,
    condition: 'used_good',
    brand_name: 'Nike',
    ...over,
  };
}

export function putBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  const { sku: _sku, ...rest } = listing(over);
  return { attributes: {}, ...rest };
}

export async function createProduct(shop: TestShop, over: Record<string, unknown> = {}) {
  const res = await shop.call('POST', '/api/v1/products/', listing(over));
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body as { product_id: number; slug: string; sku: string | null };
}

/** The error code of a response (the service's envelope). */
export const codeOf = (res: { body: { errors?: { code: string }[] } }) => res.body.errors?.[0]?.code;

/** An OAuth access token of the test shop's seller holding exactly `scopes` (a cross-lister's token). */
export function oauthToken(shop: TestShop, scopes: Scope[]): string {
  const token = `pat_test_${scopes.join('_') || 'none'}_${++tokens}`;
  const world = shop.sim.world;
  if (!world.oauthClients.has('c-test')) {
    world.oauthClients.set('c-test', {
      clientId: 'c-test',
      clientSecret: 's',
      partnerId: 'p-oauth',
      redirectUris: [],
    });
    world.partners.set('p-oauth', { id: 'p-oauth', accessDenied: false });
  }
  world.accessTokens.set(token, {
    token,
    clientId: 'c-test',
    sellerId: shop.seller.id,
    scopes,
    expiresAt: world.clock.now() + 3_600_000,
  });
  return token;
}
let tokens = 0;

/** A second shop (seller, address and API key) in the same simulator. */
export function secondShop(shop: TestShop, username = 'other') {
  const seller = createSeller(shop.sim.world, { username });
  const address = addAddress(shop.sim.world, seller);
  const { key } = createApiKey(shop.sim.world, `partner-${username}`, seller.id);
  return { seller, key, addressId: address.id };
}
