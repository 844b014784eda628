// One request per item, classified for the workflow: done, failed (4xx, with code and error id), rate
// limited (with Retry-After), unknown (a create that may have happened: verify first), retry (safe to
// send again), or reauthorization required.
//
// A create is in doubt after ANY failure once its request may have left (5xx, a reset, a timeout, an
// abort): the API may have committed it, so it is verified by SKU before it is ever sent again — never
// re-POSTed blind, never reported failed on a duplicate-SKU answer to our own earlier send.
import { ApplicationFailure } from '@temporalio/common';
import {
  InsufficientScopeError,
  OutcomeUnknownError,
  ProductNotFoundError,
  RateLimitedError,
  ReauthorizationRequiredError,
  SellingApiError,
  ServerError,
  TransportError,
  UnauthorizedError,
  type SellingClient,
} from '@selling-kit/api-client';
import type { BulkOperation, PreparedItem, SendOutcome } from '../types.ts';
import { ABORTED, SKU_EXISTS } from '../workflows/item-codes.ts';
import { BULK_OPERATION_SPECS, keysOf } from './bulk-operations.ts';

/** GET by SKU, one attempt (the caller decides what a failure means). */
export async function findBySku(client: SellingClient, sku: string, signal?: AbortSignal) {
  try {
    const p = await client.products.getBySku(sku, { maxRetries: 0, signal });
    return { productId: p.product_id, slug: p.slug };
  } catch (error) {
    if (error instanceof ProductNotFoundError) return undefined;
    throw error;
  }
}

/**
 * A create answered with a 4xx. On a resend (our earlier send was in doubt and verified absent), a
 * duplicate-SKU answer means the earlier send landed late: found → ok; not found yet (inside the
 * read-after-create delay) → still unknown. On a first send, a listing found under the SKU existed
 * before this job: reported with its own code, not as a mystery validation failure.
 */
async function createRefused(
  client: SellingClient,
  item: PreparedItem & { resend?: boolean },
  error: SellingApiError,
  signal?: AbortSignal,
): Promise<SendOutcome | undefined> {
  if (!item.sku) return undefined;
  const found = await findBySku(client, item.sku, signal).catch(() => null);
  if (item.resend) {
    if (found) return { line: item.line, status: 'ok', ...found };
    return { line: item.line, status: 'unknown' };
  }
  if (found)
    return {
      line: item.line,
      status: 'failed',
      code: SKU_EXISTS,
      message: `SKU "${item.sku}" already belongs to listing ${found.productId}, which existed before this item was sent (before the job, or from an earlier line of the feed; SKUs are never reusable): ${error.message}`,
      errorId: error.errorId,
      httpStatus: error.status,
    };
  return undefined;
}

export async function sendOne(
  client: SellingClient,
  operation: BulkOperation,
  item: PreparedItem & { resend?: boolean },
  signal?: AbortSignal,
): Promise<SendOutcome> {
  const { line } = item;
  const spec = BULK_OPERATION_SPECS[operation];
  try {
    return { line, status: 'ok', ...(await spec.send(client, item, { signal })) };
  } catch (error) {
    if (error instanceof ReauthorizationRequiredError)
      return { line, status: 'reauthorization_required', message: error.message };
    if (error instanceof RateLimitedError)
      return { line, status: 'rate_limited', retryAfterMs: error.retryAfterMs ?? 1000 };
    const idempotent = operation !== 'create';
    const failure = (e: SellingApiError, sent: boolean): SendOutcome =>
      !sent
        ? { line, status: 'retry', reason: e.message }
        : idempotent
          ? { line, status: 'retry', reason: e.message, sent, code: e.code, errorId: e.errorId }
          : { line, status: 'unknown', code: e.code, reason: e.message, errorId: e.errorId };
    if (signal?.aborted)
      return idempotent
        ? { line, status: 'retry', reason: 'cut off while being sent', sent: true, code: ABORTED }
        : { line, status: 'unknown', code: ABORTED, reason: 'cut off while being sent' };
    if (error instanceof OutcomeUnknownError) return failure(error, true);
    if (error instanceof TransportError) return failure(error, error.requestSent);
    if (error instanceof ServerError) return failure(error, true);
    if (error instanceof UnauthorizedError || error instanceof InsufficientScopeError)
      // The credential itself is refused: every other item would be too. The job pauses.
      return {
        line,
        status: 'reauthorization_required',
        message: `${error.status} ${error.code}: ${error.message}`,
      };
    if (error instanceof SellingApiError) {
      if (operation === 'create' && error.status !== undefined && error.status < 500) {
        const refused = await createRefused(client, item, error, signal);
        if (refused) return refused;
      } else if (item.resend && spec.landedEarlier?.(error)) {
        return { line, status: 'ok', ...keysOf(item.ref) };
      }
      return {
        line,
        status: 'failed',
        code: error.code,
        message: error.message,
        errorId: error.errorId,
        httpStatus: error.status,
      };
    }
    throw error;
  }
}

/**
 * For single-request activities (a sale): throw what Temporal should do next. 4xx → non-retryable
 * ApplicationFailure carrying code and error id; 429 → retry after Retry-After (nextRetryDelay); 5xx,
 * 504 and network failures → retried with the activity's backoff.
 */
export function toActivityFailure(error: unknown): never {
  if (error instanceof RateLimitedError)
    throw ApplicationFailure.create({
      message: error.message,
      type: 'RateLimited',
      nextRetryDelay: error.retryAfterMs ?? 1000,
      // Also in the details: `nextRetryDelay` never reaches workflow code (a sale waits it on a timer).
      details: [
        { code: error.code, errorId: error.errorId, status: 429, retryAfter: error.retryAfterMs ?? 1000 },
      ],
    });
  if (error instanceof ReauthorizationRequiredError)
    throw ApplicationFailure.nonRetryable(error.message, 'ReauthorizationRequired', {
      code: error.code,
    });
  if (error instanceof SellingApiError && error.status !== undefined && error.status < 500)
    throw ApplicationFailure.create({
      message: `${error.status} ${error.code}: ${error.message}`,
      type: error.code,
      nonRetryable: true,
      details: [{ code: error.code, errorId: error.errorId, status: error.status }],
    });
  if (error instanceof SellingApiError)
    throw ApplicationFailure.create({
      message: `${error.status ?? error.code}: ${error.message}`,
      type: error.status ? 'ServerError' : 'NetworkError',
      details: [{ code: error.code, errorId: error.errorId, status: error.status }],
    });
  throw error;
}
