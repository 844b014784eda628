// client.shop: the authenticated seller's details and addresses.
import { operation } from '../../core/operations.ts';
import type { Page } from '../../core/schemas/common.ts';
import type { SellerAddress, SellerDetails } from '../../core/schemas/shop.ts';
import { PageIterator } from '../pagination.ts';
import type { RequestOptions } from '../requester.ts';
import { Resource } from './resource.ts';

export class ShopResource extends Resource {
  /** GET /api/v1/shop/ */
  get(options?: RequestOptions): Promise<SellerDetails> {
    return this.ctx.requester.call<SellerDetails>({ op: operation('shop.get'), options });
  }

  /** GET /api/v1/shop/seller-addresses/ — iterate addresses with `for await`. */
  listAddresses(options?: RequestOptions): PageIterator<SellerAddress> {
    const op = operation('shop.listAddresses');
    return new PageIterator<SellerAddress>(
      (cursor) => this.ctx.requester.call<Page<SellerAddress>>({ op, query: { cursor }, options }),
      (a) => a.id,
    );
  }
}
