// Which token store a worker uses, from one setting (SELLING_KIT_TOKEN_STORE, or `selling-kit worker
// --token-store`): a file path → the sealed file shared by the processes of one host (token-store.ts);
// a `postgres://` or `postgresql://` URL → the PostgreSQL table shared by workers on any number of hosts
// (token-store-pg.ts). Both seal with the same key and keep the same compare-and-set contract.
import type { TokenStore } from '../activities/index.ts';
import { createFileTokenStore } from './token-store.ts';
import { createPgTokenStore } from './token-store-pg.ts';

export const isDatabaseUrl = (location: string): boolean => /^postgres(?:ql)?:\/\//i.test(location.trim());

export function openTokenStore(
  location: string,
  key: Buffer | readonly Buffer[],
): TokenStore & { close?(): Promise<void>; probe(): Promise<void> } {
  return isDatabaseUrl(location)
    ? createPgTokenStore(location.trim(), key)
    : createFileTokenStore(location, key);
}
