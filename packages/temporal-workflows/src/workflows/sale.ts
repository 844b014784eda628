// A sale elsewhere: mark the listing sold NOW. It never waits behind bulk work: it is its own short
// workflow (id `sale:<shopId>:<key>`, so a repeated call joins the one in flight), its request uses the
// general group's reserve that bulk lanes leave free (DEFAULT_ALLOWANCES), and it asks no lane. A 429
// waits its Retry-After, 5xx and timeouts retry with backoff, a 4xx fails at once, visibly, with its code
// and error id.
// Fast path: the request is a local activity, answered inside the sale's first workflow task, so a sale
// is one workflow task instead of two tasks and an activity (three fewer trips through a busy worker's
// task queues). Whatever that one attempt cannot settle goes to the durable activity, whose retries the
// server keeps and shows.
import {
  ActivityFailure,
  ApplicationFailure,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import type { Activities } from '../activities/index.ts';
import type { SaleInput, SaleResult } from '../types.ts';
import { refuseInput } from './refuse.ts';
import { SALE_ACTIVITY } from './retry-policies.ts';

/** The durable path (every sale before SALE_LOCAL_FIRST, and what the local attempt hands over). */
const { markSold } = proxyActivities<Activities>(SALE_ACTIVITY);

/**
 * One attempt in the worker that runs the sale's workflow task. Its timeout keeps that task short: a
 * slower request is abandoned (its signal aborts it) and the durable activity takes over.
 */
const { markSold: markSoldLocally } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

/** Runs started before this patch replay their activity; new runs try the local attempt first. */
const SALE_LOCAL_FIRST = 'sale-local-first';

/**
 * History length at a run's first workflow task (started, task scheduled, task started). Longer there:
 * an earlier task failed or timed out, and its local attempt may have marked the listing sold.
 */
const FIRST_TASK_HISTORY_LENGTH = 3;

export { saleWorkflowId } from '../contract.ts';

export async function saleWorkflow(input: SaleInput): Promise<SaleResult> {
  refuseInput(input);
  try {
    if (!patched(SALE_LOCAL_FIRST)) return await markSold(input.shop, input.ref);
    return await localFirst(input);
  } catch (error) {
    const cause = failureOf(error);
    if (cause instanceof ApplicationFailure) {
      const details = (cause.details?.[0] ?? {}) as { code?: string; errorId?: string };
      throw ApplicationFailure.create({
        message: `mark-as-sold failed: ${cause.message}`,
        type: details.code ?? cause.type ?? 'SaleFailed',
        nonRetryable: true,
        details: [details],
      });
    }
    throw error;
  }
}

/**
 * The local attempt settles the sale when the API answered it: sold, or refused (a 4xx but 429). A 429,
 * a 5xx, a timeout or a failure before any request goes to the durable activity (a 429 after its
 * Retry-After), which counts "not on sale" as sold: the local attempt's request may have landed. Its
 * `attempts` count the local one.
 */
async function localFirst(input: SaleInput): Promise<SaleResult> {
  const afterUnknownAttempt = workflowInfo().historyLength > FIRST_TASK_HISTORY_LENGTH;
  try {
    return await markSoldLocally(input.shop, input.ref, { afterUnknownAttempt });
  } catch (error) {
    const cause = failureOf(error);
    const details = (cause instanceof ApplicationFailure ? cause.details?.[0] : undefined) as
      { status?: number; retryAfter?: Duration } | undefined;
    const refused =
      cause instanceof ApplicationFailure && cause.nonRetryable && details?.status !== undefined;
    if (refused) throw error;
    if (details?.retryAfter !== undefined) await sleep(details.retryAfter);
    const durable = await markSold(input.shop, input.ref, { afterUnknownAttempt: true });
    return { ...durable, attempts: durable.attempts + 1 };
  }
}

const failureOf = (error: unknown) => (error instanceof ActivityFailure ? error.cause : error);
