// Integration set-up: a simulator on 127.0.0.1 with one shop (seller, API key, address) and a client
// over real HTTP, plus listing bodies and admin helpers.
import {
  startSimulator,
  createSeller,
  createApiKey,
  addAddress,
  createOAuthClient,
  type RunningSimulator,
  type SimulatorConfigOverrides,
  type StartSimulatorOptions,
  type FaultRuleInput,
} from '@selling-kit/simulator';
import { createClient, type ClientOptions, type LogEvent, type SellingClient } from '../../src/index.ts';
import type { ProductCreateRequest, ProductPutRequest } from '../../src/core/index.ts';

export interface SimShop {
  sim: RunningSimulator;
  client: SellingClient;
  sellerId: number;
  apiKey: string;
  addressId: number;
  events: LogEvent[];
  /** A client for this shop with other options (same simulator, same key). */
  clientWith(options: Partial<ClientOptions>): SellingClient;
  fault(rule: FaultRuleInput): void;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

export async function startShop(
  options: { config?: SimulatorConfigOverrides; client?: Partial<ClientOptions> } & Omit<
    StartSimulatorOptions,
    'config'
  > = {},
): Promise<SimShop> {
  const { config, client: clientOptions, ...start } = options;
  const sim = await startSimulator({ port: 0, ...start, config: { fetchPictures: false, ...config } });
  const seller = createSeller(sim.world, { username: 'client-test-shop', countryCode: 'GB' });
  const { key } = createApiKey(sim.world, 'partner-client-test', seller.id);
  const address = addAddress(sim.world, seller);
  const events: LogEvent[] = [];
  const clients: SellingClient[] = [];
  const clientWith = (o: Partial<ClientOptions>) => {
    const c = createClient({
      baseUrl: sim.url,
      apiKey: key,
      retry: { baseDelayMs: 20, maxDelayMs: 200 },
      verifyCreate: { delaysMs: [0, 50, 100, 200] },
      logger: (e) => events.push(e),
      ...clientOptions,
      ...o,
    });
    clients.push(c);
    return c;
  };
  const client = clientWith({});
  return {
    sim,
    client,
    sellerId: seller.id,
    apiKey: key,
    addressId: address.id,
    events,
    clientWith,
    fault: (rule) => {
      sim.faults.add(rule);
    },
    admin: async (method, path, body) => {
      const res = await fetch(sim.adminUrl + path, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await sim.close();
    },
  };
}

let counter = 0;
export function uniqueSku(prefix = 'SKU'): string {
  return `${prefix}-${Date.now().toString(36)}-${++counter}`;
}

/** A valid create body (manual national shipping, one picture). */
export function listing(overrides: Partial<ProductCreateRequest> = {}): ProductCreateRequest {
  return {
    sku: uniqueSku(),
    address: { country_code: 'GB' },
    description: 'Vintage Nike tee in great condition #nike',
    price_currency: 'GBP',
    price_amount: '25.00',
    national_shipping_cost: '3.50',
    quantity: 1,
    pictures: [{ url: 'https://images.example.com/tee-1.jpg' }],
    department: 'menswear',
    product_type: 'tshirts',
    condition: 'used_good',
    brand_name: 'Nike',
    ...overrides,
  };
}

export function putBody(overrides: Partial<ProductPutRequest> = {}): ProductPutRequest {
  const { sku: _sku, ...rest } = listing();
  return { ...rest, attributes: {}, ...overrides };
}

export { createOAuthClient, createSeller, createApiKey };
