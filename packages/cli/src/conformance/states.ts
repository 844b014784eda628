// The spec names product states (selling, sold, removed, banned); the service's read model carries a
// `status` (public reference: STATUS_ONSALE, STATUS_PURCHASED, …). Probes compare states through the
// core's map (api-client core listings.ts, SPEC GAP state ↔ status).
export { productState as stateOf, type ProductState } from '@selling-kit/api-client/core';

export const STATE_CHOICE = 'state ↔ status: ONSALE = selling; PURCHASED, MARKED_AS_SOLD = sold';
