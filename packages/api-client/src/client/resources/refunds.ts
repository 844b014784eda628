// client.refunds: POST /api/v1/orders/{purchase_id}/refund/ — full or partial refunds.
import { operation } from '../../core/operations.ts';
import type { RefundOrderRequest } from '../../core/schemas/refunds.ts';
import type { RefundOrderFacts } from '../../core/rules/refunds.ts';
import type { RequestOptions } from '../requester.ts';
import { Resource } from './resource.ts';

export interface RefundOptions extends RequestOptions {
  /** What the order may still refund, for the local checks of rule 10 (not above the prices). */
  order?: RefundOrderFacts;
}

export class RefundsResource extends Resource {
  /**
   * Refunds an item amount and/or a shipping amount (each positive). Not idempotent: after a 504 or a
   * timeout it throws OutcomeUnknownError — read the order's `refund_summary` before repeating.
   */
  async create(purchaseId: string, body: RefundOrderRequest, options?: RefundOptions): Promise<void> {
    const { order, ...rest } = options ?? {};
    await this.ctx.requester.call({
      op: operation('refunds.create'),
      pathParams: { purchase_id: purchaseId },
      body,
      options: rest,
      context: order ? { order } : undefined,
    });
  }
}
