// A job's progress as a many-shop job and its client add it up: pure, used by the workflow
// (multi-shop.ts) and the activities and client that read closed or queued shops.
import type { BulkProgress, JobState } from '../types.ts';

/** The counts a many-shop job adds up over its shops' progress. */
export type SummedProgress = Pick<
  BulkProgress,
  'total' | 'done' | 'failed' | 'cancelled' | 'pending' | 'currentRate' | 'rateLimited' | 'verified' | 'etaMs'
>;

/**
 * A many-shop job's counts from its shops' progress: every count added up (`cancelled` is absent from
 * results of older children), the current rate of the shops still running, and the longest ETA.
 * Pure: the workflow's answer and client.getProgress (which asks running shops first) both use it.
 */
export function sumProgress(shops: readonly BulkProgress[]): SummedProgress {
  const sum = (f: (p: BulkProgress) => number | undefined) => shops.reduce((n, p) => n + (f(p) ?? 0), 0);
  return {
    total: sum((p) => p.total),
    done: sum((p) => p.done),
    failed: sum((p) => p.failed),
    cancelled: sum((p) => p.cancelled),
    pending: sum((p) => p.pending),
    currentRate: sum((p) => (p.state === 'running' ? p.currentRate : 0)),
    rateLimited: sum((p) => p.rateLimited),
    verified: sum((p) => p.verified),
    etaMs: Math.max(0, ...shops.map((p) => p.etaMs)),
  };
}

/** A shop's progress before it has any (queued, or stopped before it could say). */
export function emptyProgress(jobId: string, state: JobState): BulkProgress {
  return {
    jobId,
    state,
    total: 0,
    done: 0,
    failed: 0,
    cancelled: 0,
    pending: 0,
    currentRate: 0,
    windowMs: 0,
    rateLimited: 0,
    verified: 0,
    etaMs: 0,
    runs: 0,
  };
}
