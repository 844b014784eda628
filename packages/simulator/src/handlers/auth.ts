// OAuth 2.0 for cross-listers: the authorization endpoint (auto-approving consent) and the token
// endpoint POST /api/v1/oauth2/access-token/ (authorization_code with PKCE S256, refresh_token with
// rotation). Errors leave in the token endpoint's own format (OAuthError).
//
// SPEC GAP (authorize endpoint): the real consent page is on the marketplace's website. Ours is
// GET /oauth/authorize on the API port; it approves at once for the seller named by `seller_id` (or
// `username`) and redirects to redirect_uri with `code` and `state`. `decision=deny` simulates a refusal.
// SPEC GAP (code lifetime): authorization codes live `config.authCodeTtlSec` (10 min) and work once; a
// replayed code is refused (invalid_grant) and the tokens issued from it are revoked (RFC 6749 §4.1.2).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SCOPES, type Scope } from '@selling-kit/api-client/core';
import type { SimulatorConfig } from '../config.ts';
import { grantTokens } from '../world.ts';
import { OAuthError } from '../errors.ts';
import type { OAuthClientRecord, SellerState, World } from '../state.ts';
import type { Handlers } from './types.ts';

export const AUTHORIZE_PATH = '/oauth/authorize';

const VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;
const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES);

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const invalidRequest = (detail: string) => new OAuthError(400, 'invalid_request', detail);
const invalidGrant = (detail: string) => new OAuthError(400, 'invalid_grant', detail);

/** Form (or JSON) body → string fields; duplicates and non-strings are invalid_request. */
function readParams(body: unknown): Record<string, string> {
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || Array.isArray(body)) {
    throw invalidRequest('the body must be application/x-www-form-urlencoded parameters');
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (Array.isArray(value)) throw invalidRequest(`parameter "${name}" is repeated`);
    if (typeof value !== 'string') throw invalidRequest(`parameter "${name}" must be a string`);
    out[name] = value;
  }
  return out;
}

function required(params: Record<string, string>, ...names: string[]): void {
  for (const name of names) {
    if (!params[name]) throw invalidRequest(`missing required parameter "${name}"`);
  }
}

function authenticateClient(world: World, params: Record<string, string>): OAuthClientRecord {
  const client = world.oauthClients.get(params.client_id!);
  // SPEC GAP: an unknown client_id → 401 invalid_client (RFC 6749 §5.2); the public reference only
  // documents the wrong-secret case.
  if (!client) throw new OAuthError(401, 'invalid_client', 'unknown client_id');
  if (!safeEqual(client.clientSecret, params.client_secret!)) {
    throw new OAuthError(401, 'client secret does not match', 'client secret does not match');
  }
  return client;
}

function issueTokens(
  world: World,
  config: SimulatorConfig,
  clientId: string,
  sellerId: number,
  scopes: Scope[],
  now: number,
  refreshExpiresAt: number,
) {
  const { accessToken, refreshToken } = grantTokens(world, {
    clientId,
    sellerId,
    scopes,
    accessExpiresAt: now + config.accessTokenTtlSec * 1000,
    refreshExpiresAt,
  });
  return {
    accessToken,
    refreshToken,
    body: {
      access_token: accessToken,
      refresh_token: refreshToken,
      expires_in: config.accessTokenTtlSec,
      token_type: 'Bearer',
      scope: scopes.join(' '),
    },
  };
}

export const authHandlers: Handlers = {
  'auth.token': ({ world, config, body, now }) => {
    const params = readParams(body);
    const grantType = params.grant_type;
    if (!grantType) throw invalidRequest('missing required parameter "grant_type"');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      throw new OAuthError(400, 'unsupported_grant_type', `grant_type "${grantType}" is not supported`);
    }
    required(params, 'client_id', 'client_secret');

    if (grantType === 'authorization_code') {
      required(params, 'code', 'redirect_uri', 'code_verifier');
      if (!VERIFIER_PATTERN.test(params.code_verifier!)) {
        throw invalidRequest('code_verifier must be 43–128 characters of [A-Za-z0-9._~-]');
      }
      const client = authenticateClient(world, params);
      const code = world.authCodes.get(params.code!);
      if (!code) throw invalidGrant('authorization code is invalid');
      if (code.clientId !== client.clientId)
        throw invalidGrant('authorization code was issued to another client');
      if (code.used) {
        if (code.issued) {
          world.accessTokens.delete(code.issued.accessToken);
          world.refreshTokens.delete(code.issued.refreshToken);
        }
        throw invalidGrant('authorization code has already been used');
      }
      if (code.expiresAt <= now) throw invalidGrant('authorization code has expired');
      if (code.redirectUri !== params.redirect_uri) throw invalidGrant('redirect_uri does not match');
      if (pkceChallenge(params.code_verifier!) !== code.codeChallenge) {
        throw invalidRequest('code_verifier does not match the code_challenge');
      }
      code.used = true;
      const issued = issueTokens(
        world,
        config,
        client.clientId,
        code.sellerId,
        code.scopes,
        now,
        now + config.refreshTokenTtlSec * 1000,
      );
      code.issued = { accessToken: issued.accessToken, refreshToken: issued.refreshToken };
      return { body: issued.body };
    }

    required(params, 'refresh_token');
    const client = authenticateClient(world, params);
    const refresh = world.refreshTokens.get(params.refresh_token!);
    if (!refresh || refresh.clientId !== client.clientId) throw invalidGrant('refresh token is invalid');
    if (refresh.used) throw invalidGrant('refresh token has already been used');
    if (refresh.expiresAt <= now) throw invalidGrant('refresh token has expired');
    if (!world.sellers.has(refresh.sellerId)) throw invalidGrant('the seller no longer exists');
    refresh.used = true;
    // Rotation: a new pair; the new refresh token keeps the original expiry.
    const issued = issueTokens(
      world,
      config,
      client.clientId,
      refresh.sellerId,
      refresh.scopes,
      now,
      refresh.expiresAt,
    );
    return { body: issued.body };
  },
};

