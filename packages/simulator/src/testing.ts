// Test fixtures shared by every package's tests (`@selling-kit/simulator/testing`): one valid listing,
// one shop set-up on a running simulator, one free-port finder and the headless Chromium of the n8n
// editor checks. They live here because every package's tests already start this simulator; nothing
// in the simulator itself imports this file.
// The server is loaded only by startShop(): jest's global set-ups import freePort() from here.
import type { ProductCreateRequest } from '@selling-kit/api-client/core';
import type { RunningSimulator, StartSimulatorOptions } from './index.ts';
import type { SimulatorConfigOverrides } from './config.ts';
import type { SellerState } from './state.ts';
import { addAddress, createApiKey, createSeller } from './world.ts';

/** Debian's Chromium (scripts/setup-n8n.sh installs it), for the n8n editor checks and screenshots. */
export const CHROMIUM = process.env.SELLING_KIT_CHROMIUM ?? '/usr/bin/chromium';
/** Its flags: headless, and no traffic of its own (updates, sync, background requests). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export { freePort } from './free-port.ts';

/**
 * A create body every rule accepts (manual national shipping, one picture that is never fetched when
 * the simulator runs with `fetchPictures: false`). Override any field: `validListing({ sku: 'A-1' })`.
 */
export function validListing(
  overrides: Partial<ProductCreateRequest> & { sku?: string } = {},
): ProductCreateRequest & { sku: string } {
  return {
    sku: 'SKU-1',
    address: { country_code: 'GB' },
    description: 'Vintage tee #nike',
    price_currency: 'GBP',
    price_amount: '20.00',
    national_shipping_cost: '3.50',
    quantity: 1,
    pictures: [{ url: 'https://img.example/x.jpg' }],
    department: 'menswear',
    product_type: 'tshirts',
    condition: 'used_good',
    brand_name: 'Nike',
    ...overrides,
  };
}

export interface TestShop {
  seller: SellerState;
  sellerId: number;
  address: ReturnType<typeof addAddress>;
  apiKey: string;
  /** What a worker's or a client's credential store holds for this shop. */
  credential: { baseUrl: string; apiKey: string };
}

/** A new seller on `sim` with an address and an API key of `partnerId` (default `partner-<username>`). */
export function addShop(
  sim: RunningSimulator,
  options: { username?: string; partnerId?: string; countryCode?: string } = {},
): TestShop {
  const seller = createSeller(sim.world, {
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.countryCode === undefined ? {} : { countryCode: options.countryCode }),
  });
  const address = addAddress(sim.world, seller);
  const partnerId = options.partnerId ?? `partner-${seller.username}`;
  const apiKey = createApiKey(sim.world, partnerId, seller.id).key;
  return { seller, sellerId: seller.id, address, apiKey, credential: { baseUrl: sim.url, apiKey } };
}

/**
 * A simulator on a free port (pictures never fetched, unless `config` says otherwise) with one shop;
 * `close()` stops it.
 */
export async function startShop(
  options: Omit<StartSimulatorOptions, 'config'> & {
    config?: SimulatorConfigOverrides;
    shop?: Parameters<typeof addShop>[1];
  } = {},
): Promise<TestShop & { sim: RunningSimulator; close(): Promise<void> }> {
  const { config, shop, ...start } = options;
  const { startSimulator } = await import('./index.ts');
  const sim = await startSimulator({ port: 0, ...start, config: { fetchPictures: false, ...config } });
  return { sim, ...addShop(sim, shop), close: () => sim.close() };
}

/** The data of a `v1:order.new` webhook event (the spec's order), with any field replaced. */
export function orderNewEventData(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    seller_id: 1001,
    purchase_id: 'p_1',
    status: 'PAID',
    currency: 'GBP',
    buyer_pays_amount: '12.00',
    seller_receives_amount: '10.00',
    fee_amount: '2.00',
    buyer_shipping_price: '3.00',
    buyer_address: { city: 'London', postal_code: 'E1 6AN', country: 'GB' },
    line_items: [{ product_id: 7, slug: 'demo-tee' }],
    ...overrides,
  };
}
