// A job store for activities that tests build by hand and that never touch a job's data (the seller-auth
// activities): any use of it is a bug in the test, said so plainly.
import type { JobStore } from '../src/stores/job-store.ts';

export const noJobStore: JobStore = new Proxy({} as JobStore, {
  get: (_target, name) => {
    throw new Error(`these activities were built without a job store (its ${String(name)} was used)`);
  },
});
