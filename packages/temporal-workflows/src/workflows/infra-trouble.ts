// Infrastructure trouble in a bulk job — its job store unavailable or not shared between workers, the
// shop's lane not answering, a file or network blip, a report found incomplete — PAUSES the job with the
// reason and tries again by itself on a capped backoff; a resume request tries again at once. It never
// fails the job: a failed job cannot be run again under its id. Failures that say the job cannot go on
// (non-retryable: FeedUnreadable, UnknownCredential, …) stay the caller's. Workflow code.
import { ActivityFailure, ApplicationFailure, condition, isCancellation } from '@temporalio/workflow';
import { JOB_STORE_NOT_SHARED } from '../stores/job-store.ts';

/** The first wait after a failed call; doubled after each further failure, up to INFRA_MAX_WAIT_MS. */
export const INFRA_FIRST_WAIT_MS = 5_000;
/** The longest wait between two tries (each try is one activity: a few history events). */
export const INFRA_MAX_WAIT_MS = 120_000;
/** Characters of a failure's message shown as the job's reason. */
const REASON_CHARS = 500;

/**
 * Whether a failure is trouble of our own infrastructure, worth waiting out: an activity out of its
 * retries for any reason but a non-retryable failure, or a retryable failure the workflow raised itself
 * (ReportIncomplete). A cancellation never is. JobStoreNotShared is infrastructure trouble although the
 * activities do not retry it themselves (bulk-listing.ts): a worker on another store is a deployment
 * mistake that must show on the job at once, not hide behind retries that happen to land on the worker
 * holding the data.
 */
export function isInfraTrouble(error: unknown): boolean {
  if (isCancellation(error)) return false;
  if (notShared(error)) return true;
  if (error instanceof ActivityFailure)
    return (
      error.retryState !== 'NON_RETRYABLE_FAILURE' &&
      !(error.cause instanceof ApplicationFailure && error.cause.nonRetryable)
    );
  return error instanceof ApplicationFailure && !error.nonRetryable;
}

/** An activity refused the job's data: this worker opened another job store (activities/job-data.ts). */
export const notShared = (error: unknown): boolean =>
  error instanceof ActivityFailure &&
  error.cause instanceof ApplicationFailure &&
  error.cause.type === JOB_STORE_NOT_SHARED;

/** What a failure says (an activity's: its cause's), for a person. */
export function failureMessage(error: unknown): string {
  const cause = error instanceof ActivityFailure && error.cause ? error.cause : error;
  return (cause instanceof Error ? cause.message : String(cause)).slice(0, REASON_CHARS);
}

export interface Infra {
  /** `call` until it succeeds, the job shown paused with `what` and the failure while it waits. */
  <T>(what: string, call: () => Promise<T>): Promise<T>;
  /** The same, but undefined once `giveUp()` (the caller no longer needs the answer: a cancel…). */
  <T>(what: string, call: () => Promise<T>, giveUp: () => boolean): Promise<T | undefined>;
}

/**
 * One job's infrastructure retries: the wrapper, the reason to show, and what a resume request does.
 * `onTrouble` is told when the job starts waiting out trouble (none was being waited out): its metric.
 */
export function infraRetries(onTrouble?: () => void) {
  /** Calls waiting out their trouble (several may: report writes run beside the loop) → reason. */
  const troubles = new Map<number, string>();
  let ids = 0;
  let wakes = 0;

  /** Shows `reason` until the wait ends: `ms`, a resume or cancel request (`wake`), or `until()`. */
  const wait = async (reason: string, ms: number, until: () => boolean = () => false) => {
    const id = ids++;
    if (troubles.size === 0) onTrouble?.();
    troubles.set(id, reason);
    try {
      const seen = wakes;
      await condition(() => wakes !== seen || until(), ms);
    } finally {
      troubles.delete(id);
    }
  };

  const infra = (async <T>(what: string, call: () => Promise<T>, giveUp?: () => boolean) => {
    for (let failures = 0; ; failures++) {
      try {
        return await call();
      } catch (error) {
        if (!isInfraTrouble(error)) throw error;
        if (giveUp?.()) return undefined;
        const ms = Math.min(INFRA_MAX_WAIT_MS, INFRA_FIRST_WAIT_MS * 2 ** failures);
        await wait(
          `${what} failed: ${failureMessage(error)} (trying again in ${Math.round(ms / 1000)} s, or at once on resume)`,
          ms,
          giveUp,
        );
        if (giveUp?.()) return undefined;
      }
    }
  }) as Infra;

  return {
    infra,
    wait,
    /** Why the job waits on its infrastructure now (the latest trouble), or undefined. */
    trouble: (): string | undefined => [...troubles.values()].at(-1),
    /** A resume or cancel request: every wait ends at once and its call is tried again. */
    wake: () => void wakes++,
  };
}
