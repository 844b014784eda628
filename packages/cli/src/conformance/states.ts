// The spec names product states (selling, sold, removed, banned); the service's read model carries a
// `status` (public reference: STATUS_ONSALE, STATUS_PURCHASED, …). Probes compare states through this map.
import type { ProductStatus } from '@selling-kit/api-client/core';

export type ProductState = 'selling' | 'sold' | 'removed' | 'banned';

/**
 * SPEC GAP (state ↔ status): the spec's states and the public reference's statuses are not tied
 * together anywhere. Ours: ONSALE = selling; PURCHASED and MARKED_AS_SOLD = sold; every DELETED_* =
 * removed; every *_BANNED_* = banned.
 */
const STATE_OF: Record<ProductStatus, ProductState> = {
  STATUS_ONSALE: 'selling',
  STATUS_PURCHASED: 'sold',
  STATUS_MARKED_AS_SOLD: 'sold',
  STATUS_DELETED: 'removed',
  STATUS_DELETED_ONSALE: 'removed',
  STATUS_DELETED_PURCHASED: 'removed',
  STATUS_DELETED_MARKED_AS_SOLD: 'removed',
  STATUS_PRODUCT_BANNED_ONSALE: 'banned',
  STATUS_USER_BANNED_ONSALE: 'banned',
  STATUS_PRODUCT_BANNED_PURCHASED: 'banned',
  STATUS_USER_BANNED_PURCHASED: 'banned',
};

/** The spec state of a wire status; undefined for a status the public reference does not list. */
export function stateOf(status: string): ProductState | undefined {
  return (STATE_OF as Record<string, ProductState>)[status];
}

export const STATE_CHOICE = 'state ↔ status: ONSALE = selling; PURCHASED, MARKED_AS_SOLD = sold';
