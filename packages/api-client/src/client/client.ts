// SellingClient: resources that mirror the URL tree, over one request pipeline. This file is the
// transport-free client (n8n builds it with its own transport and sleep); the Node entry
// (src/index.ts) fills in the undici transport (got on request), setTimeout and Date.now.
import { SellingApiError } from '../core/errors.ts';
import { checkBaseUrl } from '../core/base-url.ts';
import { defaultAuthorizeUrl } from '../core/oauth.ts';
import { operation, OPERATIONS, type HttpMethod, type Operation } from '../core/operations.ts';
import { matchOperation, PRODUCTION_BASE_URL, STAGING_BASE_URL, type QueryValue } from '../core/request.ts';
import { SecretScrubber } from '../core/redact.ts';
import type { StatusResponse } from '../core/schemas/auth.ts';
import type { RateGroup } from '../core/rate-limits.ts';
import type { Sleep, Transport } from '../core/transport.ts';
import type { z } from 'zod/v4';
import { DEFAULT_RETRY, type RetryOptions } from './backoff.ts';
import { ApiKeyAuth, OAuthTokenProvider, type AuthProvider } from './credentials.ts';
import type { Logger } from './logging.ts';
import { SlidingWindowPacer, type Pacer, type PacingOptions } from './pacing.ts';
import { Requester, type RequestOptions } from './requester.ts';
import { RecentlyCreated } from './product-ref.ts';
import { AuthResource } from './resources/auth.ts';
import { InsightsResource } from './resources/insights.ts';
import { OffersResource } from './resources/offers.ts';
import { OrdersResource } from './resources/orders.ts';
import { PricingResource } from './resources/pricing.ts';
import { ProductsResource } from './resources/products.ts';
import { RefundsResource } from './resources/refunds.ts';
import { ShippingResource } from './resources/shipping.ts';
import { ShopResource } from './resources/shop.ts';
import { WebhooksResource } from './resources/webhooks.ts';
import type { TokenSet } from '../core/oauth.ts';

export const CLIENT_VERSION = '0.1.0';

export interface OAuthClientOptions {
  clientId: string;
  clientSecret: string;
  /** The seller's tokens; omit for an app-level client (consent URL, code exchange, forSeller()). */
  tokens?: TokenSet;
  /** Persists rotated tokens; awaited before the new access token is used. */
  onTokens?: (tokens: TokenSet) => void | Promise<void>;
  /** The seller's id, used as its pacing key (default: one key per token provider). */
  sellerId?: string | number;
  /** Refresh this long before expiry. Default 60 000 ms. */
  refreshSkewMs?: number;
  /** Default redirect URI for the consent URL and the code exchange. */
  redirectUri?: string;
}

export interface VerifyCreateOptions {
  /**
   * Waits before each GET-by-SKU check after a create's 504/timeout, ms. The first check runs after
   * the first wait; together they should span the read-after-create delay. Default [0, 250, 500, 1000, 2000].
   * The non-zero ones also space the re-tries of a product_not_found right after a create.
   */
  delaysMs?: number[];
  /**
   * How long after a create (or a PUT by SKU) a product_not_found for its keys is re-tried, ms.
   * Default 10 000.
   */
  readAfterCreateWindowMs?: number;
}

