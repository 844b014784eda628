// A URL feed's GET, under the worker's feed policy (feed-policy.ts): each hop — the URL, then every
// redirect's Location, at most MAX_REDIRECTS — is checked and its host resolved by `checkUrl`, and the
// request connects to that checked address (the request's `lookup` answers it, so nothing re-resolves
// the name between the check and the connection; TLS still verifies the certificate against the host
// name). node:http(s) never follows redirects by itself. Basic credentials from the URL's userinfo go to
// the first URL's origin only, never to another origin a redirect names.
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkUrl, refused, type CheckedTarget, type FeedPolicy } from './feed-policy.ts';

/** Redirects followed at most (each one checked like the first URL). */
export const MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A lookup that answers the address already checked, whatever the name (no second DNS answer). */
function pinned(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    const all = (options as { all?: boolean }).all;
    if (all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
}

/** One GET to a checked target; resolves once the response headers are in. */
function get(
  target: CheckedTarget,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const { url } = target;
  const options: RequestOptions & { servername?: string } = {
    method: 'GET',
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, 'accept-encoding': 'identity' },
    lookup: pinned(target),
    // A fresh connection per request: a pooled one could belong to another name's address.
    agent: false,
    signal,
  };
  return new Promise((resolvePromise, reject) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(options, resolvePromise);
    req.on('error', reject);
    req.end();
  });
}

/**
 * GETs `first` under `policy`, following redirects by hand; resolves with the final answer (any status:
 * the caller reads it). `shown(url)` names a URL in messages without its secrets.
 */
export async function fetchFeed(
  policy: FeedPolicy,
  first: URL,
  authorization: string | undefined,
  signal: AbortSignal,
  shown: (url: URL) => string,
): Promise<IncomingMessage> {
  let url = first;
  for (let hop = 0; ; hop++) {
    const target = await checkUrl(policy, url, shown(url));
    signal.throwIfAborted();
    const headers: Record<string, string> = {};
    if (authorization && url.origin === first.origin) headers.authorization = authorization;
    const res = await get(target, headers, signal);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || !location) return res;
    res.destroy(); // the redirect's own body is not read (draining it could go on without end)
    if (hop >= MAX_REDIRECTS)
      throw refused(`the feed URL ${shown(first)} redirects more than ${MAX_REDIRECTS} times`);
    try {
      url = new URL(location, url);
    } catch {
      throw refused(`the feed URL ${shown(url)} redirects to an invalid URL`);
    }
    // Userinfo in a Location is never sent (only the first URL's, to its own origin).
    url.username = url.password = '';
  }
}
