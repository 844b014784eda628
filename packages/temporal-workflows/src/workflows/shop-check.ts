// One shop checked on whichever worker takes it (activities/shop-check.ts): a client host asks the worker,
// which holds the keys, before it starts a job. A short run per check (client.ts `checkShop` starts it with
// an execution timeout): a task queue with no worker answers "timed out", never a run left behind.
import { proxyActivities } from '@temporalio/workflow';
import type { createShopCheckActivities } from '../activities/shop-check.ts';
import type { ShopCheckInput, ShopCheckResult } from '../contract.ts';
import { refuseInput } from './refuse.ts';

export { shopCheckWorkflowId } from '../contract.ts';

const { checkShop } = proxyActivities<ReturnType<typeof createShopCheckActivities>>({
  // One request of one attempt (the client's own timeout) and its answer: a wrong base URL fails fast.
  startToCloseTimeout: '30 seconds',
  // A worker lost mid-call is tried once more elsewhere; the API's answer is the result, not a failure.
  retry: { maximumAttempts: 2 },
});

export async function shopCheckWorkflow(input: ShopCheckInput): Promise<ShopCheckResult> {
  refuseInput(input);
  return checkShop(input);
}
