import { z } from 'zod/v4';
import { Money, CurrencyCode } from './common.ts';

/** Platform-managed shipping on a listing; exclusive with `national_shipping_cost`. */
export const DepopShippingDetails = z.looseObject({
  address_id: z.number().int(),
  shipping_provider_id: z.string().min(1),
  parcel_size_id: z.string().min(1),
  payer: z.enum(['buyer', 'seller']),
});
export type DepopShippingDetails = z.infer<typeof DepopShippingDetails>;

export const ShippingParcelSize = z.looseObject({
  id: z.string(),
  title: z.string(),
  subtitle: z.string(),
  cost: z.looseObject({
    original_amount: Money,
    original_currency: CurrencyCode,
    amount: Money,
    currency: CurrencyCode,
  }),
  courier_service: z.enum(['DROP_OFF', 'COURIER_COLLECT', 'OTHER']),
});
export const ShippingProviderInfo = z.looseObject({
  id: z.string(),
  parcel_sizes: z.array(ShippingParcelSize),
});
export type ShippingProviderInfo = z.infer<typeof ShippingProviderInfo>;
export const ShippingProviders = z.array(ShippingProviderInfo);

/** SPEC GAP: the id of the "manual shipping" provider returned when an address has no providers. */
export const MANUAL_SHIPPING_PROVIDER_ID = 'MANUAL';
