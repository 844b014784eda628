// The worker's view of the CLI's stores, read live: a shop added or a seller connected while the worker
// runs is found without a restart.
import { existsSync, statSync } from 'node:fs';
import type { CredentialStore, TokenStore } from '@selling-kit/temporal-workflows';
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

/** The sealed token store; reopened from disk when a seller it does not know is asked for. */
export function liveTokens(config: CliConfig): TokenStore {
  let store = tokenStore(config);
  return {
    get(ref) {
      if (!store.get(ref) && existsSync(config.tokenStoreFile)) store = tokenStore(config);
      return store.get(ref);
    },
    set: (ref, tokens) => store.set(ref, tokens),
  };
}
