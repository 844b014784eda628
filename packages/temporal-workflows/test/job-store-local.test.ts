// The local-folder job store (src/stores/job-store-local.ts) against the shared JobStore contract
// (job-store-contract.ts): a fresh temporary folder per test; `reopen` opens the same folder again (a
// second worker process on this host), `other` a second folder (another host's disk).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJobStore } from '../src/stores/job-store-local.ts';
import { describeJobStore } from './job-store-contract.ts';

describeJobStore('local folder', async () => {
  const dirs = [mkdtempSync(join(tmpdir(), 'sk-jobstore-'))];
  const folder = join(dirs[0]!, 'jobs'); // not made yet: the store creates its folder
  return {
    store: createLocalJobStore(folder),
    reopen: async () => createLocalJobStore(folder),
    other: async () => {
      dirs.push(mkdtempSync(join(tmpdir(), 'sk-jobstore-other-')));
      return createLocalJobStore(dirs.at(-1)!);
    },
    cleanup: async () => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
});
