// Activities: all I/O of the jobs, through the typed client (`createActivities(deps)`, dependencies
// injected by the worker as in the samples' activities-dependency-injection). Each concern has its own
// module; this file only composes them.
import { DEFAULT_TASK_QUEUE } from '../contract.ts';
import { createClientCache } from './clients.ts';
import type { ActivityContext, ActivityDeps } from './context.ts';
import { createFeedActivities } from './feed-activities.ts';
import { createBatchActivities } from './batch.ts';
import { createLaneActivities } from './lanes.ts';
import { createSaleActivities } from './sales.ts';
import { createDelistActivities } from './delist.ts';
import { createOrderActivities } from './orders.ts';
import { createOfferActivities } from './offers.ts';
import { createAuthActivities } from './auth.ts';
import { createReportActivities } from './report.ts';
import { createChildrenActivities } from './children.ts';
import { createJobReportActivities } from './job-report.ts';
import { createRetentionActivities } from './retention.ts';
import { createShopCheckActivities } from './shop-check.ts';
import { createShopDirectoryActivities, type ShopDirectoryDeps } from './shop-directory.ts';

export type { Credential, CredentialStore, SellerTokens, TokenStore } from './clients.ts';
export type { ActivityDeps } from './context.ts';
export type { ShopDirectoryDeps, ShopNames } from './shop-directory.ts';
export type { AcquireInput } from './lanes.ts';

/** Every activity a worker registers: the type workflows proxy them by (a type only, never bundled). */
export type Activities = ReturnType<typeof createActivities>;

export function createActivities(deps: ActivityDeps & ShopDirectoryDeps) {
  const clients = createClientCache(deps);
  deps.closers?.push(() => clients.close());
  const ctx: ActivityContext = { deps, clients, taskQueue: deps.taskQueue ?? DEFAULT_TASK_QUEUE };
  return {
    ...createFeedActivities(ctx),
    ...createBatchActivities(ctx),
    ...createLaneActivities(ctx),
    ...createSaleActivities(ctx),
    ...createDelistActivities(ctx),
    ...createOrderActivities(ctx),
    ...createOfferActivities(ctx),
    ...createAuthActivities(ctx),
    ...createReportActivities(ctx),
    ...createChildrenActivities(ctx),
    ...createJobReportActivities(ctx),
    ...createShopDirectoryActivities(deps),
    ...createRetentionActivities(ctx),
    ...createShopCheckActivities(ctx),
  };
}
