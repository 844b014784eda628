// Token stores for workers (see TokenStore in activities/clients.ts). The file store keeps every connected
// seller's OAuth tokens in one file sealed with AES-256-GCM (the codec's key, or any 32-byte key), shared
// by the worker processes and the CLI of ONE host:
// - get() answers what is on disk now: it re-reads the file when it changed (each write has a fresh IV,
//   the file's first 12 bytes), so a pair rotated by another worker or a new login is seen at once;
// - set() takes the lock file (O_EXCL; a lock whose process died, or older than LOCK_STALE_MS, is taken
//   over), re-reads the file, checks the version (compare-and-set), merges ONE seller, writes a temp file
//   (mode 0600, fsync) and renames it over the store, then releases the lock. A failed write rejects that
//   set() only. Rotated refresh tokens are on disk before anything uses them (set() is awaited).
// Several hosts share the PostgreSQL store instead (token-store-pg.ts: the same contract, one row per
// seller); openTokenStore (token-store-open.ts) picks one from SELLING_KIT_TOKEN_STORE.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { link, mkdir, open as openFile, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { SellerTokens, TokenStore } from '../activities/index.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** How long a set() waits for another process's lock before it fails. */
const LOCK_WAIT_MS = 10_000;
/** A lock is held for one local read and write (milliseconds); one this old was left by a crash. */
const LOCK_STALE_MS = 30_000;

type Sealed = Record<string, SellerTokens>;

/**
 * AES-256-GCM: IV (12 bytes) + ciphertext + tag. `aad` binds the sealed bytes to where they are kept (the
 * database store passes the seller's ref, so a row copied under another ref does not open).
 */
export function sealTokens(key: Buffer, plain: string, aad?: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
}

/** The plain text, opened with the first key that authenticates; undefined when none does. */
export function unsealTokens(keys: readonly Buffer[], sealed: Buffer, aad?: string): string | undefined {
  for (const key of keys) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      // not this key: try the next
    }
  }
  return undefined;
}

/** Checks a store's keys: one key or several (the first seals), 32 bytes each. */
export function tokenKeys(key: Buffer | readonly Buffer[]): readonly Buffer[] {
  const keys = Buffer.isBuffer(key) ? [key] : key;
  if (!keys.length || keys.some((k) => k.length !== 32))
    throw new Error('the token store key must be 32 bytes (AES-256)');
  return keys;
}

/** Opens with the first key that authenticates (codec.ts tokenStoreKeys: derived, then the raw key). */
function unseal(keys: readonly Buffer[], sealed: Buffer, path: string): Sealed {
  const plain = unsealTokens(keys, sealed);
  // Never overwrite what cannot be read: it holds other sellers' tokens.
  if (plain === undefined)
    throw new Error(`the token store ${path} cannot be opened: another key, or a damaged file`);
  return JSON.parse(plain) as Sealed;
}

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errno(e) === 'EPERM';
  }
}

