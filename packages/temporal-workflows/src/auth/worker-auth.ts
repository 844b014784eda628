// The worker's authentication settings, one reader for worker-main and `selling-kit worker`: where the
// client keyring is (client-keyring.ts: a file on this host, or PostgreSQL shared by every host) and the
// token store's key, and whether unsigned 0.4 payloads may still drain (SELLING_KIT_CLIENT_AUTH=migrate).
// Also the worker's codec built from them, and the warning a worker without a codec prints (it then takes
// any input from anyone who can reach Temporal).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { AesGcmCodec, deriveKey, type CodecKeyring } from '../codec/codec.ts';
import { watchedClientKeys, type ClientKeyRecord } from './client-keys.ts';
import { clientKeysLocation, type ClientKeysLocation } from './client-keyring.ts';
import { createPgClientKeys } from './client-keys-pg.ts';
import { watchClientKeys } from './client-keys-watch.ts';
import { KeyringCodec } from './keyring-codec.ts';
import { formatClientCredential } from './payload-auth.ts';
import { CLIENT_AUTH_ENV, clientAuthMode, type ClientAuthMode } from './payload-checks.ts';
import { defaultTokenStoreKeyFile } from './token-store-key.ts';

export const TOKEN_STORE_KEY_FILE_ENV = 'SELLING_KIT_TOKEN_STORE_KEY_FILE';

export interface WorkerAuthSettings {
  /**
   * SELLING_KIT_CLIENT_KEYS (a file or a postgres:// URL); unset: the job store's database when
   * SELLING_KIT_JOB_STORE is one, else <home>/client-keys.json (client-keyring.ts).
   */
  clientKeys: ClientKeysLocation;
  /** SELLING_KIT_CLIENT_AUTH: `on` (default) or `migrate`. */
  clientAuth: ClientAuthMode;
  /** SELLING_KIT_TOKEN_STORE_KEY_FILE, default <home>/token-store.key (SELLING_KIT_TOKEN_STORE_KEY wins). */
  tokenStoreKeyFile: string;
}

/**
 * `home`: the selling-kit home (default ~/.selling-kit); `jobStore`: the job store setting in force (default
 * SELLING_KIT_JOB_STORE). A bad SELLING_KIT_CLIENT_AUTH throws.
 */
export function workerAuthSettings(
  env: NodeJS.ProcessEnv = process.env,
  home = join(homedir(), '.selling-kit'),
  jobStore?: string,
): WorkerAuthSettings {
  return {
    clientKeys: clientKeysLocation(env, home, jobStore),
    clientAuth: clientAuthMode(env[CLIENT_AUTH_ENV]),
    tokenStoreKeyFile: resolve(env[TOKEN_STORE_KEY_FILE_ENV]?.trim() || defaultTokenStoreKeyFile(home)),
  };
}

/**
 * The worker's codec: the master ring, the client keyring, the checks on. A file keyring is re-read when it
 * changes; a database keyring is kept in memory and re-read every few seconds and when a payload names an
 * unknown id (client-keys-watch.ts, keyring-codec.ts). `note`: what changed in a database keyring.
 */
export function workerCodec(
  ring: CodecKeyring,
  settings: Pick<WorkerAuthSettings, 'clientKeys' | 'clientAuth'>,
  warn: (message: string) => void = console.warn,
  note: (message: string) => void = console.log,
): AesGcmCodec {
  const where = settings.clientKeys;
  if (where.kind === 'file')
    return new AesGcmCodec(ring, {
      clientKeys: watchedClientKeys(where.path, warn),
      clientAuth: settings.clientAuth,
      warn,
    });
  const keyring = watchClientKeys(createPgClientKeys({ url: where.url, ring, warn }), { warn, note });
  return new KeyringCodec(ring, keyring, { clientAuth: settings.clientAuth, warn });
}

/**
 * The one-line credential of a client key: the `codec` key derived from the ring's current key (under its
 * id: the worker opens it as it opens its own payloads) and the client's MAC key. Never the master key.
 */
export const clientCredentialFor = (ring: CodecKeyring, record: ClientKeyRecord): string =>
  formatClientCredential({
    clientId: record.id,
    codecKeyId: ring.currentId,
    codecKey: deriveKey(ring.keys.get(ring.currentId)!, 'codec'),
    clientKey: Buffer.from(record.key, 'base64'),
  });

/** Printed at the start of a worker without a codec (L12). */
export const CODEC_OFF_WARNING =
  'WARNING: payload encryption is OFF (SELLING_KIT_CODEC=0): this worker runs any job from anyone who ' +
  'can reach Temporal, for any shop it holds keys for, and history holds job inputs in plaintext. ' +
  'Use it only on a machine and a Temporal server no one else can reach.';
