// The many-shop parent's look at its children (review B8). A child tells its parent it has ended with the
// `shopDone` signal, but a child terminated, cancelled or timed out through Temporal (the UI, the CLI,
// `handle.terminate()`) never does, and a signal can be lost; the parent would show it `running` forever.
// So the parent, on a timer, asks here which of the children it believes running have closed, and with
// what: a completed child's own result, or the reason and the last counts of one that was stopped. A
// stopped child never finalized its report: it is finalized here with the child's OWN merge rule (the
// attempts it accepted, asked of its replayed history), and its own snapshot is dropped.
import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { BulkProgress, JobState } from '../types.ts';
import type { JobStore } from '../stores/job-store.ts';
import type { ActivityContext } from './context.ts';
import { storeOf } from './job-data.ts';
import { jobDataQuery, progressQuery, type JobData } from '../workflows/messages.ts';
import { emptyProgress } from '../workflows/job-progress.ts';

/** A child the parent believes running. */
export interface ChildRef {
  shopId: string;
  /** The child's workflow id (its newest run is the one described). */
  workflowId: string;
  /** The child's job id (`<jobId>/<shopId>`), for the progress of a child that cannot be asked. */
  jobId: string;
}

/** Children described at once: a parent may have hundreds running. */
const AT_ONCE = 10;
/** A closed child is asked for its last counts (its history replayed by a worker) for at most this long. */
const QUERY_MS = 10_000;

export function createChildrenActivities({ deps }: ActivityContext) {
  return {
    /**
     * The children among `children` whose workflow has closed, each with its final progress (by shop id).
     * Children still running are left out.
     */
    async closedChildren(children: ChildRef[]): Promise<Record<string, BulkProgress>> {
      const temporal = deps.temporal;
      if (!temporal) throw new Error('checking children needs the worker to be given a Temporal client');
      const closed: Record<string, BulkProgress> = {};
      for (let i = 0; i < children.length; i += AT_ONCE)
        await Promise.all(
          children.slice(i, i + AT_ONCE).map(async (child) => {
            const progress = await closedProgress(temporal, deps.jobStore, child);
            if (progress) closed[child.shopId] = progress;
          }),
        );
      return closed;
    },
  };
}

/** The final progress of a closed child; undefined while it runs. */
async function closedProgress(
  temporal: Client,
  store: JobStore,
  child: ChildRef,
): Promise<BulkProgress | undefined> {
  const handle = temporal.workflow.getHandle<() => Promise<BulkProgress>>(child.workflowId);
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError)
      return stopped(
        temporal,
        undefined,
        child,
        'failed',
        'its workflow was not found (never started, or deleted)',
      );
    throw error;
  }
  if (status === 'RUNNING' || status === 'CONTINUED_AS_NEW') return undefined; // (the next run is starting)
  if (status === 'COMPLETED') return await handle.result();
  const [state, reason]: [JobState, string] =
    status === 'CANCELLED'
      ? ['cancelled', 'cancelled through Temporal']
      : status === 'TERMINATED'
        ? ['failed', `terminated through Temporal${await why(handle)}`]
        : status === 'TIMED_OUT'
          ? ['failed', 'timed out (its Temporal execution timeout)']
          : // FAILED: the child reports its failure itself; this is in case the signal was lost
            ['failed', (await why(handle)).slice(2) || `ended ${status}`];
  // Stopped without its own clean-up: its last state, asked of its replayed history.
  const data = await temporal
    .withDeadline(Date.now() + QUERY_MS, () => handle.query(jobDataQuery))
    .catch(() => undefined);
  await finalizeStopped(store, data, state);
  return stopped(temporal, handle, child, state, reason, data?.progress);
}

/**
 * The report of a child stopped without its clean-up, finalized with the child's own merge rule (never
 * `{}`: a part the child accepted at a later attempt would be lost), and its own snapshot dropped. A
 * child that cannot be asked (or never took its snapshot) is left to the retention schedule: a report
 * merged by a guessed rule could be wrong.
 */
async function finalizeStopped(store: JobStore, data: JobData | undefined, state: JobState) {
  if (!data?.job) return;
  const mine = await storeOf(store, data.job);
  await mine.finalize(data.job, {
    accepted: data.accepted,
    upToSeq: data.upToSeq,
    state: state === 'cancelled' ? 'cancelled' : 'failed',
  });
  if (data.ownSnapshot) await mine.deleteSnapshot(data.job);
}

type Handle = ReturnType<Client['workflow']['getHandle']>;

/** ": <message>" of the failure a closed child ended with (a terminate's reason), or "". */
async function why(handle: Handle): Promise<string> {
  try {
    await handle.result();
    return '';
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    return cause?.message ? `: ${cause.message}` : '';
  }
}

/**
 * A child stopped without its clean-up: its last counts (asked of its replayed history, when that
 * answers), the items it never settled counted as failed or cancelled with it, and the reason.
 */
async function stopped(
  temporal: Client,
  handle: Handle | undefined,
  child: ChildRef,
  state: JobState,
  reason: string,
  known?: BulkProgress,
): Promise<BulkProgress> {
  const last =
    known ??
    (handle
      ? await temporal
          .withDeadline(Date.now() + QUERY_MS, () => handle.query(progressQuery))
          .catch(() => undefined)
      : undefined);
  const p: BulkProgress = last ?? emptyProgress(child.jobId, state);
  const cancelled = p.cancelled ?? 0; // a child of an older version has no `cancelled`
  const unsettled = Math.max(0, p.total - p.done - p.failed - cancelled);
  return {
    ...p,
    state,
    reason,
    failed: p.failed + (state === 'failed' ? unsettled : 0),
    cancelled: cancelled + (state === 'cancelled' ? unsettled : 0),
    pending: 0,
    currentRate: 0,
    etaMs: 0,
  };
}
