// The worker-side secrets the CLI manages: shops' API keys (credentials.json, mode 0600, the format the
// worker reads) and connected sellers' OAuth tokens (the sealed token store). Shown only masked.
import { existsSync, mkdirSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import {
  CodecKeyError,
  CredentialsFileError,
  createFileTokenStore,
  readCredentialsFile,
  loadCodecKey,
  tokenStoreKeys,
  type CodecKeyring,
  type Credential,
} from '@selling-kit/temporal-workflows';
import type { CliConfig } from './config.ts';
import { CliError, EXIT } from './errors.ts';

export interface ShopCredential extends Credential {
  addedAt?: string;
}

/** `pak_live_1234abcd` → `pak_…abcd`: enough to tell keys apart, never enough to use one. */
export function mask(secret: string): string {
  const prefix = /^[a-z]{2,4}_/.exec(secret)?.[0] ?? '';
  return secret.length <= prefix.length + 8 ? `${prefix}…` : `${prefix}…${secret.slice(-4)}`;
}

export function readShops(config: CliConfig): Record<string, ShopCredential> {
  if (!existsSync(config.credentialsFile)) return {};
  try {
    return readCredentialsFile<ShopCredential>(config.credentialsFile);
  } catch (e) {
    // The message names the file, never its content.
    if (e instanceof CredentialsFileError) throw new CliError('bad_credentials_file', e.message, EXIT.usage);
    // Unreadable (permissions, a folder): the same usage error, naming the file and the cause, never content.
    throw new CliError(
      'bad_credentials_file',
      `${config.credentialsFile} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).name})`,
      EXIT.usage,
    );
  }
}

/** Writes every shop at once: temp file (mode 0600) + rename, so a crash never leaves half a file. */
export async function writeShops(config: CliConfig, shops: Record<string, ShopCredential>): Promise<void> {
  mkdirSync(dirname(config.credentialsFile), { recursive: true });
  const tmp = `${config.credentialsFile}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, JSON.stringify(shops, null, 2) + '\n', { mode: 0o600 });
  await rename(tmp, config.credentialsFile);
}

export const saveShop = (config: CliConfig, shopId: string, credential: ShopCredential): Promise<void> =>
  writeShops(config, { ...readShops(config), [shopId]: credential });

/**
 * The codec keyring (SELLING_KIT_CODEC_KEY, else the key file). Only the local dev stack passes
 * `create` (a key for this machine); anything else fails without a key rather than mint one the worker
 * does not have (its jobs could never be read).
 */
export function codecKey(config: CliConfig, options: { create?: boolean } = {}): CodecKeyring {
  try {
    return loadCodecKey(config.keyFile, options);
  } catch (e) {
    if (!(e instanceof CodecKeyError)) throw e;
    throw new CliError(
      e.code,
      e.message,
      EXIT.usage,
      e.code === 'codec_key_missing'
        ? "use the worker's key; on this machine alone, `selling-kit dev` generates one; SELLING_KIT_CODEC=0 turns encryption off (worker and CLI alike)"
        : undefined,
    );
  }
}

/** The sealed token store, with its own key derived from the codec key (codec.ts tokenStoreKeys). */
export const tokenStore = (config: CliConfig) =>
  createFileTokenStore(config.tokenStoreFile, tokenStoreKeys(codecKey(config)));

/** Known sellers (OAuth), without reading a token unless the store already exists. */
export function sellerRefs(config: CliConfig): string[] {
  return existsSync(config.tokenStoreFile) ? tokenStore(config).refs() : [];
}

export type ShopAuth =
  { shopId: string; auth: 'api_key'; credential: ShopCredential } | { shopId: string; auth: 'oauth' };

/** A shop named on the command line: an API-key shop or a connected seller, else a clear error. */
export function findShop(config: CliConfig, shopId: string): ShopAuth {
  const credential = readShops(config)[shopId];
  if (credential) return { shopId, auth: 'api_key', credential };
  if (sellerRefs(config).includes(shopId)) return { shopId, auth: 'oauth' };
  throw new CliError(
    'unknown_shop',
    `unknown shop "${shopId}": it has no API key and no connected seller in ${config.home}`,
    EXIT.notFound,
    `add it with \`selling-kit shops add ${shopId} --api-key-stdin\` or \`selling-kit auth login --shop ${shopId}\``,
  );
}
