// Where the client keyring lives — one rule for the worker, `selling-kit worker` and `selling-kit keys`:
// SELLING_KIT_CLIENT_KEYS is a file path (one host: client-keys.ts) or a postgres:// URL (every host:
// client-keys-pg.ts); unset, the job store's database when SELLING_KIT_JOB_STORE is a postgres:// URL (a
// deployment on several hosts already shares it), else <home>/client-keys.json. Also the keyring as
// `selling-kit keys` uses it, whichever it is (ClientKeyStore).
import { join, resolve } from 'node:path';
import type { CodecKeyring } from '../codec/codec.ts';
import { JOB_STORE_ENV } from '../stores/job-store.ts';
import { isDatabaseUrl } from '../stores/token-store-open.ts';
import { redactDatabaseUrl } from '../stores/token-store-pg.ts';
import {
  CLIENT_KEYS_ENV,
  CLIENT_KEYS_FILE_NAME,
  ClientKeysError,
  issueClientKey,
  readClientKeys,
  retireClientKey,
  type ClientKeyRecord,
  type IssueOptions,
} from './client-keys.ts';
import { createPgClientKeys, type ImportResult } from './client-keys-pg.ts';

export { ClientKeyringUnavailable, type ImportResult } from './client-keys-pg.ts';

export type ClientKeysLocation = { kind: 'file'; path: string } | { kind: 'postgres'; url: string };

/**
 * The keyring's location. `jobStore`: the job store setting in force (default SELLING_KIT_JOB_STORE; the
 * CLI passes its own, e.g. `selling-kit dev`'s folder).
 */
export function clientKeysLocation(
  env: NodeJS.ProcessEnv,
  home: string,
  jobStore: string | undefined = env[JOB_STORE_ENV],
): ClientKeysLocation {
  const set = env[CLIENT_KEYS_ENV]?.trim();
  if (set) return isDatabaseUrl(set) ? { kind: 'postgres', url: set } : { kind: 'file', path: resolve(set) };
  const store = jobStore?.trim();
  if (store && isDatabaseUrl(store)) return { kind: 'postgres', url: store };
  return { kind: 'file', path: resolve(join(home, CLIENT_KEYS_FILE_NAME)) };
}

/** For messages: `file /path` or `postgres postgres://user@host:port/db` (never a password). */
export const describeClientKeys = (location: ClientKeysLocation): string =>
  location.kind === 'file' ? `file ${location.path}` : `postgres ${redactDatabaseUrl(location.url)}`;

/** The keyring file, for what only a file keyring supports; a database location is an error naming it. */
export function clientKeysFileOf(location: ClientKeysLocation, what: string): string {
  if (location.kind === 'file') return location.path;
  throw new ClientKeysError(
    `${what} keeps its client keys in a file, but the keyring is ${describeClientKeys(location)} ` +
      `(${CLIENT_KEYS_ENV}, or ${JOB_STORE_ENV} when that is unset): set ${CLIENT_KEYS_ENV} to a file`,
  );
}

/** The keyring as `selling-kit keys` uses it: the same operations on a file or a database. */
export interface ClientKeyStore {
  /** `file /path` or `postgres postgres://user@host/db`. */
  readonly description: string;
  list(): Promise<ClientKeyRecord[]>;
  issue(options: IssueOptions): Promise<ClientKeyRecord>;
  retire(id: string): Promise<ClientKeyRecord>;
  /** Copies records into a database keyring (idempotent); a file keyring refuses. */
  importRecords(records: readonly ClientKeyRecord[]): Promise<ImportResult>;
  /** Seals a database keyring's rows again under the ring's current key; a file keyring refuses. */
  reseal(): Promise<{ resealed: string[]; unopened: string[] }>;
  close(): Promise<void>;
}

/**
 * Opens the keyring at `location`. `ring()`: the master codec ring, asked for only by a database keyring
 * (its rows are sealed under it) — a file keyring's `list` needs no key.
 */
export function openClientKeyStore(location: ClientKeysLocation, ring: () => CodecKeyring): ClientKeyStore {
  const description = describeClientKeys(location);
  if (location.kind === 'file') {
    const { path } = location;
    return {
      description,
      list: async () => readClientKeys(path),
      issue: async (options) => issueClientKey(path, options),
      retire: async (id) => retireClientKey(path, id),
      importRecords: async () => {
        throw new ClientKeysError(
          `the client keyring is ${description}: import copies a file into a database keyring`,
        );
      },
      reseal: async () => {
        throw new ClientKeysError(
          `the client keyring is ${description}: a file is not sealed, nothing to reseal`,
        );
      },
      close: async () => {},
    };
  }
  const store = createPgClientKeys({ url: location.url, ring: ring() });
  return {
    description,
    list: () => store.list(),
    issue: (options) => store.issue(options),
    retire: (id) => store.retire(id),
    importRecords: (records) => store.importRecords(records),
    reseal: () => store.reseal(),
    close: () => store.close(),
  };
}
