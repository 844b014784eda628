// client.auth: the OAuth 2.0 authorization-code flow with PKCE (S256) — the consent URL, the code
// exchange and the refresh, against the token endpoint (form-encoded, its own error format:
// invalid_grant → ReauthorizationRequiredError, anything else → OAuthError).
import { operation } from '../../core/operations.ts';
import {
  buildAuthorizationUrl,
  parseAuthorizationCallback,
  tokenSetFrom,
  type AuthorizationCallback,
  type AuthorizationRequest,
  type AuthorizationUrlInput,
  type TokenSet,
} from '../../core/oauth.ts';
import type { OAuthTokenResponse } from '../../core/schemas/auth.ts';
import type { RequestOptions } from '../requester.ts';
import { Resource } from './resource.ts';

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
}

export class AuthResource extends Resource {
  /**
   * The consent URL to send the seller to, with a fresh `state` (CSRF guard) and PKCE verifier. Keep
   * both until the callback: check the state, pass the verifier to exchangeCode().
   */
  createAuthorizationUrl(
    input: Partial<Pick<AuthorizationUrlInput, 'clientId' | 'redirectUri'>> &
      Omit<AuthorizationUrlInput, 'clientId' | 'redirectUri'>,
  ): AuthorizationRequest {
    const clientId = input.clientId ?? this.ctx.oauth?.clientId;
    const redirectUri = input.redirectUri ?? this.ctx.oauth?.redirectUri;
    if (!clientId || !redirectUri)
      throw new TypeError('createAuthorizationUrl needs clientId and redirectUri');
    return buildAuthorizationUrl({
      ...input,
      clientId,
      redirectUri,
      authorizeUrl: input.authorizeUrl ?? this.ctx.authorizeUrl,
    });
  }

  /** Reads the redirect back from the consent page (throws on refusal or state mismatch). */
  parseCallback(callbackUrl: string, expectedState?: string): AuthorizationCallback {
    return parseAuthorizationCallback(callbackUrl, expectedState);
  }

  /** Exchanges an authorization code (+ the PKCE verifier) for the seller's tokens. */
  async exchangeCode(
    input: { code: string; codeVerifier: string; redirectUri?: string } & ClientCredentials,
    options?: RequestOptions,
  ): Promise<TokenSet> {
    const { clientId, clientSecret } = this.credentials(input);
    const redirectUri = input.redirectUri ?? this.ctx.oauth?.redirectUri;
    if (!redirectUri) throw new TypeError('exchangeCode needs redirectUri');
    return this.token(
      {
        grant_type: 'authorization_code',
        code: input.code,
        redirect_uri: redirectUri,
        client_id: clientId,
        client_secret: clientSecret,
        code_verifier: input.codeVerifier,
      },
      options,
    );
  }

  /**
   * Exchanges a refresh token for a new pair. The old refresh token stops working: persist the new
   * one. Prefer the client's token provider, which does this single-flight.
   */
  async refresh(
    input: { refreshToken: string } & ClientCredentials,
    options?: RequestOptions,
  ): Promise<TokenSet> {
    const { clientId, clientSecret } = this.credentials(input);
    return this.token(
      {
        grant_type: 'refresh_token',
        refresh_token: input.refreshToken,
        client_id: clientId,
        client_secret: clientSecret,
      },
      options,
    );
  }

  private credentials(input: ClientCredentials): { clientId: string; clientSecret: string } {
    const clientId = input.clientId ?? this.ctx.oauth?.clientId;
    const clientSecret = input.clientSecret ?? this.ctx.oauth?.clientSecret;
    if (!clientId || !clientSecret) throw new TypeError('the token endpoint needs clientId and clientSecret');
    return { clientId, clientSecret };
  }

  private async token(form: Record<string, string>, options?: RequestOptions): Promise<TokenSet> {
    const response = await this.ctx.requester.call<OAuthTokenResponse>({
      op: operation('auth.token'),
      form,
      options,
      // A repeat cannot make things worse: a spent code or refresh token is refused either way.
      retryUnknownOutcome: true,
    });
    return tokenSetFrom(response, this.ctx.now());
  }
}
