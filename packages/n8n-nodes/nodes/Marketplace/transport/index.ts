// The client core on n8n's transport: every request goes through `httpRequestWithAuthentication`, so
// n8n's credentials (and its OAuth2 refresh) do the auth; the client keeps the rest — local validation,
// pacing by rate group, retries by the spec's rules (429s wait Retry-After with n8n's own sleep, capped),
// typed errors. No timers, no globals: n8n's community-package rules.
import {
  sleep,
  type IExecuteFunctions,
  type IHookFunctions,
  type IHttpRequestMethods,
  type IHttpRequestOptions,
} from 'n8n-workflow';
import {
  SellingClient,
  TransportError,
  type AuthProvider,
  type Transport,
  type TransportResponse,
} from '@selling-kit/api-client/client';

import { resolveBaseUrl } from '../../../credentials/environments';

export type CredentialType = 'marketplaceApi' | 'marketplaceOAuth2Api';

/** The credential a node's Authentication value picks: OAuth2's, else (the default) the API key's. */
export const credentialTypeOf = (authentication: unknown): CredentialType =>
  authentication === 'oAuth2' ? 'marketplaceOAuth2Api' : 'marketplaceApi';

/** Longest Retry-After the node waits for in one execution; beyond it the 429 is the item's error. */
export const MAX_RETRY_AFTER_MS = 30_000;

interface FullResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  return JSON.stringify(body);
}

/**
 * "No answer" for the client core, which retries (idempotent calls) or verifies (creates) on it. It never
 * reaches n8n as such: the router turns whatever the client finally throws into a NodeApiError.
 */
function noAnswer(url: string, failure: unknown): TransportError {
  return new TransportError({
    kind: 'network',
    message: `no answer from ${new URL(url).host}: ${(failure as Error)?.message ?? 'unknown error'}`,
    cause: failure,
  });
}

type HttpFailure = {
  httpCode?: string | null;
  cause?: { response?: { status?: number; headers?: unknown; data?: unknown } };
  response?: { status?: number; headers?: unknown; data?: unknown };
};

function lowerCaseHeaders(headers: unknown): TransportResponse['headers'] {
  if (!headers || typeof headers !== 'object') return {};
  const out: TransportResponse['headers'] = {};
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (typeof value === 'string' || Array.isArray(value))
      out[name.toLowerCase()] = value as string | string[];
    else if (typeof value === 'number') out[name.toLowerCase()] = String(value);
  }
  return out;
}

/**
 * The answer inside an error n8n threw for an HTTP status (a 401 that its OAuth2 refresh could not
 * cure): handed back as a response so the client classifies it (code, error id) like any other.
 */
function answerOf(failure: unknown): TransportResponse | undefined {
  if (!failure || typeof failure !== 'object') return undefined;
  const f = failure as HttpFailure;
  const response = f.cause?.response ?? f.response;
  const status = response?.status ?? (f.httpCode ? Number(f.httpCode) : NaN);
  if (!Number.isInteger(status) || status < 100) return undefined;
  return { status, headers: lowerCaseHeaders(response?.headers), body: bodyText(response?.data) };
}

/**
 * Which statuses n8n should throw instead of returning. For OAuth2 a 401 must throw: that is what
 * makes n8n refresh the token (and store the rotated refresh token) and replay the request once.
 */
export function statusErrors(credentialType: CredentialType): IHttpRequestOptions['ignoreHttpStatusErrors'] {
  return credentialType === 'marketplaceOAuth2Api' ? { ignore: true, except: [401] } : true;
}

export function n8nTransport(
  ctx: IExecuteFunctions | IHookFunctions,
  credentialType: CredentialType,
): Transport {
  return {
    async send(request): Promise<TransportResponse> {
      // n8n adds the credential's Authorization header; the client's placeholder is dropped.
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => name !== 'authorization'),
      );
      let response: FullResponse | undefined;
      let failure: unknown;
      try {
        response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, credentialType, {
          method: request.method as IHttpRequestMethods,
          url: request.url,
          headers,
          body: request.body,
          json: false,
          returnFullResponse: true,
          ignoreHttpStatusErrors: statusErrors(credentialType),
          timeout: request.timeoutMs,
        })) as FullResponse;
      } catch (error) {
        failure = error;
      }
      if (!response) {
        const answer = answerOf(failure);
        if (answer) return answer;
        throw noAnswer(request.url, failure);
      }
      return {
        status: response.statusCode,
        headers: lowerCaseHeaders(response.headers),
        body: bodyText(response.body),
      };
    },
  };
}

/** n8n authenticates each request itself: the client only needs a pacing identity. */
function n8nAuth(identity: string): AuthProvider {
  return {
    identity,
    authorization: () => Promise.resolve('n8n-credential'),
    secrets: () => [],
  };
}

export async function createNodeClient(ctx: IExecuteFunctions): Promise<SellingClient> {
  const credentialType = credentialTypeOf(ctx.getNodeParameter('authentication', 0, 'apiKey'));
  const credentials = await ctx.getCredentials(credentialType);
  // One rule for every use of the credential (its test, OAuth URLs, these requests): an edited simulator
  // address counts here too.
  const baseUrl = resolveBaseUrl(credentials);
  return new SellingClient({
    baseUrl,
    auth: n8nAuth(`n8n:${ctx.getNode().id}:${credentialType}`),
    transport: n8nTransport(ctx, credentialType),
    sleep: (ms) => sleep(ms),
    now: () => Date.now(),
    retry: { maxRetryAfterMs: MAX_RETRY_AFTER_MS },
  });
}

/**
 * The client for a trigger's lifecycle methods (`webhookMethods`: IHookFunctions, no items), on the
 * credential the node chose: the same transport, pacing identity and retry rules as the action node.
 */
export async function createHookClient(
  ctx: IHookFunctions,
  credentialType: CredentialType,
): Promise<SellingClient> {
  const credentials = await ctx.getCredentials(credentialType);
  return new SellingClient({
    baseUrl: resolveBaseUrl(credentials),
    auth: n8nAuth(`n8n:${ctx.getNode().id}:${credentialType}`),
    transport: n8nTransport(ctx, credentialType),
    sleep: (ms) => sleep(ms),
    now: () => Date.now(),
    retry: { maxRetryAfterMs: MAX_RETRY_AFTER_MS },
  });
}
