import { z } from 'zod/v4';
import { Colour, Condition, Source, Style } from './common.ts';

export const PRICING_COUNTRIES = ['GB', 'US'] as const;

export const PricingInspirationRequest = z.looseObject({
  description: z.string().min(1),
  country: z.string().min(2),
  currency: z.string().min(3),
  product_type: z.string().min(1),
  department: z.string().min(1),
  condition: Condition,
  brand_name: z.string().min(1),
  size_set_id: z.number().int().optional(),
  size_id: z.number().int().optional(),
  colour: z.array(Colour).max(2).optional(),
  style: z.array(Style).optional(),
  source: z.array(Source).max(2).optional(),
});
export type PricingInspirationRequest = z.infer<typeof PricingInspirationRequest>;

export const PricingInspirationResponse = z.looseObject({
  price_prediction: z.looseObject({
    balanced: z.string(),
    prediction: z.string().optional(),
    upper_bound: z.string(),
    lower_bound: z.string(),
  }),
  similar_sold_items: z.array(
    z.looseObject({
      picture: z.looseObject({ url: z.string(), height: z.number(), width: z.number() }),
      sold_price_amount: z.string(),
      sold_price_currency: z.string(),
      condition: z.string(),
      brand_name: z.string(),
    }),
  ),
});
export type PricingInspirationResponse = z.infer<typeof PricingInspirationResponse>;
