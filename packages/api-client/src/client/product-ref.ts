// The client's side of product references (the vocabulary itself is the core's product-ref.ts): which
// by-key operation a reference calls, and the keys of listings created moments ago, whose
// product_not_found answers are re-tried.
import { operation, type Operation } from '../core/operations.ts';
import {
  listingRefs,
  PRODUCT_REF_KEYS,
  refKey,
  refKind,
  refPathParams,
  type ProductRef,
} from '../core/product-ref.ts';
import type { ClientContext } from './client.ts';

export type { ProductRef };

/** `('products.get', { sku: 'A1' })` → the products.getBySku operation and `{ sku: 'A1' }`. */
export function refOperation(
  prefix: string,
  ref: ProductRef,
): { op: Operation; pathParams: Record<string, string | number> } {
  return {
    op: operation(`${prefix}${PRODUCT_REF_KEYS[refKind(ref)].suffix}`),
    pathParams: refPathParams(ref),
  };
}

/**
 * Keys of listings this client created recently. The spec: "a just-created listing may need a short
 * delay before it can be fetched" — calls by these keys re-try product_not_found a few times.
 */
export class RecentlyCreated {
  /** Key (`sku:A1`, `productId:7`, `slug:tee-7`) → the entry of its listing. */
  private readonly entries = new Map<string, { keys: string[]; until: number }>();
  readonly windowMs: number;

  constructor(windowMs: number) {
    this.windowMs = windowMs;
  }

  add(listing: { sku?: string | null; product_id?: number; slug?: string } | undefined, now: number): void {
    if (!listing) return;
    const keys = listingRefs(listing).map(refKey);
    const entry = { keys, until: now + this.windowMs };
    for (const key of keys) {
      this.entries.delete(key); // re-insert at the end: the map stays in expiry order
      this.entries.set(key, entry);
    }
    for (const [key, e] of this.entries) {
      if (e.until > now) break;
      this.entries.delete(key);
    }
  }

  has(ref: ProductRef, now: number): boolean {
    const entry = this.entries.get(refKey(ref));
    return entry !== undefined && entry.until > now;
  }

  /** The listing was deleted: a product_not_found for any of its keys is final. */
  forget(ref: ProductRef): void {
    const entry = this.entries.get(refKey(ref));
    for (const key of entry?.keys ?? []) this.entries.delete(key);
  }
}

/** refOperation + the product_not_found re-tries when the key was created moments ago. */
export function refCall(
  ctx: Pick<ClientContext, 'recent' | 'now' | 'verifyDelaysMs'>,
  prefix: string,
  ref: ProductRef,
): { op: Operation; pathParams: Record<string, string | number>; notFoundRetryDelays?: number[] } {
  const call = refOperation(prefix, ref);
  if (!ctx.recent.has(ref, ctx.now())) return call;
  return { ...call, notFoundRetryDelays: ctx.verifyDelaysMs.filter((d) => d > 0) };
}
