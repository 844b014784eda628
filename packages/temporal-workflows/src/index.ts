export * from './client.ts';
export * from './worker.ts';
export type * from './types.ts';
export * from './codec.ts';
export * from './codec-server.ts';
export * from './data-converter.ts';
export * from './schedules.ts';
export * from './search-attributes.ts';
export * from './token-store.ts';
export { DEFAULT_ALLOWANCES } from './workflows/pacing.ts';
export type { Credential, CredentialStore, SellerTokens, TokenStore } from './activities/index.ts';
export {
  pauseUpdate,
  resumeUpdate,
  cancelUpdate,
  progressQuery,
  bulkListingWorkflow,
  multiShopJobWorkflow,
} from './workflows/index.ts';
// What the CLI checks before it starts a job, with the worker's reader and rules.
export { checkFeed as checkFeedFile } from './activities/feed.ts';
export { printable, redactSource } from './activities/feed-source.ts';
export { reportPath } from './activities/index.ts';
