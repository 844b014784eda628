// What every probe works with: the typed client (for requests it can express), raw requests through the
// same transport (for what it would never send: unparseable JSON, a bad key, a burst past the rate
// limit), the run's SKU ledger, the test-listing template, and the webhook receiver when there is one.
//
// The client is set up to observe, not to smooth over: no local validation (the service decides), strict
// response schemas (a 2xx whose body breaks our schema is a finding), no silent read-after-create retries
// (the probe retries and counts), and few retries.
import {
  createClient,
  createUndiciTransport,
  matchOperation,
  nodeSleep,
  SellingApiError,
  TransportError,
  type HttpMethod,
  type Product,
  type ProductCreateOrUpdateResponse,
  type ProductPutRequest,
  type RequestOptions,
  type SellingClient,
  type Transport,
  type TransportResponse,
} from '@selling-kit/api-client';
import type { Ledger } from './ledger.ts';
import { createBody, type ListingTemplate } from './listing.ts';
import { isSuccess, type Reply } from './probe.ts';
import type { Receiver } from './receiver.ts';

export interface ProbeSettings {
  /** `--probe-rate-limit`: exhaust the create/full-update allowance once. */
  probeRateLimit: boolean;
  /** How long to wait for a webhook delivery, ms. */
  webhookTimeoutMs: number;
  /**
   * Waits before each GET of a just-created listing, ms (READ_AFTER_CREATE_DELAYS_MS).
   */
  readAfterCreateDelaysMs: number[];
}

/**
 * SPEC GAP (how short is "a short delay" before a new listing can be read): ours re-reads after each
 * of these waits, 7.75 s in all, before calling a listing unreadable.
 */
export const READ_AFTER_CREATE_DELAYS_MS = [0, 250, 500, 1000, 2000, 4000];

/** A listing a probe created and later probes build on. */
export interface SharedListing {
  sku: string;
  productId: number;
  slug: string;
  /** `created_at` as the service reported it. */
  createdAt?: string;
}

export interface RawReply extends Reply {
  headers: TransportResponse['headers'];
  /** The body as text, and parsed when it is JSON. */
  text: string;
  json?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export class ProbeContext {
  readonly baseUrl: string;
  readonly client: SellingClient;
  readonly ledger: Ledger;
  readonly template: ListingTemplate;
  readonly settings: ProbeSettings;
  readonly receiver: Receiver | undefined;
  readonly webhookSecret: string | undefined;
  readonly signal: AbortSignal;
  /** Listings by label, and values later probes need (the liker id, the purchase id, the subscription). */
  readonly listings = new Map<string, SharedListing>();
  likerId: number | undefined;
  purchaseId: string | undefined;
  subscriptionId: string | undefined;
  /** When each create/full-update request went out (the rate-limit probe counts the window's own use). */
  readonly createUpdateSentAt: number[] = [];
  private readonly apiKey: string;
  private readonly transport: Transport & { close(): Promise<void> };
  private lastStatus: number | undefined;

  constructor(init: {
    baseUrl: string;
    apiKey: string;
    ledger: Ledger;
    template: ListingTemplate;
    settings: ProbeSettings;
    receiver?: Receiver;
    webhookSecret?: string;
    signal: AbortSignal;
  }) {
    this.baseUrl = init.baseUrl.replace(/\/+$/, '');
    this.apiKey = init.apiKey;
    this.ledger = init.ledger;
    this.template = init.template;
    this.settings = init.settings;
    this.receiver = init.receiver;
    this.webhookSecret = init.webhookSecret;
    this.signal = init.signal;
    const inner = createUndiciTransport({ timeoutMs: 30_000 });
    this.transport = {
      send: async (req) => {
        const op = matchOperation(req.method, new URL(req.url).pathname);
        if (op?.group === 'create_update') this.createUpdateSentAt.push(Date.now());
        const res = await inner.send(req);
        this.lastStatus = res.status;
        return res;
      },
      close: () => inner.close(),
    };
    this.client = createClient({
      baseUrl: this.baseUrl,
      apiKey: init.apiKey,
      transport: this.transport,
      validate: false,
      strictResponses: true,
      verifyCreate: { readAfterCreateWindowMs: 0 },
      retry: { maxRetries: 2 },
      timeoutMs: 30_000,
      totalTimeoutMs: 90_000,
    });
  }

  /** Removes the credential from text the service sent back. */
  scrub(text: string): string {
    return text.split(this.apiKey).join('…');
  }

  /** A typed-client call as a Reply (never throws for an answer; rethrows when the run is interrupted). */
  async call<T>(fn: (options: RequestOptions) => Promise<T>): Promise<Reply & { value?: T }> {
    this.lastStatus = undefined;
    try {
      const value = await fn({ signal: this.signal });
      return { status: this.lastStatus ?? 200, value };
    } catch (e) {
      if (this.signal.aborted) throw e;
      if (e instanceof TransportError) return { failure: `${e.kind}: ${this.scrub(e.message)}` };
      if (e instanceof SellingApiError)
        return { status: e.status, code: e.code, message: this.scrub(e.message) };
      throw e;
    }
  }

  /**
   * One request exactly as given, through the same transport, never retried. `auth`: the shop's key
   * (default), none, or another bearer value.
   */
  async raw(req: {
    method: HttpMethod;
    path: string;
    body?: string;
    auth?: 'key' | 'none' | { bearer: string };
    signal?: AbortSignal;
  }): Promise<RawReply> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const auth = req.auth ?? 'key';
    if (auth === 'key') headers.authorization = `Bearer ${this.apiKey}`;
    else if (auth !== 'none') headers.authorization = `Bearer ${auth.bearer}`;
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    let res: TransportResponse;
    try {
      res = await this.transport.send({
        method: req.method,
        url: this.baseUrl + req.path,
        headers,
        body: req.body,
        signal: req.signal ?? this.signal,
        timeoutMs: 30_000,
      });
    } catch (e) {
      if (this.signal.aborted) throw e;
      const reason = e instanceof TransportError ? `${e.kind}: ${e.message}` : String(e);
      return { failure: this.scrub(reason), headers: {}, text: '' };
    }
    let json: unknown;
    try {
      json = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      json = undefined;
    }
    const first =
      isObject(json) && Array.isArray(json.errors) && isObject(json.errors[0]) ? json.errors[0] : json;
    const ok = res.status >= 200 && res.status < 300;
    const code = !ok && isObject(first) && typeof first.code === 'string' ? first.code : undefined;
    const message = !ok && isObject(first) && typeof first.message === 'string' ? first.message : undefined;
    return {
      status: res.status,
      code,
      message: message === undefined ? undefined : this.scrub(message),
      headers: res.headers,
      text: res.body,
      json,
    };
  }

