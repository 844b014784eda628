// The two error formats on the wire: the service's envelope, and the gateway's 429 body.
import { z } from 'zod/v4';

export const ErrorItem = z.looseObject({ code: z.string(), message: z.string() });
/** `{ id, errors: [{ code, message }] }` — every non-OAuth, non-gateway error. */
export const ErrorEnvelope = z.looseObject({ id: z.string(), errors: z.array(ErrorItem).min(1) });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/**
 * SPEC GAP (429 body): the spec says 429 comes from a gateway "in another format" and does not show
 * it. Our choice, used by the simulator and parsed by the client: the Retry-After header (whole
 * seconds, per HTTP) plus this body, whose `retry_after_ms` carries the exact wait.
 */
export const RateLimitBody = z.looseObject({
  message: z.string(),
  code: z.literal('too_many_requests'),
  group: z.string(),
  retry_after_ms: z.number().int().nonnegative(),
});
export type RateLimitBody = z.infer<typeof RateLimitBody>;

/** Every documented error code (plus the public reference's extras) → its usual status. */
export const ERROR_CODES = {
  unauthorized: 401,
  partner_access_denied: 401,
  insufficient_scope: 403,
  product_not_found: 404,
  purchase_id_not_found: 404,
  parcel_id_not_found: 404,
  address_not_found: 404,
  price_prediction_not_available: 404,
  product_has_active_offers: 409,
  product_not_on_sale: 422,
  product_has_been_banned: 422,
  too_many_pictures: 422,
  ingest_picture_error: 422,
  invalid_description: 422,
  invalid_brand: 422,
  invalid_size: 422,
  invalid_department: 422,
  manual_shipping_not_allowed: 422,
  seller_onboarding_incomplete: 422,
  unsupported_country: 422,
  validation: 422,
  'validation-error': 422,
  'bad-request': 400,
  generic_error: 400,
  unexpected_response: 502,
  depop_json_deserialization: 500,
  missing_address_configuration: 500,
  missing_partner_configuration: 500,
  too_many_requests: 429,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;
