// Integration set-up: a simulator on 127.0.0.1 with one shop (seller, API key, address) and a client
// over real HTTP, plus listing bodies and admin helpers.
import {
  createSeller,
  createApiKey,
  createOAuthClient,
  type RunningSimulator,
  type SimulatorConfigOverrides,
  type StartSimulatorOptions,
  type FaultRuleInput,
} from '@selling-kit/simulator';
import { startShop as startSimulatorShop, validListing } from '@selling-kit/simulator/testing';
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
  const { client: clientOptions, ...start } = options;
  const {
    sim,
    seller,
    apiKey: key,
    address,
  } = await startSimulatorShop({
    ...start,
    shop: { username: 'client-test-shop', partnerId: 'partner-client-test', countryCode: 'GB' },
  });
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

/**
 * One shop for the whole test file: started before its first test, closed after its last, its fault
 * rules cleared after each test. The object is filled in when the file starts: read its fields inside
 * tests and hooks.
 */
export function shopPerFile(options: Parameters<typeof startShop>[0] = {}): SimShop {
  const shop = {} as SimShop;
  beforeAll(async () => {
    Object.assign(shop, await startShop(options));
  });
  afterAll(() => shop.close());
  afterEach(() => shop.sim.faults.clear());
  return shop;
}

let counter = 0;
export function uniqueSku(prefix = 'SKU'): string {
  return `${prefix}-${Date.now().toString(36)}-${++counter}`;
}

/** A valid create body (manual national shipping, one picture). */
export function listing(overrides: Partial<ProductCreateRequest> = {}): ProductCreateRequest {
  return validListing({
    sku: uniqueSku(),
    description: 'Vintage Nike tee in great condition #nike',
    price_amount: '25.00',
    pictures: [{ url: 'https://images.example.com/tee-1.jpg' }],
    ...overrides,
  });
}

export function putBody(overrides: Partial<ProductPutRequest> = {}): ProductPutRequest {
  const { sku: _sku, ...rest } = listing();
  return { ...rest, attributes: {}, ...overrides };
}

export { createOAuthClient, createSeller, createApiKey };
