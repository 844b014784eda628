// `@selling-kit/temporal-workflows`: the client side — start, follow and control jobs, schedules, the
// codec, the token stores, the webhook flows. It never loads @temporalio/worker (test/entry-points.test.ts):
// the worker is `@selling-kit/temporal-workflows/worker` (worker-entry.ts), the names and ids every side
// shares are `@selling-kit/temporal-workflows/contract` (contract.ts, re-exported here).
export * from './contract.ts';
export * from './client/client.ts';
export * from './stores/credentials-file.ts';
export * from './client/connection-config.ts';
export type * from './types.ts';
export * from './codec/codec.ts';
export * from './codec/codec-server.ts';
export * from './auth/payload-auth.ts';
export * from './auth/client-keys.ts';
export * from './auth/client-keyring.ts';
export { KEYRING_REFRESH_MS } from './auth/client-keys-watch.ts';
export * from './auth/payload-checks.ts';
export * from './auth/token-store-key.ts';
export * from './auth/worker-auth.ts';
export * from './codec/data-converter.ts';
export * from './client/schedules.ts';
export * from './search-attributes.ts';
export * from './stores/token-store.ts';
export * from './stores/token-store-pg.ts';
export * from './stores/token-store-open.ts';
export * from './worker/worker-tuning.ts';
export * from './observability/metric-names.ts';
export * from './observability/tracing.ts';
export { DEFAULT_ALLOWANCES } from './workflows/pacing.ts';
export type { Credential, CredentialStore, SellerTokens, ShopNames, TokenStore } from './activities/index.ts';
export {
  pauseUpdate,
  resumeUpdate,
  cancelUpdate,
  progressQuery,
  bulkListingWorkflow,
  multiShopJobWorkflow,
  shopDirectoryWorkflow,
} from './workflows/index.ts';
export type { ShopDirectory } from './workflows/index.ts';
export { listWorkerShops } from './client/shop-directory.ts';
export * from './client/shop-check-client.ts';
// What the CLI checks before it starts a job, with the worker's reader and rules.
export { checkFeed as checkFeedFile } from './activities/feed.ts';
export { printable, redactSource } from './activities/feed-source.ts';
// Webhook-driven flows: delist on sale, offers to likers, and their receiver.
export * from './webhooks/webhook-receiver.ts';
export * from './webhooks/webhook-flows.ts';
export * from './webhooks/sku-map.ts';
export type * from './webhooks/sales-types.ts';
export {
  delistOnSaleWorkflow,
  reconcileSalesWorkflow,
  likerOffersWorkflow,
  likerOffersStateQuery,
  likeSignal,
} from './workflows/index.ts';
export * from './client/orders-client.ts';
export type * from './webhooks/order-types.ts';
export { DEFAULT_ORDER_REMINDERS, orderInputProblem } from './workflows/order-plan.ts';