export type AuthorizeResult =
  | { kind: 'redirect'; location: string }
  /** Errors that must not redirect (unknown client, bad redirect_uri): shown to the "user". */
  | { kind: 'error'; error: OAuthError };

function findSeller(world: World, query: Record<string, unknown>): SellerState | undefined {
  const id = typeof query.seller_id === 'string' ? Number(query.seller_id) : NaN;
  if (Number.isSafeInteger(id)) return world.sellers.get(id);
  const hint = typeof query.username === 'string' ? query.username : query.login_hint;
  if (typeof hint === 'string') {
    for (const seller of world.sellers.values()) if (seller.username === hint) return seller;
  }
  return undefined;
}

/** GET /oauth/authorize: validates, then approves for the named seller and redirects with a code. */
export function authorize(
  world: World,
  config: SimulatorConfig,
  query: Record<string, unknown>,
): AuthorizeResult {
  const str = (name: string): string | undefined => {
    const v = query[name];
    return typeof v === 'string' ? v : undefined;
  };
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value) && (name === 'client_id' || name === 'redirect_uri')) {
      return { kind: 'error', error: invalidRequest(`parameter "${name}" is repeated`) };
    }
  }
  const clientId = str('client_id');
  if (!clientId) return { kind: 'error', error: invalidRequest('missing required parameter "client_id"') };
  const client = world.oauthClients.get(clientId);
  if (!client) return { kind: 'error', error: new OAuthError(400, 'invalid_client', 'unknown client_id') };
  const redirectUri = str('redirect_uri');
  if (!redirectUri)
    return { kind: 'error', error: invalidRequest('missing required parameter "redirect_uri"') };
  if (!client.redirectUris.includes(redirectUri)) {
    return { kind: 'error', error: invalidRequest('redirect_uri is not registered for this client') };
  }

  const state = str('state');
  const redirect = (params: Record<string, string>): AuthorizeResult => {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    if (state !== undefined) url.searchParams.set('state', state);
    return { kind: 'redirect', location: url.toString() };
  };
  const fail = (error: string, description: string) => redirect({ error, error_description: description });

  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) return fail('invalid_request', `parameter "${name}" is repeated`);
  }
  const responseType = str('response_type');
  if (!responseType) return fail('invalid_request', 'missing required parameter "response_type"');
  if (responseType !== 'code')
    return fail('unsupported_response_type', 'only response_type=code is supported');
  const challenge = str('code_challenge');
  if (!challenge) return fail('invalid_request', 'PKCE is required: missing "code_challenge"');
  if (str('code_challenge_method') !== 'S256') {
    return fail('invalid_request', 'code_challenge_method must be S256');
  }
  if (!CHALLENGE_PATTERN.test(challenge)) {
    return fail(
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the verifier (43 characters)',
    );
  }
  const requested = (str('scope') ?? '').split(/[\s+,]+/).filter(Boolean);
  if (requested.length === 0) return fail('invalid_scope', 'scope is required');
  const unknown = requested.filter((s) => !SCOPE_SET.has(s));
  if (unknown.length) return fail('invalid_scope', `unknown scope(s): ${unknown.join(', ')}`);
  if (str('decision') === 'deny') return fail('access_denied', 'the seller denied the request');
  const seller = findSeller(world, query);
  if (!seller)
    return fail('access_denied', 'no seller to approve: pass seller_id or username of an existing seller');

  const now = world.clock.now();
  const code = randomBytes(20).toString('hex');
  world.authCodes.set(code, {
    code,
    clientId: client.clientId,
    sellerId: seller.id,
    scopes: [...new Set(requested)] as Scope[],
    redirectUri,
    codeChallenge: challenge,
    expiresAt: now + config.authCodeTtlSec * 1000,
    used: false,
  });
  return redirect({ code });
}