export interface SellingClientOptions {
  /** Default https://partnerapi.depop.com (or the staging host with `environment: 'staging'`). */
  baseUrl?: string;
  environment?: 'production' | 'staging';
  /** A shop's API key (direct partners). */
  apiKey?: string;
  /** Host names allowed over plain http besides loopback (a private-network simulator; core/base-url.ts). */
  plainHttpHosts?: readonly string[];
  /** OAuth 2.0 application (cross-listers), optionally with one seller's tokens. */
  oauth?: OAuthClientOptions;
  /** Any other credential. */
  auth?: AuthProvider;
  /** Sends one attempt (see core/transport.ts). */
  transport: Transport;
  /** Waits, rejecting on abort (n8n: `sleepWithAbort`). */
  sleep: Sleep;
  /** Clock, epoch ms. Default Date.now. */
  now?: () => number;
  /** Randomness for the backoff jitter. Default Math.random. */
  random?: () => number;
  /** Per-attempt time limit, ms. Default 30 000. */
  timeoutMs?: number;
  /** Time limit of a whole call with its retries, ms. Default 120 000. */
  totalTimeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Client-side pacing (default on, with the spec's allowances); false = off; or your own Pacer. */
  pacing?: false | PacingOptions | Pacer;
  verifyCreate?: VerifyCreateOptions;
  /** Local pre-validation of every request. Default true. */
  validate?: boolean;
  /** Minimum percentage below the price for offers and auto-negotiate prices. Default 5. */
  minPercentOff?: number;
  /** Throw when a success answer does not match its schema (default: log and return it as is). */
  strictResponses?: boolean;
  logger?: Logger;
  /** Adds redacted headers and bodies to request/response log events. */
  debug?: boolean;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Consent page for createAuthorizationUrl (default from baseUrl). */
  authorizeUrl?: string;
  /** Default secret for `client.webhooks.verify()`. */
  webhookSecret?: string;
}

/** The escape hatch: any path, still with auth, pacing, retries and typed errors. */
export interface RawRequest<T = unknown> {
  method: HttpMethod;
  /** Path (and optional query string) relative to the base URL, e.g. `/api/v1/shop/`. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Rate group (default: the matching operation's, else `general`). */
  group?: RateGroup | null;
  /** Safe to repeat (default: the matching operation's, else every method but POST). */
  idempotent?: boolean;
  /** Parse the answer with this schema (lenient unless strictResponses). */
  schema?: z.ZodType<T>;
}

function isPacer(p: unknown): p is Pacer {
  return typeof p === 'object' && p !== null && typeof (p as Pacer).acquire === 'function';
}

/** What the resources use: the pipeline plus settings. */
export interface ClientContext {
  requester: Requester;
  baseUrl: string;
  authorizeUrl: string;
  oauth: OAuthClientOptions | undefined;
  verifyDelaysMs: number[];
  webhookSecret: string | undefined;
  sleep: Sleep;
  now: () => number;
  /** Keys of listings created moments ago (read-after-create re-tries). */
  recent: RecentlyCreated;
}

interface Shared {
  requester: Requester;
  options: SellingClientOptions;
}

export class SellingClient {
  readonly products: ProductsResource;
  readonly offers: OffersResource;
  readonly orders: OrdersResource;
  readonly refunds: RefundsResource;
  readonly shipping: ShippingResource;
  readonly shop: ShopResource;
  readonly insights: InsightsResource;
  readonly pricing: PricingResource;
  readonly webhooks: WebhooksResource;
  readonly auth: AuthResource;
  /** The credential in use (undefined for an app-level OAuth client). */
  readonly credential: AuthProvider | undefined;
  readonly baseUrl: string;
  private readonly ctx: ClientContext;
  private readonly options: SellingClientOptions;

  constructor(options: SellingClientOptions, shared?: Shared) {
    this.options = options;
    // Credentials never go in cleartext to a remote host (core/base-url.ts), checked before any request.
    const baseUrl = checkBaseUrl(
      options.baseUrl ?? (options.environment === 'staging' ? STAGING_BASE_URL : PRODUCTION_BASE_URL),
      options.plainHttpHosts,
    ).replace(/\/+$/, '');
    this.baseUrl = baseUrl;
    const now = options.now ?? Date.now;
    let requester: Requester;
    if (shared) {
      requester = shared.requester;
    } else {
      const scrubber = new SecretScrubber();
      const secrets = [options.oauth?.clientSecret, options.webhookSecret, options.apiKey];
      scrubber.add(() => secrets);
      const pacing = options.pacing;
      requester = new Requester(
        {
          baseUrl,
          transport: options.transport,
          sleep: options.sleep,
          now,
          random: options.random ?? Math.random,
          retry: { ...DEFAULT_RETRY, ...options.retry },
          timeoutMs: options.timeoutMs ?? 30_000,
          totalTimeoutMs: options.totalTimeoutMs ?? 120_000,
          validate: options.validate ?? true,
          ruleOptions: options.minPercentOff === undefined ? {} : { minPercentOff: options.minPercentOff },
          strictResponses: options.strictResponses ?? false,
          pacer: pacing === false ? undefined : isPacer(pacing) ? pacing : new SlidingWindowPacer(pacing),
          logger: options.logger,
          debug: options.debug ?? false,
          headers: { 'user-agent': `selling-kit-api-client/${CLIENT_VERSION}`, ...options.headers },
          scrubber,
        },
        undefined,
      );
    }
    this.ctx = {
      requester,
      baseUrl,
      authorizeUrl: options.authorizeUrl ?? defaultAuthorizeUrl(baseUrl),
      oauth: options.oauth,
      verifyDelaysMs: options.verifyCreate?.delaysMs ?? [0, 250, 500, 1000, 2000],
      webhookSecret: options.webhookSecret,
      sleep: options.sleep,
      now,
      recent: new RecentlyCreated(options.verifyCreate?.readAfterCreateWindowMs ?? 10_000),
    };
    this.auth = new AuthResource(this.ctx);
    this.credential = this.resolveCredential(options);
    this.ctx.requester = requester.withAuth(this.credential);
    this.products = new ProductsResource(this.ctx);
    this.offers = new OffersResource(this.ctx);
    this.orders = new OrdersResource(this.ctx);
    this.refunds = new RefundsResource(this.ctx);
    this.shipping = new ShippingResource(this.ctx);
    this.shop = new ShopResource(this.ctx);
    this.insights = new InsightsResource(this.ctx);
    this.pricing = new PricingResource(this.ctx);
    this.webhooks = new WebhooksResource(this.ctx);
  }

