import { z } from 'zod/v4';
import { CountryCode, IsoDateTime, pageOf } from './common.ts';

export const ORDERS_PAGE_MAX = 200;
export const OrderStatus = z.enum(['SHIPPING_PENDING', 'SHIPPED', 'REFUNDED', 'CANCELLED', 'COMPLETED']);

export const ShippingAddress = z.looseObject({
  name: z.string().optional(),
  address: z.string().optional(),
  address2: z.string().nullable().optional(),
  city: z.string(),
  postal_code: z.string(),
  state: z.string().nullable().optional(),
  country_code: CountryCode,
  phone_number: z.string().nullable().optional(),
});

export const OrderLineItem = z.looseObject({
  purchase_item_id: z.number(),
  sku: z.string().nullable().optional(),
  product_id: z.number(),
  slug: z.string(),
  parcel_id: z.string(),
  description: z.string(),
  original_price: z.string(),
  sold_price: z.string(),
  sold_via_offers: z.boolean(),
  image_url: z.string(),
});
export type OrderLineItem = z.infer<typeof OrderLineItem>;

export const FeeBreakdown = z.looseObject({
  fee_type: z.string(), // PAYMENT_FEE | BOOSTED_FEE | DEPOP_FEE | SHIPPING_FEE (kept open: new types may come)
  amount: z.string(),
  currency: z.string(),
});

const money = z.string();
export const RefundSummary = z.looseObject({
  buyer_refund_amount: money,
  seller_refund_amount: money.optional(),
  refund_date: z.string(),
  refunded_by: z.enum(['PARTNER', 'DEPOP']),
  breakdown: z.looseObject({
    refunded_to_buyer: z.looseObject({
      item_refund_amount: money,
      shipping_refund_amount: money,
      depop_fee_refund_amount: money,
      tax_refund_amount: money,
    }),
    refunded_to_seller: z.looseObject({
      ads_fee_refund_amount: money,
      payment_fee_refund_amount: money,
      depop_fee_refund_amount: money,
      shipping_refund_amount: money,
    }),
  }),
});

export const Order = z.looseObject({
  seller_id: z.number(),
  purchase_id: z.string(),
  status: z.string(),
  currency: z.string(),
  buyer_pays_amount: money,
  seller_receives_amount: money,
  buyer_shipping_price: money,
  buyer_tax_amount: money.optional(),
  buyer_address: ShippingAddress,
  line_items: z.array(OrderLineItem),
  seller_fee_breakdown: z.array(FeeBreakdown),
  depop_shipping: z.looseObject({ shipping_provider_id: z.string() }).optional(),
  refund_summary: RefundSummary.optional(),
  created_at: z.string(),
});
export type Order = z.infer<typeof Order>;
export const OrdersPage = pageOf(Order);

export const OrderListQuery = z.object({
  limit: z.number().int().min(1).max(ORDERS_PAGE_MAX).optional(),
  cursor: z.string().optional(),
  from: IsoDateTime.optional(),
  to: IsoDateTime.optional(),
});
export type OrderListQuery = z.infer<typeof OrderListQuery>;

export const MarkAsShippedRequest = z.looseObject({
  tracking_number: z
    .string()
    .min(1)
    .regex(/^[^\s,]+(,[^\s,]+)*$/, 'comma-separated tracking numbers without spaces'),
  carrier: z.string().min(1),
});
export type MarkAsShippedRequest = z.infer<typeof MarkAsShippedRequest>;
