// Webhook events (envelope + typed data per event type) and the webhook configuration objects.
import { z } from 'zod/v4';

export const WEBHOOK_SIGNATURE_HEADER = 'x-depop-signature';
export const WEBHOOK_TIMESTAMP_HEADER = 'x-depop-timestamp';

const WebhookShippingAddress = z.looseObject({
  city: z.string(),
  postal_code: z.string(),
  country: z.string(),
});

export const OrderNewData = z.looseObject({
  seller_id: z.number(),
  purchase_id: z.string(),
  status: z.string(),
  currency: z.string(),
  buyer_pays_amount: z.string(),
  seller_receives_amount: z.string(),
  fee_amount: z.string(),
  buyer_shipping_price: z.string(),
  buyer_address: WebhookShippingAddress,
  line_items: z.array(z.looseObject({ product_id: z.number(), slug: z.string() })),
  depop_shipping: z.looseObject({ shipping_provider_id: z.string() }).optional(),
});
export const OrderRefundData = z.looseObject({
  purchase_id: z.string(),
  refunded_by: z.enum(['PARTNER', 'DEPOP']),
});
/** The keys every product event names its product by. */
const productKeys = {
  seller_id: z.number(),
  product_id: z.number(),
  sku: z.string().nullable().optional(),
  slug: z.string(),
};
export const ProductLikeData = z.looseObject({ ...productKeys, liker_id: z.number() });
/**
 * SPEC GAP (product-change event): the spec announces product-change webhooks; the public reference
 * names no such event. Our choice: `v1:product.updated` carrying the product's keys, its new status
 * and the fields that changed.
 */
export const ProductUpdatedData = z.looseObject({
  ...productKeys,
  status: z.string(),
  changed_fields: z.array(z.string()),
});

const envelope = <T extends string, D extends z.ZodType>(eventType: T, data: D) =>
  z.looseObject({ id: z.string(), event_type: z.literal(eventType), created_at: z.string(), data });

export const WebhookEvent = z.discriminatedUnion('event_type', [
  envelope('v1:order.new', OrderNewData),
  envelope('v1:order.refund', OrderRefundData),
  envelope('v1:product.like', ProductLikeData),
  envelope('v1:product.unlike', ProductLikeData),
  envelope('v1:product.updated', ProductUpdatedData),
]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;
export type WebhookEventType = WebhookEvent['event_type'];
export const WEBHOOK_EVENT_TYPES: WebhookEventType[] = [
  'v1:order.new',
  'v1:order.refund',
  'v1:product.like',
  'v1:product.unlike',
  'v1:product.updated',
];

/**
 * SPEC GAP (webhook configuration): the spec says configuration endpoints exist but not their shape;
 * the public reference has none. Our choice: /api/v1/webhooks/ (list, create) and
 * /api/v1/webhooks/{webhook_id}/ (delete), in the "everything else" rate group, no extra scope.
 */
export const WebhookSubscriptionRequest = z.looseObject({
  url: z.url(),
  event_types: z
    .array(z.enum(WEBHOOK_EVENT_TYPES as [WebhookEventType, ...WebhookEventType[]]))
    .min(1)
    .optional(),
});
export type WebhookSubscriptionRequest = z.infer<typeof WebhookSubscriptionRequest>;
export const WebhookSubscription = z.looseObject({
  id: z.string(),
  url: z.string(),
  event_types: z.array(z.string()),
  created_at: z.string(),
});
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;
export const WebhookSubscriptionList = z.looseObject({ data: z.array(WebhookSubscription) });
