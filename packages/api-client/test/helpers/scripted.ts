// A scripted in-memory transport and a virtual clock, for the pure logic of the client runtime
// (retry decisions, jitter bounds, single-flight refresh, pacing) without a network.
import { SellingClient, type SellingClientOptions } from '../../src/client/index.ts';
import type { LogEvent } from '../../src/client/logging.ts';
import { RequestAbortedError } from '../../src/core/errors.ts';
import type { Transport, TransportRequest, TransportResponse } from '../../src/core/transport.ts';
import type { PricingInspirationRequest } from '../../src/core/schemas/pricing.ts';
import { validListing } from '@selling-kit/simulator/testing';

export type Reply =
  | TransportResponse
  | Error
  | ((req: TransportRequest) => TransportResponse | Error | Promise<TransportResponse | Error>);

export function json(status: number, body: unknown, headers: Record<string, string> = {}): TransportResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
  };
}

export function envelope(
  status: number,
  code: string,
  message = code,
  id = `err-${code}`,
): TransportResponse {
  return json(status, { id, errors: [{ code, message }] });
}

/** Answers from a queue (then `fallback`), recording every request. */
export class ScriptedTransport implements Transport {
  readonly requests: TransportRequest[] = [];
  private readonly queue: Reply[];
  fallback: Reply | undefined;

  constructor(replies: Reply[] = [], fallback?: Reply) {
    this.queue = [...replies];
    this.fallback = fallback;
  }

  push(...replies: Reply[]): void {
    this.queue.push(...replies);
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    this.requests.push(req);
    const next = this.queue.length ? this.queue.shift()! : this.fallback;
    if (next === undefined) throw new Error(`unscripted request ${req.method} ${req.url}`);
    const out = typeof next === 'function' ? await next(req) : next;
    if (out instanceof Error) throw out;
    return out;
  }
}

/**
 * A virtual clock: `sleep(ms)` resolves at once and moves time to (time of the call + ms), never
 * backwards, so concurrent sleepers from the same instant do not add up. Every wait is recorded.
 */
export class VirtualClock {
  time = 1_700_000_000_000;
  readonly sleeps: number[] = [];

  now = (): number => this.time;

  sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) throw new RequestAbortedError(undefined, signal.reason);
    this.sleeps.push(ms);
    const wake = this.time + ms;
    await Promise.resolve();
    this.time = Math.max(this.time, wake);
  };

  advance(ms: number): void {
    this.time += ms;
  }
}

export interface TestClient {
  client: SellingClient;
  transport: ScriptedTransport;
  clock: VirtualClock;
  events: LogEvent[];
}

export function scriptedClient(
  replies: Reply[] = [],
  options: Partial<SellingClientOptions> = {},
  fallback?: Reply,
): TestClient {
  const transport = new ScriptedTransport(replies, fallback);
  const clock = new VirtualClock();
  const events: LogEvent[] = [];
  const client = new SellingClient({
    baseUrl: 'https://api.test',
    apiKey: 'pak_test_key_0123456789abcdef',
    transport,
    sleep: clock.sleep,
    now: clock.now,
    random: () => 0.5,
    logger: (e) => events.push(e),
    ...options,
  });
  return { client, transport, clock, events };
}

export const PRODUCT = {
  sku: 'SKU-1',
  product_id: 7000001,
  slug: 'vintage-tee-7000001',
  status: 'STATUS_ONSALE',
  address: { country_code: 'GB' },
  description: 'A tee',
  price_currency: 'GBP',
  price_amount: '20.00',
  quantity: 1,
  pictures: [{ url: 'https://img.test/1.jpg', width: 100, height: 100 }],
  department: 'menswear',
  product_type: 'tshirts',
  colour: [],
  style: [],
  age: [],
  source: [],
  brand: 'Nike',
  attributes: {},
  is_boosted: false,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
};

export const CREATE_BODY = validListing({ sku: 'SKU-1', pictures: [{ url: 'https://img.test/1.jpg' }] });

/** A pricing-inspiration request the API accepts (a GB Nike tee). */
export const PRICING_REQUEST: PricingInspirationRequest = {
  description: 'Nike vintage tee',
  country: 'GB',
  currency: 'GBP',
  product_type: 'tshirts',
  department: 'menswear',
  condition: 'used_good',
  brand_name: 'Nike',
};
