// `@selling-kit/temporal-workflows`: the client side — start, follow and control jobs, schedules, the
// codec, the token stores, the webhook flows. It never loads @temporalio/worker (test/entry-points.test.ts):
// the worker is `@selling-kit/temporal-workflows/worker` (worker-entry.ts), the names and ids every side
// shares are `@selling-kit/temporal-workflows/contract` (contract.ts, re-exported here).
export * from './contract.ts';
export * from './client.ts';
export * from './credentials-file.ts';
export * from './connection-config.ts';
export type * from './types.ts';
export * from './codec.ts';
export * from './codec-server.ts';
export * from './auth/payload-auth.ts';
export * from './auth/client-keys.ts';
export * from './auth/client-keyring.ts';
export { KEYRING_REFRESH_MS } from './auth/client-keys-watch.ts';
export * from './auth/payload-checks.ts';
export * from './auth/token-store-key.ts';
export * from './auth/worker-auth.ts';
export * from './data-converter.ts';
export * from './schedules.ts';
export * from './search-attributes.ts';
export * from './token-store.ts';
export * from './token-store-pg.ts';
export * from './token-store-open.ts';
export * from './worker-tuning.ts';
export * from './metric-names.ts';
export * from './tracing.ts';
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
export { listWorkerShops } from './shop-directory.ts';
export * from './shop-check-client.ts';
// What the CLI checks before it starts a job, with the worker's reader and rules.
export { checkFeed as checkFeedFile } from './activities/feed.ts';
export { printable, redactSource } from './activities/feed-source.ts';
// Webhook-driven flows: delist on sale, offers to likers, and their receiver.
export * from './webhook-receiver.ts';
export * from './webhook-flows.ts';
export * from './sku-map.ts';
export type * from './sales-types.ts';
export {
  delistOnSaleWorkflow,
  reconcileSalesWorkflow,
  likerOffersWorkflow,
  likerOffersStateQuery,
  likeSignal,
} from './workflows/index.ts';
