// A job's report as the harness reads it for its audit: straight from the job store the workers wrote
// to (PostgreSQL from any host; a local folder, possibly through a worker's own view of its private
// disk), by the job id users know, merged by the rule the job stored when it ended. Reading the store
// rather than a worker's files is the point: no outcome may need a shared disk. Also whether a store holds
// a job's committed snapshot (which worker's disk a job's data landed on).
import { openJobStore } from '../src/stores/open-job-store.ts';
import type { JobRecord } from '../src/stores/job-store.ts';
import type { ItemResult } from '../src/types.ts';

const PAGE = 1000;

export interface StoreReport {
  /** The job's record (undefined: the store never heard of the job). */
  record?: JobRecord;
  lines: ItemResult[];
}

/** The report of job `jobId` (the newest job of that id, not a many-shop job's shop) in store `spec`. */
export async function readStoreReport(spec: string, jobId: string): Promise<StoreReport> {
  const store = openJobStore(spec);
  try {
    const record = (await store.findJobs(jobId)).find((r) => r.jobId === jobId);
    if (!record) return { lines: [] };
    const lines: ItemResult[] = [];
    let afterLine: number | undefined;
    do {
      const page = await store.readOutcomes(record.key, { afterLine, limit: PAGE });
      lines.push(...page.lines);
      afterLine = page.nextAfterLine;
    } while (afterLine !== undefined);
    return { record, lines };
  } finally {
    await store.close();
  }
}

/** Whether store `spec` holds the committed snapshot of job `jobId` (the newest job of that id). */
export async function snapshotTaken(spec: string, jobId: string): Promise<boolean> {
  const store = openJobStore(spec);
  try {
    const record = (await store.findJobs(jobId)).find((r) => r.jobId === jobId);
    if (!record) return false;
    return !!(await store.getSnapshot({ ...record.key, jobId, storeId: await store.id() }));
  } finally {
    await store.close();
  }
}
