// The worker's shop directory: the names of the shops it holds credentials for, so a client on another
// host (n8n's Bulk Job node) can offer them in a list. Names only — never a key, a URL or a token: the
// secrets stay in the worker's stores.
import { ApplicationFailure } from '@temporalio/common';

/** The shop names (credential refs) a worker can run jobs for, read when asked (a shop added is seen). */
export type ShopNames = () => string[] | Promise<string[]>;

export interface ShopDirectoryDeps {
  /** Lists the worker's shops; without it the directory says so (the worker's credential store is a lookup). */
  shopNames?: ShopNames;
}

export function createShopDirectoryActivities(deps: ShopDirectoryDeps) {
  return {
    /** The shop names, de-duplicated and sorted; a worker that cannot list them fails visibly. */
    async listShopNames(): Promise<string[]> {
      if (!deps.shopNames)
        throw ApplicationFailure.nonRetryable(
          'this worker does not publish its shop names (createWorker({ shopNames }); worker-main does)',
          'ShopNamesUnavailable',
        );
      const names = (await deps.shopNames()).filter((n) => typeof n === 'string' && n.trim() !== '');
      return [...new Set(names)].sort((a, b) => a.localeCompare(b));
    },
  };
}
