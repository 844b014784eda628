// client.pricing: price predictions and similar sold items (GB and US sellers).
import { operation } from '../../core/operations.ts';
import type { PricingInspirationRequest, PricingInspirationResponse } from '../../core/schemas/pricing.ts';
import type { RequestOptions } from '../requester.ts';
import { Resource } from './resource.ts';

export class PricingResource extends Resource {
  /** POST /api/v1/pricing/inspiration/ (a read: safe to repeat). */
  inspiration(
    body: PricingInspirationRequest,
    options?: RequestOptions,
  ): Promise<PricingInspirationResponse> {
    return this.ctx.requester.call<PricingInspirationResponse>({
      op: operation('pricing.inspiration'),
      body,
      options,
    });
  }
}
