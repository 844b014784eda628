import { z } from 'zod/v4';

/** POST …/offer/ — a manual offer to a buyer who showed interest. `offer_value` is a JSON number. */
export const SubmitOfferRequest = z.looseObject({
  offer_recipient_id: z.number().int().positive(),
  offer_value: z.number().min(0.01),
  offer_currency: z.string().max(3),
  size_id: z.number().int().optional(),
});
export type SubmitOfferRequest = z.infer<typeof SubmitOfferRequest>;

export const OFFER_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Minimum percentage below the price for offers and auto-offer prices (public reference: 5%). */
export const DEFAULT_MIN_PERCENT_OFF = 5;
