// OAuth 2.0 (authorization code + PKCE S256, refresh with rotation) wire objects.
import { z } from 'zod/v4';

export const SCOPES = [
  'products_read',
  'products_write',
  'orders_read',
  'orders_write',
  'offers_read',
  'offers_write',
  'shop_read',
] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

export const GRANT_ENDPOINT_PATH = '/api/v1/oauth2/access-token/';
/** Public reference: the consent page lives on the marketplace's website, not on the API host. */
export const AUTHORIZE_URL_PRODUCTION = 'https://www.depop.com/settings/oauth/apps/';

const pkceVerifier = z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, '43–128 characters of [A-Za-z0-9._~-]');

export const AuthorizationCodeGrant = z.object({
  grant_type: z.literal('authorization_code'),
  code: z.string().min(1),
  redirect_uri: z.string().min(1),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  code_verifier: pkceVerifier,
});
export const RefreshTokenGrant = z.object({
  grant_type: z.literal('refresh_token'),
  refresh_token: z.string().min(1),
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
});
export const TokenRequest = z.discriminatedUnion('grant_type', [AuthorizationCodeGrant, RefreshTokenGrant]);
export type TokenRequest = z.infer<typeof TokenRequest>;

export const OAuthTokenResponse = z.looseObject({
  access_token: z.string(),
  refresh_token: z.string(),
  expires_in: z.number(),
  token_type: z.string().optional(),
  scope: z.string().optional(),
});
export type OAuthTokenResponse = z.infer<typeof OAuthTokenResponse>;

/** The token endpoint's own error format (differs from the service's envelope). */
export const OAuthErrorResponse = z.looseObject({
  code: z.number().int(),
  error: z.string(),
  message: z.string(),
  detail: z.string().optional(),
  error_description: z.string().optional(),
  id: z.string(),
});
export type OAuthErrorResponse = z.infer<typeof OAuthErrorResponse>;

export const StatusResponse = z.looseObject({ status: z.string() });
