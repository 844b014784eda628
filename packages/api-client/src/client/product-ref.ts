// A product is addressed by SKU, product ID or slug; each has its own path family
// (/by-sku/{sku}/, /by-product-id/{productId}/, /by-slug/{slug}/).
import { operation, type Operation } from '../core/operations.ts';
import type { ClientContext } from './client.ts';

export type ProductRef = { sku: string } | { productId: number } | { slug: string };

const SUFFIX = { sku: 'BySku', productId: 'ByProductId', slug: 'BySlug' } as const;

export function refKind(ref: ProductRef): keyof typeof SUFFIX {
  if ('sku' in ref && ref.sku !== undefined) return 'sku';
  if ('productId' in ref && ref.productId !== undefined) return 'productId';
  if ('slug' in ref && ref.slug !== undefined) return 'slug';
  throw new TypeError('a product reference needs sku, productId or slug');
}

/** `('products.get', { sku: 'A1' })` → the products.getBySku operation and `{ sku: 'A1' }`. */
export function refOperation(
  prefix: string,
  ref: ProductRef,
): { op: Operation; pathParams: Record<string, string | number> } {
  const kind = refKind(ref);
  const value = (ref as Record<string, string | number>)[kind]!;
  return { op: operation(`${prefix}${SUFFIX[kind]}`), pathParams: { [kind]: value } };
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
    const keys = [
      listing.sku ? `sku:${listing.sku}` : undefined,
      listing.product_id !== undefined ? `productId:${listing.product_id}` : undefined,
      listing.slug ? `slug:${listing.slug}` : undefined,
    ].filter((k): k is string => k !== undefined);
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
    const entry = this.entries.get(keyOf(ref));
    return entry !== undefined && entry.until > now;
  }

  /** The listing was deleted: a product_not_found for any of its keys is final. */
  forget(ref: ProductRef): void {
    const entry = this.entries.get(keyOf(ref));
    for (const key of entry?.keys ?? []) this.entries.delete(key);
  }
}

function keyOf(ref: ProductRef): string {
  const kind = refKind(ref);
  return `${kind}:${(ref as Record<string, string | number>)[kind]}`;
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
