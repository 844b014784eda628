// Before a job starts: one cheap request per API-key shop (GET /api/v1/shop/) so a wrong key or an
// unreachable API is a clear error now, not a report full of 401s later; a feed URL that does not answer
// 2xx is bad input now (exit 2), not a job that retries its read for minutes and fails.
import { createClient, SellingApiError, TransportError, UnauthorizedError } from '@selling-kit/api-client';
import { redactSource } from '@selling-kit/temporal-workflows';
import { CliError, EXIT } from './errors.ts';
import type { ShopCredential } from './stores.ts';

/** How long a feed URL has to answer the check. */
export const FEED_CHECK_TIMEOUT_MS = 10_000;

/**
 * The feed URL answers 2xx: HEAD first; on any other answer a GET of one byte (a presigned URL is signed
 * for GET only, some servers refuse HEAD), its body dropped once the headers are in. A user name and
 * password in the URL are sent as Basic authorization, as the worker sends them. The URL is named as
 * the worker names it (no userinfo, no query string), never through an error's own message.
 */
export async function checkFeedUrl(path: string): Promise<void> {
  const shown = redactSource(path);
  const fail = (why: string) =>
    new CliError(
      'feed_unavailable',
      `the feed URL ${shown} ${why}`,
      EXIT.usage,
      'check the URL (a presigned one may have expired); `bulk --no-check` skips this check',
    );
  const url = new URL(path);
  const secrets = [url.search, url.password, url.username].filter((x) => x.length >= 3);
  const scrub = (text: string) => secrets.reduce((t, x) => t.split(x).join('…'), text);
  const headers: Record<string, string> = {};
  if (url.username || url.password) {
    const user = `${decoded(url.username)}:${decoded(url.password)}`;
    headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    url.username = url.password = '';
  }
  const ask = async (method: 'HEAD' | 'GET') => {
    const signal = AbortSignal.timeout(FEED_CHECK_TIMEOUT_MS);
    try {
      const res = await fetch(url, {
        method,
        signal,
        headers: method === 'GET' ? { ...headers, range: 'bytes=0-0' } : headers,
      });
      await res.body?.cancel();
      return res;
    } catch (e) {
      // The reason ("connect ECONNREFUSED 127.0.0.1:8080", "bad port"), never the URL's secrets.
      const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
      const why = [cause?.code, cause?.message].find((v): v is string => typeof v === 'string');
      throw fail(
        signal.aborted
          ? `did not answer within ${FEED_CHECK_TIMEOUT_MS / 1000} s`
          : `cannot be reached${why ? ` (${scrub(why)})` : ''}`,
      );
    }
  };
  if ((await ask('HEAD')).ok) return;
  const res = await ask('GET');
  // 416: the range is past the end — the file exists and is empty (the job will say so).
  if (res.ok || res.status === 416) return;
  throw fail(`answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`);
}

/** A URL's userinfo part as typed (percent-decoded when it decodes). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * A client for checking an API key with one GET /api/v1/shop/: one retry, `timeoutMs` per attempt and
 * twice that in all, so a wrong base URL fails fast.
 */
export function credentialCheckClient(credential: { baseUrl: string; apiKey: string }, timeoutMs: number) {
  return createClient({
    baseUrl: credential.baseUrl,
    apiKey: credential.apiKey,
    retry: { maxRetries: 1 },
    timeoutMs,
    totalTimeoutMs: 2 * timeoutMs,
  });
}

export async function checkShopCredential(shopId: string, credential: ShopCredential): Promise<void> {
  const client = credentialCheckClient(credential, 10_000);
  try {
    await client.shop.get();
  } catch (e) {
    if (e instanceof UnauthorizedError)
      throw new CliError(
        'credential_rejected',
        `the API key of shop "${shopId}" was rejected by ${credential.baseUrl} (401 unauthorized)`,
        EXIT.credentials,
        `store the right key with \`selling-kit shops add ${shopId} --api-key-stdin\``,
      );
    if (e instanceof SellingApiError && !(e instanceof TransportError))
      throw new CliError(
        'credential_check_failed',
        `checking shop "${shopId}" at ${credential.baseUrl} failed: ${e.status ?? ''} ${e.code}`.replace(
          '  ',
          ' ',
        ),
        EXIT.credentials,
      );
    throw new CliError(
      'api_unreachable',
      `the API at ${credential.baseUrl} (shop "${shopId}") cannot be reached: ${(e as Error).message}`,
      EXIT.credentials,
      'is the simulator running (`selling-kit simulator --demo`), or is the base URL right?',
    );
  }
}
