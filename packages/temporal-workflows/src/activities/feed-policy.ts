// What a worker lets a job's feed be (H2, M1): its own setting, never the job input's. A path feed must
// resolve (realpath, symlinks followed) inside one of the worker's feed roots; a URL feed must be https
// (plain http only to a loopback address, and only on a dev worker), to a host of the allow-list when
// there is one, and every address its name resolves to must be public — checked on every redirect hop,
// and the connection is made to the address checked (feed-fetch.ts), so DNS cannot answer differently
// in between. Limits bound what one feed may cost the worker: bytes, one record's bytes, items.
//
// Client-side code loads this module too (the CLI's feed check goes through snapshot.ts), so it imports
// nothing of the worker runtime; the variables' names are defined here and re-exported by worker-env.ts.
import { constants, type Stats } from 'node:fs';
import { access, open, realpath, type FileHandle } from 'node:fs/promises';
import { delimiter, isAbsolute, relative, resolve } from 'node:path';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';

/** The worker's settings of the policy (worker-main, `selling-kit worker`). */
export const FEED_POLICY_ENV = {
  roots: 'SELLING_KIT_FEED_ROOTS',
  hosts: 'SELLING_KIT_FEED_HOSTS',
  maxBytes: 'SELLING_KIT_FEED_MAX_BYTES',
  maxRecordBytes: 'SELLING_KIT_FEED_MAX_RECORD_BYTES',
  maxItems: 'SELLING_KIT_FEED_MAX_ITEMS',
  /** `1`: plain http to this machine's loopback addresses too (a local test or dev worker; never production). */
  loopbackHttp: 'SELLING_KIT_FEED_LOOPBACK_HTTP',
} as const;

export const FEED_LIMIT_DEFAULTS = {
  maxBytes: 512 * 1024 * 1024,
  maxRecordBytes: 1024 * 1024,
  maxItems: 1_000_000,
} as const;

export interface FeedPolicy {
  /** Folders path feeds may be in (absolute). None: path feeds are refused. */
  roots: readonly string[];
  /** Host names URL feeds may name (`.example.com`: it and its subdomains); absent: any public host. */
  hosts?: readonly string[];
  /** Plain http to a loopback address (and loopback addresses at all): the CLI's dev and test workers. */
  allowLoopbackHttp: boolean;
  /** The most bytes one feed may hold. */
  maxBytes: number;
  /** The most bytes one line, CSV record or JSON array element may hold. */
  maxRecordBytes: number;
  /** The most items one feed may hold. */
  maxItems: number;
}

/** A policy: `over` on the defaults (no roots, any public https host, no loopback, default limits). */
export function feedPolicy(over: Partial<FeedPolicy> = {}): FeedPolicy {
  return {
    roots: (over.roots ?? []).map((r) => resolve(r)),
    ...(over.hosts ? { hosts: over.hosts.map(hostKey) } : {}),
    allowLoopbackHttp: over.allowLoopbackHttp ?? false,
    maxBytes: over.maxBytes ?? FEED_LIMIT_DEFAULTS.maxBytes,
    maxRecordBytes: over.maxRecordBytes ?? FEED_LIMIT_DEFAULTS.maxRecordBytes,
    maxItems: over.maxItems ?? FEED_LIMIT_DEFAULTS.maxItems,
  };
}

/** One line for a worker's start log: what its jobs' feeds may be. */
export function describeFeedPolicy(policy: FeedPolicy): string {
  const paths = policy.roots.length ? `paths under ${policy.roots.join(', ')}` : 'no paths';
  const hosts = policy.hosts ? `hosts ${policy.hosts.join(', ')}` : 'any public host';
  const http = policy.allowLoopbackHttp ? ' (and http to this machine: dev)' : '';
  return `feeds: ${paths}; https URLs to ${hosts}${http}; at most ${policy.maxBytes} bytes, ${policy.maxItems} items`;
}

/** A bad setting: the message names the variable. */
export class FeedPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedPolicyError';
  }
}

/**
 * The policy the environment sets, with `extra` roots added (a dev worker's folders) and `extra`'s other
 * fields winning. Throws FeedPolicyError naming the variable of a bad value.
 */
