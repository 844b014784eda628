// Credentials: an API key per shop (direct partners), or OAuth 2.0 tokens per seller (cross-listers).
// The OAuth provider refreshes single-flight: however many callers find the token expired, one refresh
// request goes out and everyone awaits the same promise (refresh tokens rotate, so a second concurrent
// refresh would be refused). The rotated tokens are handed to `onTokens` and awaited before the new
// access token is used. n8n-safe: no timers, no globals.
import { createHash, randomUUID } from 'node:crypto';
import { ReauthorizationRequiredError, SellingApiError } from '../core/errors.ts';
import type { TokenSet } from '../core/oauth.ts';

export interface AuthProvider {
  /** Pacing key of the shop or seller (never the secret itself). */
  readonly identity: string;
  /** Pacing key of the OAuth application, for the app-wide budget. */
  readonly app?: string;
  /** The Authorization header value to send now. */
  authorization(): Promise<string>;
  /**
   * The answer to `authorization` was 401 unauthorized. Resolve true when a replay may succeed (a new
   * token is in place), false to surface the 401.
   */
  unauthorized?(sentAuthorization: string): Promise<boolean>;
  /** Secret values to scrub from logs and error messages. */
  secrets(): readonly (string | undefined)[];
}

function fingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}

export class ApiKeyAuth implements AuthProvider {
  readonly identity: string;
  private readonly header: string;
  private readonly key: string;

  constructor(apiKey: string, identity?: string) {
    if (!apiKey) throw new TypeError('apiKey is empty');
    this.key = apiKey;
    this.header = `Bearer ${apiKey}`;
    this.identity = identity ?? `key:${fingerprint(apiKey)}`;
  }

  authorization(): Promise<string> {
    return Promise.resolve(this.header);
  }

  secrets(): readonly string[] {
    return [this.key];
  }

  toJSON() {
    return { type: 'api_key', identity: this.identity };
  }
}

/** Calls the token endpoint with `grant_type=refresh_token` (see AuthResource.refresh). */
export type RefreshFunction = (refreshToken: string) => Promise<TokenSet>;

export interface OAuthTokenProviderOptions {
  tokens: TokenSet;
  refresh: RefreshFunction;
  /**
   * Persists rotated tokens (the old refresh token no longer works once used). Awaited before the new
   * access token is used; if it throws, callers get the error and the next call retries persisting.
   */
  onTokens?: (tokens: TokenSet) => void | Promise<void>;
  /** Refresh this long before `expiresAt`. Default 60 000 ms. */
  refreshSkewMs?: number;
  now?: () => number;
  /** Pacing key of the seller (e.g. `seller:<id>`); default a random id for this provider. */
  identity?: string;
  /** Pacing key of the application (its client id), for the app-wide budget. */
  app?: string;
  /** Observes each refresh (for logging). */
  onRefresh?: (event: { ok: boolean; durationMs: number; error?: unknown }) => void;
}

export class OAuthTokenProvider implements AuthProvider {
  readonly identity: string;
  readonly app: string | undefined;
  private tokens: TokenSet;
  /** Tokens from a refresh whose persistence failed: persisted again before use. */
  private unpersisted: TokenSet | undefined;
  private inflight: Promise<TokenSet> | undefined;
  private dead: ReauthorizationRequiredError | undefined;
  private readonly refreshFn: RefreshFunction;
  private readonly onTokens: OAuthTokenProviderOptions['onTokens'];
  private readonly onRefresh: OAuthTokenProviderOptions['onRefresh'];
  private readonly skewMs: number;
  private readonly now: () => number;
  /** Refresh requests sent by this provider. */
  refreshCount = 0;

  constructor(options: OAuthTokenProviderOptions) {
    this.tokens = { ...options.tokens };
    this.refreshFn = options.refresh;
    this.onTokens = options.onTokens;
    this.onRefresh = options.onRefresh;
    this.skewMs = options.refreshSkewMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.identity = options.identity ?? `oauth:${randomUUID()}`;
    this.app = options.app;
  }

  /** A copy of the tokens in use. */
  current(): TokenSet {
    return { ...this.tokens };
  }

  async authorization(): Promise<string> {
    return `Bearer ${await this.accessToken()}`;
  }

  /** A valid access token, refreshing first (single-flight) when it is expired or about to be. */
  async accessToken(): Promise<string> {
    if (this.dead) throw this.dead;
    if (this.inflight) return (await this.inflight).accessToken;
    if (this.unpersisted) return (await this.refreshOnce()).accessToken;
    const { expiresAt } = this.tokens;
    if (expiresAt !== undefined && this.now() >= expiresAt - this.skewMs) {
      return (await this.refreshOnce()).accessToken;
    }
    return this.tokens.accessToken;
  }

  async unauthorized(sentAuthorization: string): Promise<boolean> {
    if (this.dead) throw this.dead;
    // Someone refreshed since this request left: just replay with the new token.
    if (this.inflight) {
      await this.inflight;
      return true;
    }
    if (sentAuthorization !== `Bearer ${this.tokens.accessToken}`) return true;
    await this.refreshOnce();
    return true;
  }

  /** Refresh now (single-flight: concurrent callers share one request). */
  refreshNow(): Promise<TokenSet> {
    return this.refreshOnce();
  }

  secrets(): readonly (string | undefined)[] {
    return [
      this.tokens.accessToken,
      this.tokens.refreshToken,
      this.unpersisted?.accessToken,
      this.unpersisted?.refreshToken,
    ];
  }

  toJSON() {
    return { type: 'oauth', identity: this.identity, app: this.app, expiresAt: this.tokens.expiresAt };
  }

  private refreshOnce(): Promise<TokenSet> {
    if (this.dead) return Promise.reject(this.dead);
    this.inflight ??= this.runRefresh().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /** Observers never break a refresh: what they throw is dropped. */
  private observe(event: Parameters<NonNullable<OAuthTokenProviderOptions['onRefresh']>>[0]): void {
    try {
      this.onRefresh?.(event);
    } catch {
      // an observer's own bug must not lose the rotated tokens
    }
  }

  private async runRefresh(): Promise<TokenSet> {
    let next = this.unpersisted;
    if (!next) {
      const started = this.now();
      this.refreshCount++;
      try {
        next = await this.refreshFn(this.tokens.refreshToken);
      } catch (error) {
        this.observe({ ok: false, durationMs: this.now() - started, error });
        if (error instanceof ReauthorizationRequiredError) this.dead = error;
        throw error;
      }
      // Rotation: the old refresh token is spent from here on; keep the new pair until persisted,
      // before anything else (an observer) gets a chance to throw.
      this.unpersisted = next;
      this.observe({ ok: true, durationMs: this.now() - started });
    }
    if (this.onTokens) {
      try {
        await this.onTokens({ ...next });
      } catch (error) {
        throw new SellingApiError({
          code: 'token_persistence_failed',
          message:
            'onTokens failed to persist the rotated tokens; they will be offered again on the next call',
          cause: error,
        });
      }
    }
    this.tokens = next;
    this.unpersisted = undefined;
    return next;
  }
}
