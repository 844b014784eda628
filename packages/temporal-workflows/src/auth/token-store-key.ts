// The token store's own key, independent of the codec keys: whoever may read job payloads (the codec
// key) must not thereby be able to open sellers' OAuth tokens. SELLING_KIT_TOKEN_STORE_KEY (base64 of
// 32 bytes), else the key file (<home>/token-store.key, created 0600 by `selling-kit dev` only). It seals
// every new write; stores sealed under the codec ring's old derivation still open (codec.ts
// tokenStoreKeys), so an upgrade needs no migration step.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { CodecKeyError, tokenStoreKeys, type CodecKeyring } from '../codec/codec.ts';

export const TOKEN_STORE_KEY_ENV = 'SELLING_KIT_TOKEN_STORE_KEY';
export const TOKEN_STORE_KEY_FILE_NAME = 'token-store.key';
/** The key file's default place: beside the codec key, in the selling-kit home. */
export const defaultTokenStoreKeyFile = (home: string) => join(home, TOKEN_STORE_KEY_FILE_NAME);

const parse = (encoded: string, source: string): Buffer => {
  const trimmed = encoded.trim();
  const key = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || key.length !== 32)
    throw new CodecKeyError('bad_codec_key', `${source} is not the base64 of 32 bytes`);
  return key;
};

/**
 * The token store's key from the environment, else the file; `create` (the dev stack) writes a fresh
 * one. Without one: a clear error (the worker does not start with a token store it cannot seal).
 */
export function loadTokenStoreKey(keyFile: string, options: { create?: boolean; env?: string } = {}): Buffer {
  const env = options.env ?? process.env[TOKEN_STORE_KEY_ENV];
  if (env?.trim()) return parse(env, TOKEN_STORE_KEY_ENV);
  if (!existsSync(keyFile)) {
    if (!options.create)
      throw new CodecKeyError(
        'codec_key_missing',
        `no token-store key: set ${TOKEN_STORE_KEY_ENV} (base64 of 32 bytes, e.g. from \`openssl rand -base64 32\`) or put it in ${keyFile}`,
      );
    mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
    writeFileSync(keyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  }
  return parse(readFileSync(keyFile, 'utf8'), keyFile);
}

/** The keys a token store is opened with: its own key seals; the codec ring's old derivation opens. */
export const tokenStoreKeyring = (key: Buffer, legacy?: CodecKeyring): Buffer[] => [
  key,
  ...(legacy ? tokenStoreKeys(legacy) : []),
];
