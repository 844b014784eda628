// The one rule for where a client may send credentials: `https:`, or plain `http:` to a loopback host
// only (the local simulator). Checked when a client is built (client.ts), by the CLI's --base-url and by
// the n8n credentials' Custom URL, so an API key, an OAuth client secret, a code or a token never
// crosses a network in cleartext. Transport-free and n8n-safe (the WHATWG URL only).

/** Hosts plain http may reach: the loopback interface. Names other than `localhost` are refused. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  // 127.0.0.0/8, in the dotted form the URL parser normalises every IPv4 spelling to.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export class BaseUrlError extends Error {
  override readonly name = 'BaseUrlError';
  readonly code: 'bad_base_url' | 'insecure_base_url';
  constructor(code: 'bad_base_url' | 'insecure_base_url', message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * Returns `baseUrl` unchanged when it may be used, else throws a BaseUrlError (never naming userinfo).
 * `plainHttpHosts`: host names the caller's operator allows over plain http besides loopback — a
 * simulator on a private container network (compose's `simulator` profile); never a production host.
 */
export function checkBaseUrl(baseUrl: string, plainHttpHosts: readonly string[] = []): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new BaseUrlError('bad_base_url', 'the base URL is not an absolute URL');
  }
  // Shown without any user:password the URL may carry.
  const shown = `${url.protocol}//${url.host}`;
  if (url.protocol === 'https:') return baseUrl;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return baseUrl;
  if (url.protocol === 'http:' && plainHttpHosts.includes(url.hostname.toLowerCase())) return baseUrl;
  throw new BaseUrlError(
    'insecure_base_url',
    `base URL ${shown} must use https: (plain http only to a loopback host: 127.0.0.1, ::1, localhost)`,
  );
}
