// The worker-side secrets the CLI manages: shops' API keys (credentials.json, mode 0600, the format the
// worker reads) and connected sellers' OAuth tokens (the sealed token store). Shown only masked.
import { existsSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import {
  AesGcmCodec,
  CLIENT_KEY_ENV,
  ClientCredentialError,
  ClientKeysError,
  CodecKeyError,
  CredentialsFileError,
  createFileTokenStore,
  clientCredentialFor,
  clientKeysFileOf,
  issueClientKey,
  readClientKeys,
  readCredentialsFile,
  loadCodecKey,
  loadTokenStoreKey,
  lockFile,
  tokenStoreKeyring,
  workerAuthSettings,
  workerCodec,
  type CodecKeyring,
  type Credential,
  type WorkerAuthSettings,
} from '@selling-kit/temporal-workflows';
import { privateDir, type CliConfig } from './config.ts';
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
async function writeShops(config: CliConfig, shops: Record<string, ShopCredential>): Promise<void> {
  privateDir(dirname(config.credentialsFile));
  const tmp = `${config.credentialsFile}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, JSON.stringify(shops, null, 2) + '\n', { mode: 0o600 });
  await rename(tmp, config.credentialsFile);
}

/**
 * Read, change, write credentials.json under its lock file (the token store's O_EXCL lock), so two
 * `shops add` or `dev` runs at once never lose one another's shop.
 */
export async function updateShops(
  config: CliConfig,
  change: (shops: Record<string, ShopCredential>) => Record<string, ShopCredential>,
): Promise<void> {
  privateDir(dirname(config.credentialsFile));
  let release: () => Promise<void>;
  try {
    release = await lockFile(`${config.credentialsFile}.lock`, config.credentialsFile);
  } catch (e) {
    throw new CliError('credentials_locked', (e as Error).message, EXIT.usage);
  }
  try {
    await writeShops(config, change(readShops(config)));
  } finally {
    await release();
  }
}

export const saveShop = (config: CliConfig, shopId: string, credential: ShopCredential): Promise<void> =>
  updateShops(config, (shops) => ({ ...shops, [shopId]: credential }));

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

/** Where the client keyring and the token store's key are (SELLING_KIT_CLIENT_KEYS, …, under the home). */
export function authSettings(config: CliConfig): WorkerAuthSettings {
  try {
    return workerAuthSettings(process.env, config.home, config.jobStore);
  } catch (e) {
    throw new CliError('bad_client_auth', (e as Error).message, EXIT.usage);
  }
}

/**
 * The token store's keys: its own key (SELLING_KIT_TOKEN_STORE_KEY, else <home>/token-store.key) seals;
 * the codec ring's old derivation, when a codec key is there, opens stores sealed by 0.4. `create`: a
 * missing key file is made (this host's file store, which the CLI manages); a shared store's key is
 * never minted here.
 */
export function tokenStoreKeysOf(config: CliConfig, options: { create?: boolean } = {}): Buffer[] {
  const legacy =
    existsSync(config.keyFile) || process.env.SELLING_KIT_CODEC_KEY?.trim() ? codecKey(config) : undefined;
  try {
    return tokenStoreKeyring(loadTokenStoreKey(authSettings(config).tokenStoreKeyFile, options), legacy);
  } catch (e) {
    if (!(e instanceof CodecKeyError)) throw e;
    throw new CliError('token_store_key_missing', e.message, EXIT.usage);
  }
}

/** The sealed token store of this host, with its own key (auth/token-store-key.ts). */
export const tokenStore = (config: CliConfig) =>
  createFileTokenStore(config.tokenStoreFile, tokenStoreKeysOf(config, { create: true }));

/**
 * The CLI's codec: with SELLING_KIT_CLIENT_KEY (a credential from `selling-kit keys issue`) it acts as that
 * client; otherwise it holds the master ring and signs as the operator (`worker`), reading without the
 * worker's checks.
 */
export function cliCodec(config: CliConfig): AesGcmCodec {
  const credential = process.env[CLIENT_KEY_ENV]?.trim();
  if (!credential) return new AesGcmCodec(codecKey(config), { verify: false });
  try {
    return AesGcmCodec.forClient(credential, CLIENT_KEY_ENV);
  } catch (e) {
    if (!(e instanceof ClientCredentialError)) throw e;
    throw new CliError(e.code, e.message, EXIT.usage);
  }
}

/** The codec of a worker the CLI runs: the master ring, the client keyring, the checks on. */
export function cliWorkerCodec(config: CliConfig, options: { create?: boolean } = {}): AesGcmCodec {
  try {
    return workerCodec(codecKey(config, options), authSettings(config));
  } catch (e) {
    if (!(e instanceof ClientKeysError)) throw e;
    throw new CliError('bad_client_keys', e.message, EXIT.usage);
  }
}

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

/** The dev stack's client id for its n8n. */
export const DEV_N8N_CLIENT_ID = 'dev-n8n';

/** Issues (or re-issues) the dev n8n's client key for `shops`; returns its credential string. */
export function issueDevClientKey(config: CliConfig, ring: CodecKeyring, shops: string[]): string {
  let file: string;
  try {
    file = clientKeysFileOf(authSettings(config).clientKeys, '`selling-kit dev`');
  } catch (e) {
    if (!(e instanceof ClientKeysError)) throw e;
    throw new CliError('bad_client_keys', e.message, EXIT.usage);
  }
  // The key of an earlier run, kept while it still grants exactly these shops: jobs n8n started then are
  // still in history, signed with it, and a worker replaying them must find the same key.
  const kept = existsSync(file)
    ? readClientKeys(file).find(
        (r) =>
          r.id === DEV_N8N_CLIENT_ID &&
          !r.retiredAt &&
          [...r.shops].sort().join(',') === [...shops].sort().join(','),
      )
    : undefined;
  const record = kept ?? issueClientKey(file, { id: DEV_N8N_CLIENT_ID, shops, replace: true });
  return clientCredentialFor(ring, record);
}
