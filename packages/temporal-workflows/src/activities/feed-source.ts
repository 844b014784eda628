// Where a feed's bytes come from — a file, or an http(s) URL, as the worker's feed policy allows
// (feed-policy.ts) — opened once as a stream, and how a feed is named in messages. Failure messages go
// to the job's caller and to logs, so a URL appears only without its userinfo and query string (a
// presigned URL's signature is a credential), and text taken from the feed only as a short printable
// excerpt.
import type { FileHandle } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { ApplicationFailure } from '@temporalio/common';
import type { FeedFormat } from '../types.ts';
import { fetchFeed } from './feed-fetch.ts';
import { openConfinedFile, type FeedPolicy } from './feed-policy.ts';

/** Waiting for a feed URL's response headers, then between two pieces of its body. */
export const FETCH_HEADERS_TIMEOUT_MS = 30_000;
export const FETCH_IDLE_TIMEOUT_MS = 60_000;

export const isUrl = (path: string) => /^https?:\/\//i.test(path);

/** A feed as messages name it: `https://host/path?…` (no userinfo, no query string), or the file path. */
export function redactSource(path: string): string {
  if (!isUrl(path)) return path;
  try {
    const url = new URL(path);
    return `${url.protocol}//${url.host}${url.pathname}${url.search ? '?…' : ''}`;
  } catch {
    // `new URL`'s own error would quote the whole URL, secrets included.
    return `${path.slice(0, path.indexOf('://') + 3)}(invalid URL)`;
  }
}

/**
 * At most `max` characters of `data` that a terminal shows as they are: control and invisible
 * characters (bytes, for a Buffer) as `\xNN` / `\u{…}`, undecodable ones as `�`; `…` when cut.
 */
export function printable(data: string | Buffer, max = 40): string {
  const units: (string | number)[] = typeof data === 'string' ? [...data] : [...data];
  let out = '';
  for (const unit of units) {
    const piece = typeof unit === 'number' ? byteText(unit) : charText(unit);
    if (out.length + piece.length > max) return `${out}…`;
    out += piece;
  }
  return out;
}

const hex = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');
const byteText = (b: number) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${hex(b)}`);
function charText(c: string): string {
  if (/\p{Cs}/u.test(c)) return '�';
  if (!/[\p{Cc}\p{Cf}\p{Co}\p{Cn}]/u.test(c)) return c;
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${hex(code)}` : `\\u{${code.toString(16).toUpperCase()}}`;
}

/** The first bytes of a file that is not text (an image, an archive): NULs, or many control bytes. */
export function looksBinary(head: Buffer): boolean {
  let control = 0;
  for (const b of head) {
    if (b === 0) return true;
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d) || b === 0x7f) control++;
  }
  return control > head.length * 0.05;
}

/** The feed cannot be used as it is: retrying will not help (a missing file, a 404, a parse error). */
export function unreadable(source: string, format: FeedFormat, reason: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `the ${format} feed ${source} cannot be read: ${reason}`,
    'FeedUnreadable',
  );
}

/** The feed may answer later (a network error, a 5xx): the activity is retried. */
const unavailable = (message: string) => ApplicationFailure.retryable(message, 'FeedUnavailable');

/**
 * The feed's bytes as a stream, read under the worker's feed `policy` (feed-policy.ts): a path inside
 * its roots, a URL it allows (each redirect checked, the checked address connected to: feed-fetch.ts).
 * Errors of the source itself arrive as ApplicationFailures (retryable or not, with redacted messages);
 * a URL's userinfo is sent as Basic authorization, to its own origin only. `signal` (the activity's
 * cancellation) aborts a download at once, waiting for headers or for the next bytes.
 */
export async function openSource(
  path: string,
  format: FeedFormat,
  policy: FeedPolicy,
  signal?: AbortSignal,
): Promise<Readable> {
  const source = redactSource(path);
  if (!isUrl(path)) {
    let file: FileHandle;
    try {
      ({ file } = await openConfinedFile(policy, path)); // a regular file (else refused)
    } catch (error) {
      if (error instanceof ApplicationFailure) throw error;
      throw unreadable(source, format, fileReason(error));
    }
    const stream = file.createReadStream();
    return Readable.from(guard(stream, (e) => unreadable(source, format, fileReason(e))));
  }
  let url: URL;
  try {
    url = new URL(path);
  } catch {
    throw unreadable(source, format, 'not a valid URL');
  }
  let authorization: string | undefined;
  const secrets = [path, url.search, url.search.slice(1), url.password];
  if (url.username || url.password) {
    const user = `${decoded(url.username)}:${decoded(url.password)}`;
    authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    url.username = url.password = '';
  }
  secrets.push(url.href);
  const scrub = (text: string) =>
    secrets.filter((s) => s.length >= 3).reduce((t, s) => t.split(s).join('…'), text);

  const abort = new AbortController();
  let stalled = false;
  const stall = () => {
    stalled = true;
    abort.abort();
  };
  const wait = setTimeout(stall, FETCH_HEADERS_TIMEOUT_MS);
  const both = signal ? AbortSignal.any([abort.signal, signal]) : abort.signal;
  let res: IncomingMessage;
  try {
    res = await fetchFeed(policy, url, authorization, both, (u) => redactSource(u.href));
  } catch (error) {
    if (error instanceof ApplicationFailure) throw error;
    const why = stalled ? `no answer within ${FETCH_HEADERS_TIMEOUT_MS / 1000} s` : networkReason(error);
    throw unavailable(`GET ${source} failed: ${printable(scrub(why), 200)}`);
  } finally {
    clearTimeout(wait);
  }
  const status = res.statusCode ?? 0;
  const answered = `GET ${source} answered ${status}`;
  if (status < 200 || status >= 300) {
    res.destroy();
    if (status === 408 || status === 429 || status >= 500) throw unavailable(answered);
    throw unreadable(source, format, answered);
  }
  // From now on a timer watches the body: it fires when no bytes came for a while.
  const idle = setTimeout(stall, FETCH_IDLE_TIMEOUT_MS).unref();
  const broke = (error: unknown) => {
    const why = stalled ? `no data for ${FETCH_IDLE_TIMEOUT_MS / 1000} s` : networkReason(error);
    return unavailable(`GET ${source} broke off: ${printable(scrub(why), 200)}`);
  };
  return Readable.from(
    guard(res, broke, {
      onChunk: () => idle.refresh(),
      onEnd: () => clearTimeout(idle),
    }),
  );
}

/** A URL's userinfo part as typed (percent-decoded when it decodes). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** A stream's chunks, its errors turned into `failure(error)`. */
async function* guard(
  stream: Readable,
  failure: (error: unknown) => Error,
  on: { onChunk?: () => void; onEnd?: () => void } = {},
): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream) {
      on.onChunk?.();
      yield chunk as Buffer;
    }
  } catch (error) {
    throw failure(error);
  } finally {
    on.onEnd?.();
    stream.destroy();
  }
}

function fileReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return printable((error as Error).message, 200);
}

/** A network error's reason ("connect ECONNREFUSED …", a TLS error), or its `cause`'s when it has one. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.message ?? cause?.code ?? (error as Error).message;
}
