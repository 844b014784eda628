// OAuth 2.0 authorization-code flow with PKCE (S256 only), public reference §6: the consent URL, the
// token endpoint's form bodies, and the token set the client keeps. n8n-safe (`node:crypto` only).
import { createHash, randomBytes } from 'node:crypto';
import { AUTHORIZE_URL_PRODUCTION, type OAuthTokenResponse, type Scope } from './schemas/auth.ts';
import { PRODUCTION_BASE_URL, STAGING_BASE_URL } from './request.ts';

/** The simulator's consent page (auto-approving), on the API host. */
export const SIMULATOR_CONSENT_PATH = '/oauth/authorize';

/** Tokens as the client keeps them: `expiresAt` in epoch ms. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds; undefined = unknown (refresh only after a 401). */
  expiresAt?: number;
  /** Granted scopes, when the token endpoint says. */
  scopes?: string[];
}

export function tokenSetFrom(response: OAuthTokenResponse, now: number): TokenSet {
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    expiresAt: now + response.expires_in * 1000,
    scopes: response.scope ? response.scope.split(/[\s+,]+/).filter(Boolean) : undefined,
  };
}

/** A fresh PKCE verifier: 64 characters of base64url (43–128 of `[A-Za-z0-9._~-]` allowed). */
export function createCodeVerifier(): string {
  return randomBytes(48).toString('base64url');
}

/** S256 challenge: base64url(SHA-256(verifier)) without padding. */
export function codeChallengeS256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function createState(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The consent page for a base URL: the marketplace's website for the production and staging API hosts,
 * the simulator's `/oauth/authorize` for anything else (a local simulator).
 */
export function defaultAuthorizeUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  if (base === PRODUCTION_BASE_URL || base === STAGING_BASE_URL) return AUTHORIZE_URL_PRODUCTION;
  return base + SIMULATOR_CONSENT_PATH;
}

export interface AuthorizationUrlInput {
  clientId: string;
  redirectUri: string;
  scopes: readonly (Scope | string)[];
  /** CSRF guard echoed back on the redirect; generated when omitted. */
  state?: string;
  /** PKCE verifier; generated when omitted. Keep it until the code exchange. */
  codeVerifier?: string;
  /** Consent page; default from the client's base URL (see defaultAuthorizeUrl). */
  authorizeUrl?: string;
  /** Extra query parameters (the simulator takes `seller_id` or `username` to approve at once). */
  extraParams?: Record<string, string>;
}

export interface AuthorizationRequest {
  url: string;
  state: string;
  codeVerifier: string;
  codeChallenge: string;
}

export function buildAuthorizationUrl(
  input: AuthorizationUrlInput & { authorizeUrl: string },
): AuthorizationRequest {
  const state = input.state ?? createState();
  const codeVerifier = input.codeVerifier ?? createCodeVerifier();
  const codeChallenge = codeChallengeS256(codeVerifier);
  const url = new URL(input.authorizeUrl);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    scope: input.scopes.join(' '),
    state,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
    ...input.extraParams,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return { url: url.toString(), state, codeVerifier, codeChallenge };
}

export interface AuthorizationCallback {
  code: string;
  state: string | undefined;
}

/**
 * Reads the redirect back from the consent page. Throws when the seller refused (`error`), when the
 * state does not match (CSRF), or when there is no code.
 */
export function parseAuthorizationCallback(
  callbackUrl: string,
  expectedState?: string,
): AuthorizationCallback {
  const params = new URL(callbackUrl, 'http://localhost').searchParams;
  const state = params.get('state') ?? undefined;
  if (expectedState !== undefined && state !== expectedState) {
    throw new AuthorizationCallbackError(
      'state_mismatch',
      'the state parameter does not match (possible CSRF)',
    );
  }
  const error = params.get('error');
  if (error) throw new AuthorizationCallbackError(error, params.get('error_description') ?? error);
  const code = params.get('code');
  if (!code)
    throw new AuthorizationCallbackError('missing_code', 'the callback carries no authorization code');
  return { code, state };
}

export class AuthorizationCallbackError extends Error {
  readonly error: string;
  constructor(error: string, message: string) {
    super(message);
    this.name = 'AuthorizationCallbackError';
    this.error = error;
  }
}
