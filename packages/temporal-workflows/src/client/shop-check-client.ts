// Asking the worker about a shop before a job (issue 27 §6): a client host holds no shop secret, so the
// check that a shop's key works runs where the key is (workflows/shop-check.ts). `selling-kit bulk` calls
// it for every shop it names; an answer of `ok: false` says why in words (code, message), a task queue no
// worker serves says that instead of hanging.
import type { Client } from '@temporalio/client';
import { innermostMessage, runOnWorker } from './on-worker.ts';
import type { Duration } from '@temporalio/common';
import { shopCheckWorkflowId, type ShopCheckInput, type ShopCheckResult } from '../contract.ts';
import { shopCheckWorkflow } from '../workflows/shop-check.ts';

/** How long a check may wait for a worker and the API's answer. */
export const SHOP_CHECK_TIMEOUT: Duration = '45 seconds';

/** No worker answered, or the worker refused the question (another client key's shop). */
export class ShopCheckError extends Error {
  readonly reason: 'no_worker' | 'refused';
  constructor(message: string, reason: 'no_worker' | 'refused') {
    super(message);
    this.name = 'ShopCheckError';
    this.reason = reason;
  }
}

export async function checkShop(
  client: Client,
  input: ShopCheckInput,
  opts: { taskQueue?: string; timeout?: Duration } = {},
): Promise<ShopCheckResult> {
  return runOnWorker(
    client,
    shopCheckWorkflow,
    {
      task: `checked shop "${input.shopId}"`,
      workflowId: (suffix) => shopCheckWorkflowId(input.shopId, suffix),
      args: [input],
      taskQueue: opts.taskQueue,
      timeout: opts.timeout ?? SHOP_CHECK_TIMEOUT,
    },
    {
      noWorker: (message) => new ShopCheckError(message, 'no_worker'),
      failed: (e) =>
        new ShopCheckError(
          `the worker refused to check shop "${input.shopId}": ${innermostMessage(e)}`,
          'refused',
        ),
    },
  );
}
