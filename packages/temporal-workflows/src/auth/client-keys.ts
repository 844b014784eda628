// The worker-side client keyring: which clients may start work and for which shops. A JSON file
// (SELLING_KIT_CLIENT_KEYS, default <home>/client-keys.json, mode 0600) of records
// `{ id, key (base64), shops, sellers, issuedAt, retiredAt? }`, written by `selling-kit keys issue|retire`
// (under a lock file, then written to a temporary file and renamed over it, so a reader never sees half a
// file) and read by the worker's codec, again whenever the file changes: issuing or retiring a key needs
// no restart. `*` in shops or sellers grants all. This is the keyring of one host; workers on several hosts
// share one in PostgreSQL (client-keys-pg.ts, the same records, sealed); client-keyring.ts says which is used.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CLIENT_ID_PATTERN, WORKER_AUTH_ID } from './payload-auth.ts';

export const CLIENT_KEYS_ENV = 'SELLING_KIT_CLIENT_KEYS';
export const CLIENT_KEYS_FILE_NAME = 'client-keys.json';
/** Grants every shop (or seller). */
export const ALL = '*';

export interface ClientKeyRecord {
  id: string;
  /** base64 of the 32-byte MAC key. */
  key: string;
  shops: string[];
  sellers: string[];
  issuedAt: string;
  retiredAt?: string;
}

/** A keyring problem, never quoting a key. */
export class ClientKeysError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientKeysError';
  }
}

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code;

/** The records of the file; none when it does not exist. */
export function readClientKeys(path: string): ClientKeyRecord[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (errno(e) === 'ENOENT') return [];
    throw e;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ClientKeysError(`${path} is not valid JSON`);
  }
  const records = (parsed as { keys?: unknown }).keys;
  if (!Array.isArray(records)) throw new ClientKeysError(`${path} has no "keys" list`);
  return records.map((r: unknown, i) => {
    if (!isClientKeyRecord(r))
      throw new ClientKeysError(`${path}: entry ${i + 1} is not a client key record`);
    return r;
  });
}

/** Whether a parsed value has the shape of a record (every keyring backend checks what it reads). */
export function isClientKeyRecord(value: unknown): value is ClientKeyRecord {
  const r = value as ClientKeyRecord | null;
  return (
    !!r &&
    typeof r.id === 'string' &&
    Buffer.from(String(r.key), 'base64').length === 32 &&
    Array.isArray(r.shops) &&
    Array.isArray(r.sellers) &&
    typeof r.issuedAt === 'string' &&
    (r.retiredAt === undefined || typeof r.retiredAt === 'string')
  );
}

/**
 * The keyring as the worker reads it: a lookup by id, re-reading the file when its modification time or
 * size changes. A broken copy keeps the last good one (and `warn`s); a missing file is an empty ring.
 */
export function watchedClientKeys(
  path: string,
  warn: (message: string) => void = console.error,
): (id: string) => ClientKeyRecord | undefined {
  let cache: { stamp: string; byId: Map<string, ClientKeyRecord> } | undefined;
  const current = () => {
    let stamp = 'missing';
    try {
      const s = statSync(path);
      stamp = `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch (e) {
      if (errno(e) !== 'ENOENT') throw e;
    }
    if (cache?.stamp === stamp) return cache.byId;
    try {
      cache = { stamp, byId: new Map(readClientKeys(path).map((r) => [r.id, r])) };
    } catch (e) {
      if (!cache) throw e;
      warn(`${path} changed but cannot be read (${(e as Error).message}): keeping the last good copy`);
      cache = { ...cache, stamp };
    }
    return cache.byId;
  };
  current(); // a broken file stops the worker at start
  return (id) => current().get(id);
}

const LOCK_STALE_MS = 30_000;

/** Runs `change` on the records under the keyring's lock and writes the result atomically (0600). */
function update<T>(
  path: string,
  change: (records: ClientKeyRecord[]) => { records: ClientKeyRecord[]; result: T },
): T {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const lockPath = `${path}.lock`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      writeFileSync(lockPath, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if (errno(e) !== 'EEXIST') throw e;
      const age = Date.now() - (statSync(lockPath, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) rmSync(lockPath, { force: true });
      else if (Date.now() > deadline)
        throw new ClientKeysError(
          `the client keyring is locked (${lockPath}); delete that file if no command is running`,
        );
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20); // a short, blocking pause
    }
  }
  try {
    const { records, result } = change(readClientKeys(path));
    const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, JSON.stringify({ keys: records }, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, path);
    return result;
  } finally {
    rmSync(lockPath, { force: true });
  }
}

export interface IssueOptions {
  id: string;
  shops: readonly string[];
  sellers?: readonly string[];
  /** Replace a record of the same id (the dev stack's own key, on every start); otherwise an error. */
  replace?: boolean;
}

/** A new record with a random key, its id and scope checked (not yet stored: any backend stores it). */
export function newClientKeyRecord(options: IssueOptions): ClientKeyRecord {
  if (!CLIENT_ID_PATTERN.test(options.id) || options.id === WORKER_AUTH_ID)
    throw new ClientKeysError(
      `"${options.id}" cannot be a client id: 1-64 letters, digits, "_" or "-", starting with a letter or digit, and not "${WORKER_AUTH_ID}"`,
    );
  if (!options.shops.length && !options.sellers?.length)
    throw new ClientKeysError('a client key needs --shops, --sellers or --all');
  return {
    id: options.id,
    key: randomBytes(32).toString('base64'),
    shops: [...new Set(options.shops)],
    sellers: [...new Set(options.sellers ?? [])],
    issuedAt: new Date().toISOString(),
  };
}

/** The error of an id already issued (ids are never reused: history may hold what the old key signed). */
export const idTaken = (id: string) =>
  new ClientKeysError(`the client id "${id}" is taken (ids are never reused): pick another`);

/** A new random client key recorded in the keyring; returns the record (its key: for the credential). */
export function issueClientKey(path: string, options: IssueOptions): ClientKeyRecord {
  const record = newClientKeyRecord(options);
  return update(path, (records) => {
    if (records.some((r) => r.id === options.id) && !options.replace) throw idTaken(options.id);
    return { records: [...records.filter((r) => r.id !== options.id), record], result: record };
  });
}

/** The record retired now (or when it already was). */
export const retired = (record: ClientKeyRecord): ClientKeyRecord => ({
  ...record,
  retiredAt: record.retiredAt ?? new Date().toISOString(),
});

/** Marks a key retired: from now on the worker refuses what it seals. */
export function retireClientKey(path: string, id: string): ClientKeyRecord {
  return update(path, (records) => {
    const found = records.find((r) => r.id === id);
    if (!found) throw new ClientKeysError(`no client key "${id}" in ${path}`);
    const retiredNow = retired(found);
    return { records: records.map((r) => (r.id === id ? retiredNow : r)), result: retiredNow };
  });
}

/** Whether a key's scope grants a name. */
export const grants = (scope: readonly string[], name: string): boolean =>
  scope.includes(ALL) || scope.includes(name);
