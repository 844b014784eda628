// client.insights: live counters for the shop and for one product (their own rate group).
import { operation } from '../../core/operations.ts';
import type { ProductInsightsResponse, ShopInsightsResponse } from '../../core/schemas/insights.ts';
import { refCall, type ProductRef } from '../product-ref.ts';
import type { RequestOptions } from '../requester.ts';
import { Resource } from './resource.ts';

export class InsightsResource extends Resource {
  /** GET /api/v1/insights/shop/live/ — each section present only with the scope that unlocks it. */
  shop(options?: RequestOptions): Promise<ShopInsightsResponse> {
    return this.ctx.requester.call<ShopInsightsResponse>({ op: operation('insights.shop'), options });
  }

  /** GET /api/v1/insights/products/by-…/live/ */
  product(ref: ProductRef, options?: RequestOptions): Promise<ProductInsightsResponse> {
    return this.ctx.requester.call<ProductInsightsResponse>({
      ...refCall(this.ctx, 'insights.product', ref),
      options,
    });
  }
  productBySku(sku: string, options?: RequestOptions) {
    return this.product({ sku }, options);
  }
  productByProductId(productId: number, options?: RequestOptions) {
    return this.product({ productId }, options);
  }
  productBySlug(slug: string, options?: RequestOptions) {
    return this.product({ slug }, options);
  }
}