export function feedPolicyFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  extra: Partial<FeedPolicy> = {},
): FeedPolicy {
  const list = (name: string, split: string) =>
    (env[name] ?? '')
      .split(split)
      .map((s) => s.trim())
      .filter(Boolean);
  const roots = list(FEED_POLICY_ENV.roots, delimiter);
  const relativeRoot = roots.find((r) => !isAbsolute(r));
  if (relativeRoot !== undefined)
    throw new FeedPolicyError(`${FEED_POLICY_ENV.roots}: "${relativeRoot}" is not an absolute path`);
  const hosts = list(FEED_POLICY_ENV.hosts, ',');
  const loopbackHttp = env[FEED_POLICY_ENV.loopbackHttp]?.trim();
  if (loopbackHttp && loopbackHttp !== '0' && loopbackHttp !== '1')
    throw new FeedPolicyError(`${FEED_POLICY_ENV.loopbackHttp}: "${loopbackHttp}" is not 0 or 1`);
  const size = (key: 'maxBytes' | 'maxRecordBytes' | 'maxItems') => {
    const name = FEED_POLICY_ENV[key];
    const raw = env[name]?.trim();
    if (!raw) return FEED_LIMIT_DEFAULTS[key];
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1)
      throw new FeedPolicyError(`${name}: "${raw}" is not a whole number above 0`);
    return n;
  };
  return feedPolicy({
    hosts: hosts.length ? hosts : undefined,
    maxBytes: size('maxBytes'),
    maxRecordBytes: size('maxRecordBytes'),
    maxItems: size('maxItems'),
    ...(loopbackHttp === '1' ? { allowLoopbackHttp: true } : {}),
    ...extra,
    roots: [...roots, ...(extra.roots ?? [])],
  });
}

/** The input asks for what this worker does not allow: retrying will not help. */
export const refused = (message: string) => ApplicationFailure.nonRetryable(message, 'FeedRefused');

// --- Paths ---

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Opens `path` for reading if it is inside a root, or throws `refused` (outside, feeds off) — before
 * the file system is touched for a path outside every root, so a refusal says nothing of what exists
 * there. A symlink is followed and its target must be inside a root too; what is opened must be a
 * regular file (a FIFO, device or directory is refused, never waited on or read). The file system's
 * error (ENOENT…) is thrown for a file inside a root that cannot be opened.
 */
export async function openConfinedFile(
  policy: FeedPolicy,
  path: string,
  what = 'the feed',
): Promise<{ file: FileHandle; real: string }> {
  if (policy.roots.length === 0)
    throw refused(`feed paths are off on this worker: set ${FEED_POLICY_ENV.roots}`);
  const outside = () =>
    refused(`${what} ${path} is outside this worker's feed roots (${FEED_POLICY_ENV.roots})`);
  if (!isAbsolute(path)) throw refused(`${what} ${path} is not an absolute path`);
  const asked = resolve(path);
  const roots = await realRoots(policy.roots);
  if (!roots.some(({ given, real }) => inside(given, asked) || inside(real, asked))) throw outside();
  const real = await realpath(asked); // ENOENT and the like: the caller names them
  if (!roots.some((r) => inside(r.real, real))) throw outside();
  // O_NOFOLLOW: the resolved file itself cannot have become a symlink since. O_NONBLOCK: a FIFO's open
  // does not wait for a writer (it is refused just below; for a regular file the flag changes nothing).
  const file = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    // What was opened, not what the name meant a moment ago: a regular file, still inside a root (a
    // folder on the way may have been swapped for a symlink since the realpath).
    const st = await file.stat();
    if (!st.isFile()) throw refused(`${what} ${path} is not a regular file (${fileKind(st)})`);
    const opened = await realpath(`${PROC_FD}/${file.fd}`).catch(async (error: unknown) => {
      if (await hasProcFd()) throw error;
      return undefined; // no /proc (not Linux): the realpath above is the check
    });
    if (opened !== undefined && !roots.some((r) => inside(r.real, opened))) throw outside();
  } catch (error) {
    await file.close();
    throw error;
  }
  return { file, real };
}

/** Where Linux shows an open file descriptor's path. */
const PROC_FD = '/proc/self/fd';

async function hasProcFd(): Promise<boolean> {
  try {
    await access(PROC_FD);
    return true;
  } catch {
    return false;
  }
}

/** What a non-regular file is, for a refusal. */
function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a file';
}

/** Each root as given and as its realpath (a root that does not exist keeps its own name). */
async function realRoots(roots: readonly string[]): Promise<{ given: string; real: string }[]> {
  return Promise.all(roots.map(async (given) => ({ given, real: await realpath(given).catch(() => given) })));
}

// --- URLs ---

/** A host as the allow-list compares it: lower case, no trailing dot, IPv6 without brackets. */
const hostKey = (host: string) =>
  host
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[|\]$/g, '');

