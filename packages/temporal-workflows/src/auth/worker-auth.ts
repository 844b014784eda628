// The worker's authentication settings, one reader for worker-main and `selling-kit worker`: where the
// client keyring and the token store's key are, and whether unsigned 0.4 payloads may still drain
// (SELLING_KIT_CLIENT_AUTH=migrate). Also the worker's codec built from them, and the warning a worker
// without a codec prints (it then takes any input from anyone who can reach Temporal).
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { AesGcmCodec, deriveKey, type CodecKeyring } from '../codec.ts';
import {
  CLIENT_KEYS_ENV,
  CLIENT_KEYS_FILE_NAME,
  watchedClientKeys,
  type ClientKeyRecord,
} from './client-keys.ts';
import { formatClientCredential } from './payload-auth.ts';
import { CLIENT_AUTH_ENV, clientAuthMode, type ClientAuthMode } from './payload-checks.ts';
import { defaultTokenStoreKeyFile } from './token-store-key.ts';

export const TOKEN_STORE_KEY_FILE_ENV = 'SELLING_KIT_TOKEN_STORE_KEY_FILE';

export interface WorkerAuthSettings {
  /** SELLING_KIT_CLIENT_KEYS, default <home>/client-keys.json. */
  clientKeysFile: string;
  /** SELLING_KIT_CLIENT_AUTH: `on` (default) or `migrate`. */
  clientAuth: ClientAuthMode;
  /** SELLING_KIT_TOKEN_STORE_KEY_FILE, default <home>/token-store.key (SELLING_KIT_TOKEN_STORE_KEY wins). */
  tokenStoreKeyFile: string;
}

/** `home`: the selling-kit home (default ~/.selling-kit). A bad SELLING_KIT_CLIENT_AUTH throws. */
export function workerAuthSettings(
  env: NodeJS.ProcessEnv = process.env,
  home = join(homedir(), '.selling-kit'),
): WorkerAuthSettings {
  return {
    clientKeysFile: resolve(env[CLIENT_KEYS_ENV]?.trim() || join(home, CLIENT_KEYS_FILE_NAME)),
    clientAuth: clientAuthMode(env[CLIENT_AUTH_ENV]),
    tokenStoreKeyFile: resolve(env[TOKEN_STORE_KEY_FILE_ENV]?.trim() || defaultTokenStoreKeyFile(home)),
  };
}

/** The worker's codec: the master ring, the client keyring (re-read when it changes), the checks on. */
export const workerCodec = (
  ring: CodecKeyring,
  settings: Pick<WorkerAuthSettings, 'clientKeysFile' | 'clientAuth'>,
  warn: (message: string) => void = console.warn,
): AesGcmCodec =>
  new AesGcmCodec(ring, {
    clientKeys: watchedClientKeys(settings.clientKeysFile, warn),
    clientAuth: settings.clientAuth,
    warn,
  });

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
