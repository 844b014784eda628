// client.shipping: the shipping providers and parcel sizes available from a seller address.
import { operation } from '../../core/operations.ts';
import type { ShippingProviderInfo } from '../../core/schemas/shipping.ts';
import type { RequestOptions } from '../requester.ts';
import { Resource } from './resource.ts';

export class ShippingResource extends Resource {
  /** GET /api/v1/shop/seller-addresses/{address_id}/shipping-providers/ */
  listProviders(addressId: number, options?: RequestOptions): Promise<ShippingProviderInfo[]> {
    return this.ctx.requester.call<ShippingProviderInfo[]>({
      op: operation('shipping.listProviders'),
      pathParams: { address_id: addressId },
      options,
    });
  }
}