  private resolveCredential(options: SellingClientOptions): AuthProvider | undefined {
    if (options.auth) return options.auth;
    if (options.apiKey) return new ApiKeyAuth(options.apiKey);
    const oauth = options.oauth;
    if (oauth?.tokens) return this.oauthProvider(oauth.tokens, oauth);
    return undefined;
  }

  /** A token provider for one seller of this OAuth application (refreshes through this client). */
  oauthProvider(
    tokens: TokenSet,
    seller: Pick<OAuthClientOptions, 'onTokens' | 'sellerId' | 'refreshSkewMs'> = {},
  ): OAuthTokenProvider {
    const oauth = this.options.oauth;
    if (!oauth) throw new TypeError('oauthProvider needs the client to be created with `oauth`');
    const requester = this.ctx.requester;
    const provider: OAuthTokenProvider = new OAuthTokenProvider({
      tokens,
      refresh: (refreshToken) => this.auth.refresh({ refreshToken }),
      onTokens: seller.onTokens,
      refreshSkewMs: seller.refreshSkewMs ?? oauth.refreshSkewMs,
      now: this.ctx.now,
      identity: seller.sellerId !== undefined ? `seller:${seller.sellerId}` : undefined,
      app: oauth.clientId,
      onRefresh: (e) => {
        const err = e.error instanceof SellingApiError ? e.error : undefined;
        requester.emit({
          type: 'token_refresh',
          level: e.ok ? 'info' : 'error',
          identity: provider.identity,
          ok: e.ok,
          durationMs: e.durationMs,
          code: err?.code,
          errorId: err?.errorId,
        });
      },
    });
    return provider;
  }

  /** Same settings, transport and pacer (so one app-wide budget), another credential. */
  withAuth(auth: AuthProvider | { apiKey: string }): SellingClient {
    const provider = 'apiKey' in auth ? new ApiKeyAuth(auth.apiKey) : auth;
    const Ctor = this.constructor as new (o: SellingClientOptions, s: Shared) => SellingClient;
    return new Ctor(
      { ...this.options, apiKey: undefined, auth: provider },
      { requester: this.ctx.requester, options: this.options },
    );
  }

  /** A client for one connected seller of this OAuth application (shares the app-wide budget). */
  forSeller(
    seller: { tokens: TokenSet } & Pick<OAuthClientOptions, 'onTokens' | 'sellerId' | 'refreshSkewMs'>,
  ): SellingClient {
    return this.withAuth(this.oauthProvider(seller.tokens, seller));
  }

  /** Escape hatch: any endpoint, with auth, pacing, retries and typed errors. */
  request<T = unknown>(req: RawRequest<T>, options?: RequestOptions): Promise<T> {
    const [pathOnly, queryString] = req.path.split('?', 2) as [string, string | undefined];
    const known = matchOperation(req.method, pathOnly);
    const op: Operation = {
      id: known?.id ?? `request.${req.method.toLowerCase()}`,
      method: req.method,
      path: pathOnly,
      group: req.group !== undefined ? req.group : (known?.group ?? 'general'),
      scopes: known?.scopes ?? [],
      idempotent: req.idempotent ?? known?.idempotent ?? req.method !== 'POST',
      auth: known?.auth ?? 'bearer',
      response: req.schema ?? known?.response,
      summary: 'raw request',
    };
    const query: Record<string, QueryValue> = {};
    if (queryString) for (const [k, v] of new URLSearchParams(queryString)) query[k] = v;
    Object.assign(query, req.query);
    return this.ctx.requester.call<T>({
      op: { ...op, path: op.path.replace(/[{}]/g, encodeURIComponent) },
      query,
      body: req.body,
      options: { validate: false, ...options },
    });
  }

  /**
   * Closes the transport's idle connections, when it has any to close (the Node transports do). Clients
   * made with withAuth()/forSeller() share the transport: close once, when all are done.
   */
  async close(): Promise<void> {
    const transport = this.options.transport as Transport & { close?: () => unknown };
    await transport.close?.();
  }

  /** GET /status → `{ status: 'OK' }`. */
  status(options?: RequestOptions): Promise<z.infer<typeof StatusResponse>> {
    return this.ctx.requester.call({ op: operation('status.get'), options });
  }

  /** Every operation of the table (for tooling and coverage checks). */
  static readonly operations: readonly Operation[] = OPERATIONS;
}
