// Handlers for the "shop" operations: seller details and seller addresses.
// SPEC GAP (address pages): the seller's addresses always fit one page (cursor null, has_more false).
import type { SellerAddress, SellerDetails } from '@selling-kit/api-client/core';
import type { Handlers } from './types.ts';

export const shopHandlers: Handlers = {
  'shop.get': ({ seller }) => {
    const body: SellerDetails = {
      id: seller.id,
      username: seller.username,
      country_code: seller.countryCode,
    };
    return { body };
  },
  'shop.listAddresses': ({ seller }) => ({
    body: {
      meta: { cursor: null, has_more: false },
      data: seller.addresses.map((a): SellerAddress => ({ ...a })),
    },
  }),
};