  /** POST a listing of this run (`label` names its SKU), the template plus `changes`. */
  async create(
    label: string,
    changes: Record<string, unknown> = {},
    opts: { skuLength?: number } = {},
  ): Promise<{ sku: string; reply: Reply & { value?: ProductCreateOrUpdateResponse } }> {
    const sku = this.ledger.sku(label, opts.skuLength);
    const body = createBody(this.template, sku, changes);
    const reply = await this.call((o) => this.client.products.create(body, o));
    if (isSuccess(reply)) this.ledger.existed(sku, reply.value?.product_id);
    return { sku, reply };
  }

  /** PUT by SKU (an upsert) of a SKU of this run; a 2xx records the listing as existing. */
  async upsert(
    sku: string,
    body: ProductPutRequest,
  ): Promise<Reply & { value?: ProductCreateOrUpdateResponse }> {
    const reply = await this.call((o) => this.client.products.upsertBySku(sku, body, o));
    if (isSuccess(reply)) this.ledger.existed(sku, reply.value?.product_id);
    return reply;
  }

  /**
   * GET by SKU, re-read while the service answers product_not_found (the spec: "a just-created listing
   * may need a short delay before it can be fetched").
   */
  async readBack(sku: string): Promise<{ reply: Reply & { value?: Product }; tries: number }> {
    let tries = 0;
    let reply: Reply & { value?: Product } = { failure: 'not read' };
    for (const delay of this.settings.readAfterCreateDelaysMs) {
      if (delay > 0) await nodeSleep(delay, this.signal);
      tries++;
      reply = await this.read(sku);
      if (reply.code !== 'product_not_found') break;
    }
    return { reply, tries };
  }

  /** One GET by SKU (a listing of this run found is recorded as existing). */
  async read(sku: string): Promise<Reply & { value?: Product }> {
    const reply = await this.call((o) => this.client.products.getBySku(sku, o));
    if (isSuccess(reply) && this.ledger.owns(sku)) this.ledger.existed(sku, reply.value?.product_id);
    return reply;
  }

  /** Creates a listing, reads it back, and keeps it for later probes under `label`. */
  async createShared(
    label: string,
    changes: Record<string, unknown> = {},
  ): Promise<{ reply: Reply; listing?: SharedListing; tries: number }> {
    const { sku, reply } = await this.create(label, changes);
    if (!isSuccess(reply)) return { reply, tries: 0 };
    const back = await this.readBack(sku);
    if (!isSuccess(back.reply) || !back.reply.value) return { reply: back.reply, tries: back.tries };
    const p = back.reply.value;
    const listing = { sku, productId: p.product_id, slug: p.slug, createdAt: p.created_at };
    this.listings.set(label, listing);
    return { reply: back.reply, listing, tries: back.tries };
  }

  /** A listing an earlier probe created (the runner blocks a probe whose `needs` failed). */
  listing(label: string): SharedListing {
    const listing = this.listings.get(label);
    if (!listing) throw new Error(`the "${label}" test listing was not created`);
    return listing;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
