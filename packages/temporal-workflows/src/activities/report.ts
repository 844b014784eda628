// The per-item report, written by the worker into the job store (stores/job-store.ts) that every worker
// of the deployment opens — never to a host's own disk, never through history (report lines are most of
// a job's bytes).
//
// While a job runs, every activity that decides outcomes writes them as one *part* of the job, numbered
// by the workflow (`seq`) and stamped with the activity's own attempt: a retried attempt writes a part of
// its own, and the workflow accepts the attempt whose result it used (a zombie attempt's part never
// counts). When the job ends, `finalizeReport` stores that rule with the job's state and answers how many
// lines the merged report holds: the workflow checks that number against the items it settled before it
// says `finished`. Readers (client side: workflows/job-report.ts) merge with the stored rule.
import { Context } from '@temporalio/activity';
import type { AcceptedAttempts, JobRef, JobStore, PartRef } from '../stores/job-store.ts';
import type { ItemResult } from '../types.ts';
import type { ActivityContext } from './context.ts';
import { storeOf } from './job-data.ts';

/** How a job ended, as the workflow tells `finalizeReport`: the merge rule and the state. */
export interface ReportEnd {
  /** seq → the attempt whose part counts (absent: attempt 1). */
  accepted: AcceptedAttempts;
  /** The last seq the workflow numbered: parts above it (an abandoned run's, after a reset) never count. */
  upToSeq: number;
  state: 'finished' | 'cancelled' | 'failed';
}

/**
 * Writes the outcomes an activity attempt decided as its part `at` (rewritten whole on a repeat; an
 * empty part is written too, so it clears what an abandoned run may have left under the same seq).
 * Call `storeOf` first: `store` must be the one holding `at.job`'s data.
 */
export async function writeOutcomes(
  store: JobStore,
  at: PartRef,
  lines: ItemResult[],
  attempt: number,
  piece?: number,
): Promise<void> {
  await store.writePart(
    at.job,
    { seq: at.seq, attempt, kind: at.kind, ...(piece === undefined ? {} : { piece }) },
    lines,
  );
}

/** The report of a job that is one activity's result (a schedule's reconciliation run), as a job of its own. */
export interface WholeReport {
  workflowId: string;
  firstRunId: string;
  /** The id users read it by (the run's workflow id). */
  jobId: string;
}

export function createReportActivities({ deps }: ActivityContext) {
  return {
    /**
     * The workflow's own outcomes (verified, out of tries, cancelled): one part, this attempt's. Answers
     * the attempt, which the workflow accepts (an earlier attempt may have failed before writing).
     */
    async appendReport(at: PartRef, results: ItemResult[]): Promise<{ attempt: number }> {
      const store = await storeOf(deps.jobStore, at.job);
      const attempt = Context.current().info.attempt;
      await writeOutcomes(store, at, results, attempt);
      return { attempt };
    },

    /**
     * The job has ended: stores its merge rule and state, answers the merged report's line count, and
     * drops the job's own snapshot when asked (never a many-shop parent's, which its shops share).
     * Idempotent.
     */
    async finalizeReport(job: JobRef, end: ReportEnd, dropSnapshot?: boolean): Promise<{ lines: number }> {
      const store = await storeOf(deps.jobStore, job);
      const done = await store.finalize(job, {
        accepted: end.accepted,
        upToSeq: end.upToSeq,
        state: end.state,
      });
      if (dropSnapshot) await store.deleteSnapshot(job);
      return done;
    },

    /**
     * A whole report in one call (a schedule's reconciliation run), stored as a finished job of its own
     * in this worker's store: this attempt's part, accepted in the same call. Rewritten, never appended,
     * on retry.
     */
    async writeReport(job: WholeReport, results: ItemResult[]): Promise<{ lines: number }> {
      const ref: JobRef = { ...job, storeId: await deps.jobStore.id() };
      const store = await storeOf(deps.jobStore, ref);
      const attempt = Context.current().info.attempt;
      await writeOutcomes(store, { job: ref, seq: 1, kind: 'wf' }, results, attempt);
      return store.finalize(ref, { accepted: { 1: attempt }, upToSeq: 1, state: 'finished' });
    },
  };
}
