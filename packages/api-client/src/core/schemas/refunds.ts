import { z } from 'zod/v4';
import { Money } from './common.ts';

/** POST /api/v1/orders/{purchase_id}/refund/ — at least one positive amount (rule 10). */
export const RefundOrderRequest = z.looseObject({
  items_refund_amount: Money.optional(),
  shipping_refund_amount: Money.optional(),
  send_buyer_message: z.string().optional(),
});
export type RefundOrderRequest = z.infer<typeof RefundOrderRequest>;
