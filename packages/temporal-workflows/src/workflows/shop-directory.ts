// The shop directory: one activity on the worker's task queue answering the names of the shops the
// worker holds credentials for (activities/shop-directory.ts). Clients that reach Temporal but not the
// worker's files — n8n's Bulk Job node, through the HTTP API — run it to list shops. Short-lived: a
// client starts it with an execution timeout, and callers at the same time share one run (its id is
// per task queue, started with the "use existing" conflict policy).
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { createShopDirectoryActivities } from '../activities/shop-directory.ts';
import { refuseInput } from './refuse.ts';

export { shopDirectoryWorkflowId } from '../contract.ts';

const { listShopNames } = proxyActivities<ReturnType<typeof createShopDirectoryActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 2 },
});

/** `shops`: the names; `unavailable`: why this worker could not list them (the list is then empty). */
export interface ShopDirectory {
  shops: string[];
  unavailable?: string;
}

// It takes no input: anything sent to it anyway is checked like every workflow's.
export async function shopDirectoryWorkflow(...input: unknown[]): Promise<ShopDirectory> {
  refuseInput(...input);
  try {
    return { shops: await listShopNames() };
  } catch (error) {
    // A worker that cannot list its shops answers why, as a result the caller reads like any other.
    const cause = error instanceof ActivityFailure ? error.cause : error;
    if (cause instanceof ApplicationFailure) return { shops: [], unavailable: cause.message };
    throw error;
  }
}
