// One request per item, classified for the workflow: done, failed (4xx, with code and error id), rate
// limited (with Retry-After), unknown (a create that may have happened: verify first), retry (safe to
// send again), or reauthorization required.
//
// A create is in doubt after ANY failure once its request may have left (5xx, a reset, a timeout, an
// abort): the API may have committed it, so it is verified by SKU before it is ever sent again — never
// re-POSTed blind, never reported failed on a duplicate-SKU answer to our own earlier send. A request
// that never left (the host cannot be reached, our own side failed) is this item's retry, never the
// window's failure: the rest of the window goes on.
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
import { ABORTED, NOT_SENT, SKU_EXISTS, UNREACHABLE } from '../workflows/item-codes.ts';
import { BULK_OPERATION_SPECS, keysOf } from './bulk-operations.ts';

/** A listing found by SKU: its keys, and when the API says it was created (absent: the answer had no date). */
export interface FoundListing {
  productId: number;
  slug: string;
  createdAt?: number;
}

/** GET by SKU, one attempt (the caller decides what a failure means). */
export async function findBySku(
  client: SellingClient,
  sku: string,
  signal?: AbortSignal,
): Promise<FoundListing | undefined> {
  try {
    const p = await client.products.getBySku(sku, { maxRetries: 0, signal });
    const createdAt = Date.parse((p as { created_at?: string }).created_at ?? '');
    return {
      productId: p.product_id,
      slug: p.slug,
      ...(Number.isFinite(createdAt) ? { createdAt } : {}),
    };
  } catch (error) {
    if (error instanceof ProductNotFoundError) return undefined;
    throw error;
  }
}

/**
 * How far the API's clock may be behind the worker's (both NTP-synchronised: README) when a listing's
 * creation date is compared with the job's start.
 */
export const CREATED_CLOCK_MARGIN_MS = 5_000;

/**
 * Whether a listing found under an item's SKU after a create in doubt can be that create: it was created
 * after the job started (`createdSince`, less CREATED_CLOCK_MARGIN_MS). One created before is another
 * listing that already had the SKU — the create could not have been applied (SKUs are unique per
 * seller). SPEC GAP (README Spec gaps #21): the spec lists no product fields' types and does not show a creation date on a
 * product; it does filter and sort the products list by "created date", and the service (like the
 * simulator) answers `created_at` on a product. An answer without a date is taken as the job's own
 * listing: nothing tells otherwise.
 */
export const createdByJob = (found: FoundListing, createdSince: number | undefined): boolean =>
  createdSince === undefined ||
  found.createdAt === undefined ||
  found.createdAt >= createdSince - CREATED_CLOCK_MARGIN_MS;

/** A create refused (or found not to be ours) because another listing already had its SKU. */
export function skuTaken(
  item: { line: number; sku: string },
  found: FoundListing,
  why: string,
): Extract<SendOutcome, { status: 'failed' }> {
  return {
    line: item.line,
    status: 'failed',
    code: SKU_EXISTS,
    message: `SKU "${item.sku}" already belongs to listing ${found.productId}, which existed before this item was sent (before the job, or from an earlier line of the feed; SKUs are never reusable): ${why}`,
  };
}

/**
 * Whether a create's refusal may be the duplicate-SKU one: the only 4xx worth a GET by SKU (a feed whose
 * every row is refused for its pictures costs no lookups; they would come out of the general group's
 * reserve that sales rely on). SPEC GAP (README Spec gaps #6): the spec does not show the code; the
 * service answers 422 `validation`, as for any broken rule. A 409 is taken as one too.
 */
const mayBeDuplicateSku = (error: SellingApiError) =>
  error.status === 409 || (error.status === 422 && error.code === 'validation');

/**
 * A create answered with a 4xx. On a resend (our earlier send was in doubt and verified absent), a
 * duplicate-SKU answer means the earlier send landed late: found (created since the job started) → ok;
 * not found yet (inside the read-after-create delay) → still unknown. On a first send, a listing found
 * under the SKU existed before this item was sent: reported with its own code, not as a mystery
 * validation failure.
 */
async function createRefused(
  client: SellingClient,
  item: PreparedItem & { resend?: boolean },
  error: SellingApiError,
  signal: AbortSignal | undefined,
  createdSince: number | undefined,
): Promise<SendOutcome | undefined> {
  if (!item.sku || !mayBeDuplicateSku(error)) return undefined;
  const sku = item.sku;
  const found = await findBySku(client, sku, signal).catch(() => null);
  if (item.resend) {
    if (!found) return { line: item.line, status: 'unknown' };
    if (createdByJob(found, createdSince))
      return { line: item.line, status: 'ok', productId: found.productId, slug: found.slug };
  }
  if (!found) return undefined;
  return {
    ...skuTaken({ line: item.line, sku }, found, error.message),
    errorId: error.errorId,
    httpStatus: error.status,
  };
}

/** Where the API is, as a person may read it: no credentials, query or fragment. */
function apiLocation(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return 'the API';
  }
}

/** The system's code for a failure that kept a request from leaving (ECONNREFUSED, ENOTFOUND…). */
function systemCode(error: TransportError): string {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return error.kind;
}

/**
 * Sends one item. `createdSince`: when the job started (a create's resend that meets a duplicate SKU
 * takes the listing found as its own only if it was created since).
 */
export async function sendOne(
  client: SellingClient,
  operation: BulkOperation,
  item: PreparedItem & { resend?: boolean },
  signal?: AbortSignal,
  createdSince?: number,
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
    /** The request may have left: a create is in doubt, anything else is sent again. */
    const failure = (e: SellingApiError): SendOutcome =>
      idempotent
        ? { line, status: 'retry', reason: e.message, sent: true, code: e.code, errorId: e.errorId }
        : { line, status: 'unknown', code: e.code, reason: e.message, errorId: e.errorId };
    if (signal?.aborted)
      return idempotent
        ? { line, status: 'retry', reason: 'cut off while being sent', sent: true, code: ABORTED }
        : { line, status: 'unknown', code: ABORTED, reason: 'cut off while being sent' };
    if (error instanceof OutcomeUnknownError) return failure(error);
    if (error instanceof TransportError && !error.requestSent)
      // Never left: a try of this item's (a run of them pauses the job, workflows/api-health.ts).
      return {
        line,
        status: 'retry',
        code: UNREACHABLE,
        reason: `cannot reach ${apiLocation(client.baseUrl)}: ${systemCode(error)}`,
      };
    if (error instanceof TransportError) return failure(error);
    if (error instanceof ServerError) return failure(error);
    if (error instanceof UnauthorizedError || error instanceof InsufficientScopeError)
      // The credential itself is refused: every other item would be too. The job pauses.
      return {
        line,
        status: 'reauthorization_required',
        message: `${error.status} ${error.code}: ${error.message}`,
      };
    if (error instanceof SellingApiError) {
      if (operation === 'create' && error.status !== undefined && error.status < 500) {
        const refused = await createRefused(client, item, error, signal, createdSince);
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
    // Not the API's answer and not the network's: our side failed before the request left (a token
    // store that did not answer, the client). This item is retried; the rest of the window stands.
    const message = error instanceof Error ? error.message : String(error);
    return { line, status: 'retry', code: NOT_SENT, reason: `not sent: ${message}`.slice(0, 200) };
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