/** Where to connect for one hop of a URL feed: the checked address and its family. */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * Checks one hop of a URL feed (the first URL or a redirect's Location) and resolves its host; the
 * caller connects to `address` and nothing else. Throws `refused` naming the rule.
 */
export async function checkUrl(
  policy: FeedPolicy,
  url: URL,
  shown: string,
  resolveHost: typeof lookup = lookup,
): Promise<CheckedTarget> {
  const host = hostKey(url.hostname);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw refused(`the feed URL ${shown} is not https`);
  if (
    policy.hosts &&
    !policy.hosts.some((h) => (h.startsWith('.') ? host.endsWith(h) || `.${host}` === h : h === host))
  )
    throw refused(`the feed URL ${shown} names a host not in ${FEED_POLICY_ENV.hosts}`);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolveHost(host, { all: true, verbatim: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw ApplicationFailure.retryable(
        `the feed URL ${shown}: its host does not resolve (${code ?? 'DNS error'})`,
        'FeedUnavailable',
      );
    }
  }
  if (addresses.length === 0)
    throw ApplicationFailure.retryable(`the feed URL ${shown}: its host has no address`, 'FeedUnavailable');
  // Where it points first (the more telling reason), then how it is reached.
  const kinds = addresses.map((a) => addressKind(a.address));
  const bad = kinds.find((k) => k !== 'public' && !(k === 'loopback' && policy.allowLoopbackHttp));
  if (bad)
    throw refused(
      `the feed URL ${shown} resolves to a ${bad} address: feeds are fetched from public addresses only`,
    );
  if (url.protocol === 'http:' && !(policy.allowLoopbackHttp && kinds.every((k) => k === 'loopback')))
    throw refused(
      `the feed URL ${shown} is not https (plain http only to a loopback address on a dev worker)`,
    );
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'unspecified'
  | 'reserved';

/** What kind of address `address` is (an IPv4-mapped or NAT64 IPv6 address as its IPv4 address). */
export function addressKind(address: string): AddressKind {
  const family = isIP(address);
  if (family === 4) return ipv4Kind(address.split('.').map(Number));
  if (family !== 6) return 'reserved';
  const b = ipv6Bytes(address);
  return carriedKind(b) ?? ipv6Kind(b);
}

/**
 * An IPv6 address that carries an IPv4 address is as open as that address (a resolver may answer with
 * one to reach a private IPv4 host): mapped, translated, compatible, NAT64, 6to4. Undefined otherwise.
 */
function carriedKind(b: number[]): AddressKind | undefined {
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return ipv4Kind(b.slice(12)); // ::ffff:a.b.c.d
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return ipv4Kind(b.slice(12)); // ::ffff:0:a.b.c.d, translated
  if (zero(0, 12)) {
    if (b[15] === 0 && zero(12, 15)) return 'unspecified';
    if (b[15] === 1 && zero(12, 15)) return 'loopback';
    return ipv4Kind(b.slice(12)); // ::a.b.c.d (deprecated IPv4-compatible)
  }
  const nat64 = b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b;
  if (nat64 && zero(4, 12)) return ipv4Kind(b.slice(12)); // 64:ff9b::/96, NAT64
  if (nat64 && b[4] === 0 && b[5] === 1)
    // 64:ff9b:1::/48, local-use NAT64: the IPv4 address last (a /96 prefix) is classified; where a
    // shorter prefix puts it elsewhere it cannot be told apart, so the address is not public.
    return zero(6, 12) ? ipv4Kind(b.slice(12)) : 'reserved';
  if (b[0] === 0x20 && b[1] === 0x02) return ipv4Kind(b.slice(2, 6)); // 6to4 carries an IPv4 address
  return undefined;
}

/** An IPv6 address that carries no IPv4 address, by its prefix. */
function ipv6Kind(b: number[]): AddressKind {
  if (b[0] === 0xff) return 'multicast';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link-local';
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'unique-local'; // fec0::/10, site-local
  if ((b[0]! & 0xfe) === 0xfc) return 'unique-local';
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return 'reserved'; // 2001:db8::/32
  if (b[0] === 0x01 && b.slice(1, 8).every((x) => x === 0)) return 'reserved'; // 100::/64, discard
  return 'public';
}

function ipv4Kind([a = 0, b = 0, c = 0]: number[]): AddressKind {
  if (a === 0) return 'unspecified';
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b >= 64 && b < 128) return 'private'; // carrier-grade NAT
  if (a === 169 && b === 254) return 'link-local'; // cloud metadata services live here
  if (a >= 224 && a < 240) return 'multicast';
  if (a >= 240) return 'reserved';
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return 'reserved';
  if (a === 198 && (b === 18 || b === 19)) return 'reserved'; // benchmarking
  if ((a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return 'reserved';
  return 'public';
}

/** The 16 bytes of an IPv6 address in any notation (`::`, an embedded dotted IPv4, a zone id dropped). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0]!;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [x, y, z, w] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((x << 8) | y).toString(16)}:${((z << 8) | w).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = groups(head);
  const t = groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
  return all.flatMap((g) => [(g >> 8) & 0xff, g & 0xff]);
}
