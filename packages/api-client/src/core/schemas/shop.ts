import { z } from 'zod/v4';
import { CountryCode, pageOf } from './common.ts';

export const SellerDetails = z.looseObject({
  id: z.number().int(),
  username: z.string(),
  country_code: CountryCode,
});
export type SellerDetails = z.infer<typeof SellerDetails>;

export const SellerAddress = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  address: z.string(),
  address2: z.string().nullable().optional(),
  city: z.string(),
  state: z.string(),
  postal_code: z.string(),
  country: CountryCode,
  last_modified: z.string().nullable().optional(),
});
export type SellerAddress = z.infer<typeof SellerAddress>;
export const SellerAddressesPage = pageOf(SellerAddress);
