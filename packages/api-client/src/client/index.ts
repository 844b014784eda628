// The transport-free client runtime (n8n-safe): build it with your own `transport` and `sleep`.
// Node users import the package root instead, which wires undici (got on request) and timers.
export * from '../core/index.ts';
export { SellingClient, CLIENT_VERSION } from './client.ts';
export type {
  SellingClientOptions,
  OAuthClientOptions,
  VerifyCreateOptions,
  RawRequest,
  ClientContext,
} from './client.ts';
export { ApiKeyAuth, OAuthTokenProvider } from './credentials.ts';
export type { AuthProvider, OAuthTokenProviderOptions, RefreshFunction } from './credentials.ts';
export { SlidingWindowPacer } from './pacing.ts';
export type { Pacer, PacingKey, PacingOptions } from './pacing.ts';
export { backoffDelay, backoffCeiling, DEFAULT_RETRY } from './backoff.ts';
export type { RetryOptions } from './backoff.ts';
export { PageIterator } from './pagination.ts';
export type { FetchPage } from './pagination.ts';
export { Requester } from './requester.ts';
export type { RequestOptions, Call, VerifyContext, VerifyOutcome } from './requester.ts';
export { jsonLineLogger } from './logging.ts';
export type * from './logging.ts';
export type { ProductRef } from './product-ref.ts';
export { ProductsResource } from './resources/products.ts';
export type { CreateOptions, ProductListParams } from './resources/products.ts';
export { OffersResource } from './resources/offers.ts';
export type { AutoOffers } from './resources/offers.ts';
export { OrdersResource } from './resources/orders.ts';
export type { OrderListParams } from './resources/orders.ts';
export { RefundsResource } from './resources/refunds.ts';
export { ShippingResource } from './resources/shipping.ts';
export { ShopResource } from './resources/shop.ts';
export { InsightsResource } from './resources/insights.ts';
export { PricingResource } from './resources/pricing.ts';
export { WebhooksResource } from './resources/webhooks.ts';
export { AuthResource } from './resources/auth.ts';
