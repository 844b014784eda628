// The bulk operations, one entry each: how a feed record becomes the item's key and request body
// (checked with the client core's rules), the client call that sends it, and which refusal of a resend
// means the earlier send had landed. feed.ts prepares items with `prepare`, send.ts sends them with
// `send`: an operation's request is described here once.
import {
  NotFoundError,
  ValidationError,
  type PatchProductRequest,
  type ProductCreateRequest,
  type ProductPutRequest,
  type SellingApiError,
  type SellingClient,
} from '@selling-kit/api-client';
import {
  checkProductPatch,
  checkProductWrite,
  listingRefs,
  PRODUCT_KEYS,
  type RuleViolation,
} from '@selling-kit/api-client/core';
import type { BulkOperation, ItemRef } from '../types.ts';

/** A feed item ready to send: its key and its request body. */
export interface ItemRequest {
  ref: ItemRef;
  body: Record<string, unknown>;
}

/** The listing's keys as far as the answer (or the item's own key) tells them. */
export interface ListingKeys {
  productId?: number;
  slug?: string;
}

export interface BulkOperationSpec {
  /** The item's key and request body for this operation, or the rules the record breaks. */
  prepare(raw: Record<string, unknown>): ItemRequest | RuleViolation[];
  /** One request (the client makes one attempt: the workflow owns retries and verification). */
  send(client: SellingClient, item: ItemRequest, options: { signal?: AbortSignal }): Promise<ListingKeys>;
  /** On a resend: whether this refusal means the earlier send had landed (a create is verified apart). */
  landedEarlier?(error: SellingApiError): boolean;
}

/** The key an item addresses its listing by: the product id, else the slug, else the SKU. */
const refOf = (raw: Record<string, unknown>): ItemRef | null =>
  listingRefs(raw, ['productId', 'slug', 'sku'])[0] ?? null;

/** The body without the keys: they address the listing (in the path), they are not sent. */
function withoutKeys(raw: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...raw };
  for (const k of PRODUCT_KEYS) delete rest[k];
  return rest;
}

/** A required field the record lacks, as the rule it breaks. */
export const missing = (field: string, message: string): RuleViolation[] => [
  { field, rule: 'required', code: 'validation', message },
];

function violationsOr(violations: RuleViolation[], ref: ItemRef, body: Record<string, unknown>) {
  return violations.length > 0 ? violations : { ref, body };
}

/** The record's SKU, when it has one. */
export const skuOf = (raw: Record<string, unknown>) =>
  typeof raw.sku === 'string' && raw.sku ? raw.sku : null;

/** The keys an answer without a listing leaves known: the item's own product id or slug. */
export function keysOf(ref: ItemRef): ListingKeys {
  return 'productId' in ref ? { productId: ref.productId } : 'slug' in ref ? { slug: ref.slug } : {};
}

/** A full update (PUT): by SKU an upsert. Bodies were checked by `prepare`, hence the casts. */
const put: BulkOperationSpec['send'] = async (client, { ref, body }, options) => {
  const res = await client.products.update(ref, body as ProductPutRequest, options);
  return { productId: res.product_id, slug: res.slug };
};

export const BULK_OPERATION_SPECS: Record<BulkOperation, BulkOperationSpec> = {
  create: {
    prepare(raw) {
      const sku = skuOf(raw);
      if (!sku)
        return missing('sku', 'sku: every created item needs a SKU (it is how jobs verify and resume)');
      return violationsOr(checkProductWrite('create', raw), { sku }, raw);
    },
    // Verification off: an unknown outcome comes back as such, since a bulk job's workflow owns that
    // verification (by SKU, in rounds). Body rules were checked by `prepare`, the service decides the rest.
    async send(client, { body }, options) {
      const res = await client.products.create(body as ProductCreateRequest, {
        ...options,
        verify: false,
        validate: false,
      });
      return { productId: res.product_id, slug: res.slug };
    },
  },
  upsert: {
    prepare(raw) {
      const sku = skuOf(raw);
      if (!sku) return missing('sku', 'sku: an upsert is a PUT by SKU');
      const body = { attributes: {}, ...withoutKeys(raw) };
      return violationsOr(checkProductWrite('put', body), { sku }, body);
    },
    send: put,
  },
  update: {
    prepare(raw) {
      const ref = refOf(raw);
      if (!ref) return missing('sku', 'a full update needs product_id, slug or sku');
      const body = { attributes: {}, ...withoutKeys(raw) };
      return violationsOr(checkProductWrite('put', body), ref, body);
    },
    send: put,
  },
  patch: {
    prepare(raw) {
      const ref = refOf(raw);
      if (!ref) return missing('sku', 'a patch needs product_id, slug or sku');
      const body = withoutKeys(raw);
      return violationsOr(checkProductPatch(body), ref, body);
    },
    async send(client, { ref, body }, options) {
      await client.products.patch(ref, body as PatchProductRequest, options);
      return keysOf(ref);
    },
  },
  delete: {
    prepare(raw) {
      const ref = refOf(raw);
      if (!ref) return missing('sku', 'delete needs product_id, slug or sku');
      return { ref, body: withoutKeys(raw) };
    },
    async send(client, { ref, body }, options) {
      await client.products.delete(ref, { failIfActiveOffers: body.fail_if_active_offers === true }, options);
      return keysOf(ref);
    },
    landedEarlier: (error) => error instanceof NotFoundError,
  },
  mark_as_sold: {
    // Mark-as-sold has no body: whatever else the record holds is not sent.
    prepare(raw) {
      const ref = refOf(raw);
      if (!ref) return missing('sku', 'mark_as_sold needs product_id, slug or sku');
      return { ref, body: {} };
    },
    async send(client, { ref }, options) {
      await client.products.markAsSold(ref, options);
      return keysOf(ref);
    },
    landedEarlier: (error) => error instanceof ValidationError && error.code === 'product_not_on_sale',
  },
};
