// Handlers for the "shipping" operations: the providers (parcel sizes, label costs) available from one
// of the seller's addresses (by the address's country). The catalogue and its SPEC GAP choices are in
// ../domain/shipping.ts.
import { apiError } from '../errors.ts';
import { shippingProvidersForAddress } from '../domain/shipping.ts';
import type { Handlers } from './types.ts';

export const shippingHandlers: Handlers = {
  'shipping.listProviders': ({ seller, params }) => {
    const raw = params.address_id ?? '';
    // An id that is not an integer names no address: 404 like any unknown id.
    const providers = /^\d{1,15}$/.test(raw) ? shippingProvidersForAddress(seller, Number(raw)) : undefined;
    if (!providers)
      throw apiError('address_not_found', `no seller address ${raw.slice(0, 40)} for this seller`);
    return { body: providers };
  },
};
