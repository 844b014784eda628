// One request per item, classified for the workflow: done, failed (4xx, with code and error id), rate
// limited (with Retry-After), unknown (a create that may have happened: verify first), retry (safe to
// send again), or reauthorization required.
import { ApplicationFailure } from '@temporalio/common';
import {
  InsufficientScopeError,
  NotFoundError,
  OutcomeUnknownError,
  ProductNotFoundError,
  RateLimitedError,
  ReauthorizationRequiredError,
  SellingApiError,
  ServerError,
  TransportError,
  UnauthorizedError,
  ValidationError,
  type ProductRef,
  type SellingClient,
} from '@selling-kit/api-client';
import type { BulkOperation, FeedItem, ItemRef, SendOutcome } from '../types.ts';

const toProductRef = (ref: ItemRef): ProductRef => ref as ProductRef;

export async function findBySku(client: SellingClient, sku: string) {
  try {
    const p = await client.products.getBySku(sku, { maxRetries: 2 });
    return { productId: p.product_id, slug: p.slug };
  } catch (error) {
    if (error instanceof ProductNotFoundError) return undefined;
    throw error;
  }
}

async function call(client: SellingClient, operation: BulkOperation, item: FeedItem) {
  const ref = toProductRef(item.ref);
  switch (operation) {
    case 'create': {
      const res = await client.request<{ product_id: number; slug: string }>({
        method: 'POST',
        path: '/api/v1/products/',
        body: item.body,
      });
      return { productId: res.product_id, slug: res.slug };
    }
    case 'upsert':
    case 'update': {
      const res = await client.products.update(ref, item.body as never);
      return { productId: res.product_id, slug: res.slug };
    }
    case 'patch':
      await client.products.patch(ref, item.body as never);
      return keysOf(item.ref);
    case 'delete':
      await client.products.delete(ref, {
        failIfActiveOffers: item.body.fail_if_active_offers === true,
      });
      return keysOf(item.ref);
    case 'mark_as_sold':
      await client.products.markAsSold(ref);
      return keysOf(item.ref);
  }
}

function keysOf(ref: ItemRef): { productId?: number; slug?: string } {
  return 'productId' in ref ? { productId: ref.productId } : 'slug' in ref ? { slug: ref.slug } : {};
}

/** Whether an error after a resend means the earlier send had landed. */
async function landedEarlier(
  client: SellingClient,
  operation: BulkOperation,
  item: FeedItem,
  error: SellingApiError,
): Promise<{ productId?: number; slug?: string } | undefined> {
  if (operation === 'create' && item.sku && error.status !== undefined && error.status < 500) {
    return findBySku(client, item.sku); // "already exists": the first create landed after all
  }
  if (operation === 'delete' && error instanceof NotFoundError) return keysOf(item.ref);
  if (
    operation === 'mark_as_sold' &&
    error instanceof ValidationError &&
    error.code === 'product_not_on_sale'
  )
    return keysOf(item.ref);
  return undefined;
}

export async function sendOne(
  client: SellingClient,
  operation: BulkOperation,
  item: FeedItem,
  signal?: AbortSignal,
): Promise<SendOutcome> {
  const { line } = item;
  void signal;
  try {
    return { line, status: 'ok', ...(await call(client, operation, item)) };
  } catch (error) {
    if (error instanceof ReauthorizationRequiredError)
      return { line, status: 'reauthorization_required', message: error.message };
    if (error instanceof RateLimitedError)
      return { line, status: 'rate_limited', retryAfterMs: error.retryAfterMs ?? 1000 };
    const idempotent = operation !== 'create';
    if (error instanceof OutcomeUnknownError)
      return idempotent ? { line, status: 'retry', reason: 'gateway timeout' } : { line, status: 'unknown' };
    if (error instanceof TransportError) {
      if (!error.requestSent) return { line, status: 'retry', reason: error.message };
      return idempotent ? { line, status: 'retry', reason: error.message } : { line, status: 'unknown' };
    }
    if (error instanceof ServerError) {
      if (error.status === 504 && !idempotent) return { line, status: 'unknown' };
      return { line, status: 'retry', reason: `${error.status} ${error.code}` };
    }
    if (error instanceof UnauthorizedError || error instanceof InsufficientScopeError)
      // The credential itself is refused: every other item would be too. The job pauses.
      return {
        line,
        status: 'reauthorization_required',
        message: `${error.status} ${error.code}: ${error.message}`,
      };
    if (error instanceof SellingApiError) {
      if (item.resend) {
        const landed = await landedEarlier(client, operation, item, error).catch(() => undefined);
        if (landed) return { line, status: 'ok', ...landed };
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
      details: [{ code: error.code, errorId: error.errorId, status: 429 }],
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
