// The one check every activity that touches a job's data makes first: the job's data is in the store
// this worker opened. A worker whose store is another (a local folder on another host) must not read an
// empty snapshot or write outcomes nobody will merge: it fails retryably with a plain reason, which the
// workflow shows on the paused job (and retries, so fixing the configuration resumes the job).
import { ApplicationFailure } from '@temporalio/common';
import { JOB_STORE_NOT_SHARED, notSharedMessage, type JobRef, type JobStore } from '../stores/job-store.ts';

/** The store, once it is known to hold `job`'s data; else a retryable JobStoreNotShared failure. */
export async function storeOf(store: JobStore, job: JobRef): Promise<JobStore> {
  const id = await store.id();
  if (id !== job.storeId)
    throw ApplicationFailure.retryable(
      notSharedMessage(job, { id, kind: store.kind, location: store.location }),
      JOB_STORE_NOT_SHARED,
    );
  return store;
}
