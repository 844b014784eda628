import { z } from 'zod/v4';

/** Each section is present only when the token holds the scope that unlocks it. */
export const ShopInsightsResponse = z.looseObject({
  products: z.looseObject({ on_sale_count: z.number().int(), total_count: z.number().int() }).optional(),
  rating: z.looseObject({ average: z.number(), count: z.number().int() }).optional(),
  offers: z.looseObject({ awaiting_seller_review_count: z.number().int() }).optional(),
  boost: z.looseObject({ live_count: z.number().int(), sold_count: z.number().int() }).optional(),
  orders: z.looseObject({ awaiting_shipping_count: z.number().int() }).optional(),
});
export type ShopInsightsResponse = z.infer<typeof ShopInsightsResponse>;

export const ProductInsightsResponse = z.looseObject({
  likes_count: z.number().int().optional(),
  bag_count: z.number().int().optional(),
  offers: z
    .looseObject({
      awaiting_seller_review_count: z.number().int(),
      awaiting_buyer_review_count: z.number().int(),
    })
    .optional(),
  boost: z
    .looseObject({
      organic_clicks: z.number().int().optional(),
      boosted_clicks: z.number().int().optional(),
      organic_impressions: z.number().int().optional(),
      boosted_impressions: z.number().int().optional(),
    })
    .optional(),
});
export type ProductInsightsResponse = z.infer<typeof ProductInsightsResponse>;
