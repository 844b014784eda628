// The worker's view of the CLI's stores, read live: a shop added or a seller connected while the worker
// runs is found without a restart.
import { existsSync, statSync } from 'node:fs';
import type { CredentialStore, ShopNames, TokenStore } from '@selling-kit/temporal-workflows';
import type { CliConfig } from './config.ts';
import { readShops, tokenStore, type ShopCredential } from './stores.ts';

export function liveCredentials(
  config: CliConfig,
  extra: Record<string, ShopCredential> = {},
): CredentialStore {
  let cache: { mtimeMs: number; shops: Record<string, ShopCredential> } | undefined;
  return (ref) => {
    if (extra[ref]) return extra[ref];
    const mtimeMs = existsSync(config.credentialsFile) ? statSync(config.credentialsFile).mtimeMs : 0;
    if (!cache || cache.mtimeMs !== mtimeMs) cache = { mtimeMs, shops: mtimeMs ? readShops(config) : {} };
    return cache.shops[ref];
  };
}

/** The stored shops' names for the shop directory (n8n's shop picker): names only, never a key. */
export function liveShopNames(config: CliConfig, extra: Record<string, ShopCredential> = {}): ShopNames {
  return () => [
    ...new Set([
      ...Object.keys(existsSync(config.credentialsFile) ? readShops(config) : {}),
      ...Object.keys(extra),
    ]),
  ];
}

/**
 * The sealed token store. It reads the file as it is now (a seller connected or logged in again with
 * `auth login` while the worker runs is seen at once) and writes with compare-and-set under its lock.
 */
export const liveTokens = (config: CliConfig): TokenStore => tokenStore(config);