/** Moves aside a lock whose owner is gone; puts back a fresh one that was taken meanwhile. */
async function breakIfStale(lockPath: string): Promise<void> {
  const [content, info] = await Promise.all([
    readFile(lockPath, 'utf8').catch(() => undefined),
    stat(lockPath).catch(() => undefined),
  ]);
  if (content === undefined || !info) return;
  const [pid, host] = content.split(' ');
  const dead = host === hostname() && Number(pid) > 0 && !alive(Number(pid));
  if (!dead && Date.now() - info.mtimeMs < LOCK_STALE_MS) return;
  const aside = `${lockPath}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(lockPath, aside);
  } catch {
    return; // someone else took it over first
  }
  if ((await readFile(aside, 'utf8').catch(() => content)) !== content)
    await link(aside, lockPath).catch(() => {});
  await rm(aside, { force: true });
}

/**
 * Takes a lock file (O_EXCL; one whose process died, or stale, is broken); resolves to its release.
 * `what` names the locked file in the error. Also the CLI's credentials.json lock (one lock, one home).
 */
export async function lockFile(lockPath: string, what = 'the token store'): Promise<() => Promise<void>> {
  const id = `${process.pid} ${hostname()} ${randomBytes(8).toString('hex')}`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    try {
      await writeFile(lockPath, id, { flag: 'wx', mode: 0o600 });
      return async () => {
        if ((await readFile(lockPath, 'utf8').catch(() => undefined)) === id)
          await rm(lockPath, { force: true });
      };
    } catch (e) {
      if (errno(e) !== 'EEXIST') throw e;
    }
    await breakIfStale(lockPath);
    if (Date.now() > deadline)
      throw new Error(`${what} is locked (${lockPath}); delete that file if no worker or CLI is running`);
    await delay(wait + Math.random() * wait);
  }
}

/** `key`: one key, or several (the first seals; each is tried to open: see tokenStoreKeys in codec.ts). */
export function createFileTokenStore(
  path: string,
  key: Buffer | readonly Buffer[],
): TokenStore & { refs(): string[]; probe(): Promise<void> } {
  const keys = tokenKeys(key);
  let cache: { iv: Buffer; tokens: Sealed } | undefined;

  /** The file's content now: read again only when its IV (new with every write) changed. */
  const current = (): Sealed => {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (e) {
      if (errno(e) !== 'ENOENT') throw e;
      cache = undefined;
      return {};
    }
    try {
      const iv = Buffer.alloc(IV_BYTES);
      readSync(fd, iv, 0, IV_BYTES, 0);
      if (cache?.iv.equals(iv)) return cache.tokens;
      const sealed = Buffer.alloc(fstatSync(fd).size);
      for (let at = 0; at < sealed.length;)
        at += readSync(fd, sealed, at, sealed.length - at, at) || sealed.length;
      cache = { iv, tokens: unseal(keys, sealed, path) };
      return cache.tokens;
    } finally {
      closeSync(fd);
    }
  };

  return {
    get: (ref) => {
      const t = current()[ref];
      return t && { ...t };
    },
    refs: () => Object.keys(current()),
    // The file opens with the key (when there is one yet), and its folder takes a new file.
    async probe() {
      current();
      await mkdir(dirname(path), { recursive: true });
      const tmp = `${path}.${randomBytes(6).toString('hex')}.probe`;
      try {
        await writeFile(tmp, 'probe', { flag: 'wx', mode: 0o600 });
      } finally {
        await rm(tmp, { force: true });
      }
    },
    async set(ref, tokens, expectedVersion) {
      await mkdir(dirname(path), { recursive: true });
      const release = await lockFile(`${path}.lock`);
      let tmp: string | undefined;
      try {
        cache = undefined; // under the lock, always from disk
        const all = { ...current() };
        const stored = all[ref]?.version ?? 0;
        if (expectedVersion !== undefined && stored !== expectedVersion) return false;
        all[ref] = { ...tokens, version: stored + 1 };
        tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
        const file = await openFile(tmp, 'wx', 0o600);
        try {
          await file.writeFile(sealTokens(keys[0]!, JSON.stringify(all)));
          await file.sync();
        } finally {
          await file.close();
        }
        await rename(tmp, path);
        tmp = undefined;
        return true;
      } finally {
        if (tmp) await rm(tmp, { force: true }).catch(() => {});
        await release();
      }
    },
  };
}

/** The same contract in memory, for one process (tests, embedding): `map` may be shared and inspected. */
export function createMemoryTokenStore(map: Map<string, SellerTokens> = new Map()): TokenStore & {
  get(ref: string): SellerTokens | undefined;
  set(...a: Parameters<TokenStore['set']>): boolean;
} {
  return {
    get: (ref) => map.get(ref),
    set(ref, tokens, expectedVersion) {
      const stored = map.get(ref)?.version ?? 0;
      if (expectedVersion !== undefined && stored !== expectedVersion) return false;
      map.set(ref, { ...tokens, version: stored + 1 });
      return true;
    },
  };
}
