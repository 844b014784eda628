export * from './client.ts';
export * from './worker.ts';
export * from './connection-config.ts';
export type * from './types.ts';
export * from './codec.ts';
export * from './codec-server.ts';
export * from './data-converter.ts';
export * from './schedules.ts';
export * from './search-attributes.ts';
export * from './token-store.ts';
export * from './token-store-pg.ts';
export * from './token-store-open.ts';
export * from './worker-tuning.ts';
export * from './metrics.ts';
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
  shopDirectoryWorkflowId,
} from './workflows/index.ts';
export type { ShopDirectory } from './workflows/index.ts';
export { listWorkerShops } from './shop-directory.ts';
export { INLINE_FEED_MAX_BYTES } from './activities/snapshot.ts';
// What the CLI checks before it starts a job, with the worker's reader and rules.
export { checkFeed as checkFeedFile } from './activities/feed.ts';
export { printable, redactSource } from './activities/feed-source.ts';
export { reportPath } from './activities/index.ts';
// Webhook-driven flows: delist on sale, offers to likers, and their receiver.
export * from './webhook-receiver.ts';
export * from './webhook-flows.ts';
export * from './sku-map.ts';
export type * from './sales-types.ts';
export {
  delistOnSaleWorkflow,
  delistWorkflowId,
  reconcileSalesWorkflow,
  likerOffersWorkflow,
  likerOffersWorkflowId,
  likerOffersStateQuery,
  likeSignal,
} from './workflows/index.ts';
