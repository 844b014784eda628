// client.orders: /api/v1/orders/ — list (cursor pages, limit ≤ 200), get one, mark a parcel shipped.
import { operation } from '../../core/operations.ts';
import type { MarkAsShippedRequest, Order, OrderListQuery } from '../../core/schemas/orders.ts';
import type { PageIterator } from '../pagination.ts';
import type { RequestOptions } from '../requester.ts';
import { Resource } from './resource.ts';

export interface OrderListParams extends Omit<OrderListQuery, 'cursor' | 'from' | 'to'> {
  from?: string | Date;
  to?: string | Date;
}

const iso = (d: string | Date | undefined) => (d instanceof Date ? d.toISOString() : d);

export class OrdersResource extends Resource {
  /** GET /api/v1/orders/ — iterate orders with `for await`, or pages with `.pages()`. */
  list(params: OrderListParams = {}, options?: RequestOptions): PageIterator<Order> {
    const op = operation('orders.list');
    const query = { ...params, from: iso(params.from), to: iso(params.to) };
    return this.checkedPages<Order>(op, query, options, (o) => o.purchase_id);
  }

  get(purchaseId: string, options?: RequestOptions): Promise<Order> {
    return this.ctx.requester.call<Order>({
      op: operation('orders.get'),
      pathParams: { purchase_id: purchaseId },
      options,
    });
  }

  /** Records a parcel's shipment with tracking (comma-separated numbers, no spaces). */
  async markParcelShipped(
    purchaseId: string,
    parcelId: string,
    body: MarkAsShippedRequest,
    options?: RequestOptions,
  ): Promise<void> {
    await this.ctx.requester.call({
      op: operation('orders.markParcelShipped'),
      pathParams: { purchase_id: purchaseId, parcel_id: parcelId },
      body,
      options,
    });
  }
}
