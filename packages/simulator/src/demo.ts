// The demo world (`--demo`): a documented shop with a fixed API key, an address, a cross-lister OAuth
// client and a few listings whose pictures the simulator serves itself, so a newcomer can call the API
// at once. Every value here is documented in the package README. Addresses get their country's carriers
// from the shipping catalogue (domain/shipping.ts).
import type { ProductCreateRequest } from '@selling-kit/api-client/core';
import type { SimulatorConfig } from './config.ts';
import type { World } from './state.ts';
import { DEMO_ASSET_PREFIX } from './platform/assets.ts';
import { applySeed, type SeedDocument } from './platform/seed.ts';
import { createListing } from './domain/products.ts';

export const DEMO = {
  partnerId: 'demo-partner',
  sellerId: 1001,
  username: 'demo-shop',
  apiKey: 'pak_demo_selling_kit',
  webhookSecret: 'whsec_demo_selling_kit',
  /** A second shop of the same partner (US), to show that allowances and data are per shop. */
  usSellerId: 1002,
  usUsername: 'demo-shop-us',
  usApiKey: 'pak_demo_selling_kit_us',
  addressId: 501,
  usAddressId: 502,
  oauth: {
    partnerId: 'demo-crosslister',
    clientId: 'client_demo',
    clientSecret: 'secret_demo',
    redirectUris: ['http://127.0.0.1:8976/callback', 'http://localhost:8976/callback'],
  },
  skus: ['DEMO-TEE-001', 'DEMO-JEANS-002', 'DEMO-JACKET-003'],
} as const;

export function demoSeed(): SeedDocument {
  return {
    partners: [{ id: DEMO.partnerId, webhookSecret: DEMO.webhookSecret }, { id: DEMO.oauth.partnerId }],
    sellers: [
      {
        id: DEMO.sellerId,
        username: DEMO.username,
        countryCode: 'GB',
        currency: 'GBP',
        addresses: [
          {
            id: DEMO.addressId,
            name: 'Demo Shop',
            address: '1 Market Street',
            city: 'London',
            state: 'London',
            postal_code: 'E1 6AN',
            country: 'GB',
          },
        ],
      },
      {
        id: DEMO.usSellerId,
        username: DEMO.usUsername,
        countryCode: 'US',
        currency: 'USD',
        addresses: [
          {
            id: DEMO.usAddressId,
            name: 'Demo Shop US',
            address: '100 Main Street',
            city: 'Brooklyn',
            state: 'NY',
            postal_code: '11201',
            country: 'US',
          },
        ],
      },
    ],
    apiKeys: [
      { key: DEMO.apiKey, partnerId: DEMO.partnerId, sellerId: DEMO.sellerId },
      { key: DEMO.usApiKey, partnerId: DEMO.partnerId, sellerId: DEMO.usSellerId },
    ],
    oauthClients: [
      {
        clientId: DEMO.oauth.clientId,
        clientSecret: DEMO.oauth.clientSecret,
        partnerId: DEMO.oauth.partnerId,
        redirectUris: [...DEMO.oauth.redirectUris],
      },
    ],
  };
}

/**
 * The demo listings of the GB shop; picture URLs point at this simulator's /demo-assets/. With `'US'`,
 * the same items (same SKUs) cross-listed on the second shop in USD: a sale on one shop can be
 * delisted on the other (`selling-kit dev`'s delist demo).
 */
export function demoListings(baseUrl: string, country: 'GB' | 'US' = 'GB'): ProductCreateRequest[] {
  const pic = (name: string) => [{ url: `${baseUrl}${DEMO_ASSET_PREFIX}${name}` }];
  const common = {
    address: { country_code: country },
    price_currency: country === 'GB' ? 'GBP' : 'USD',
    quantity: 1,
    national_shipping_cost: country === 'GB' ? '3.50' : '5.00',
    attributes: {},
  };
  return [
    {
      ...common,
      sku: DEMO.skus[0],
      description: 'Vintage black Nike tee, boxy fit. #nike',
      price_amount: '25.00',
      pictures: pic('tee-black.png'),
      department: 'menswear',
      product_type: 'tshirts',
      condition: 'used_excellent',
      brand_name: 'Nike',
      colour: ['black'],
    },
    {
      ...common,
      sku: DEMO.skus[1],
      description: "Levi's 501 straight-leg jeans, mid wash.",
      price_amount: '40.00',
      pictures: pic('jeans-blue.png'),
      department: 'womenswear',
      product_type: 'jeans',
      condition: 'used_good',
      brand_name: "Levi's",
      colour: ['blue'],
      quantity: 2,
    },
    {
      ...common,
      sku: DEMO.skus[2],
      description: 'Carhartt work jacket, green canvas, barely worn.',
      price_amount: '80.00',
      pictures: pic('jacket-green.png'),
      department: 'menswear',
      product_type: 'jackets',
      condition: 'used_like_new',
      brand_name: 'Carhartt',
      colour: ['green'],
    },
  ] as ProductCreateRequest[];
}

export interface DemoInfo {
  partnerId: string;
  sellerId: number;
  username: string;
  apiKey: string;
  /** The second shop (US, USD), holding the same SKUs. */
  usSellerId: number;
  usApiKey: string;
  webhookSecret: string;
  oauth: { clientId: string; clientSecret: string; redirectUris: readonly string[] };
  /** Product ids of the demo listings that could be created (GB shop). */
  listings: number[];
  /** Product ids of the same items on the US shop (same SKUs, USD). */
  usListings: number[];
  /** Why listings are missing, when they are. */
  warnings: string[];
}

/** Seeds the demo world. Listing failures are reported as warnings, never fatal. */
export async function seedDemo(world: World, config: SimulatorConfig, baseUrl: string): Promise<DemoInfo> {
  await applySeed(world, config, demoSeed());
  const info: DemoInfo = {
    partnerId: DEMO.partnerId,
    sellerId: DEMO.sellerId,
    username: DEMO.username,
    apiKey: DEMO.apiKey,
    usSellerId: DEMO.usSellerId,
    usApiKey: DEMO.usApiKey,
    webhookSecret: DEMO.webhookSecret,
    oauth: {
      clientId: DEMO.oauth.clientId,
      clientSecret: DEMO.oauth.clientSecret,
      redirectUris: DEMO.oauth.redirectUris,
    },
    listings: [],
    usListings: [],
    warnings: [],
  };
  for (const [sellerId, country, ids] of [
    [DEMO.sellerId, 'GB', info.listings],
    [DEMO.usSellerId, 'US', info.usListings],
  ] as const) {
    const seller = world.sellers.get(sellerId)!;
    for (const body of demoListings(baseUrl, country)) {
      try {
        const product = await createListing(world, config, seller, body, {
          now: world.clock.now(),
          skipPictureFetch: true,
        });
        ids.push(product.productId);
      } catch (e) {
        info.warnings.push(`demo listing ${body.sku} (${country}): ${(e as Error).message}`);
      }
    }
  }
  return info;
}
