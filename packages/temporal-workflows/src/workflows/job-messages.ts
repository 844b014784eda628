// The bulk workflows' side of issue 22's job messages: a pause, resume or cancel must name exactly the
// job's shops (contract.ts JobMessage, jobMessageProblem), so a client key the codec let through for its
// own shops cannot steer another shop's job. A signal that fails the check is ignored (and logged), an
// update is rejected by its validator: nothing changes, nothing lands in history.
//
// Replay: a message naming no shop in a history recorded before JOB_MESSAGES_PATCH (0.4) was applied, and
// still is. Signals decide with `patched` when they name no shop (its marker records the decision of a
// run that refused one). Update validators need no marker: they never run on replay (an update they
// rejected is not in history; one in history is applied without its validator), so they are always strict.
import { ApplicationFailure, log, patched } from '@temporalio/workflow';
import { JOB_MESSAGES_PATCH, jobMessageProblem, type JobMessage } from '../contract.ts';
import { validateInput } from './refuse.ts';

/** The failure type an update naming the wrong shops is rejected with (non-retryable). */
export const MESSAGE_REFUSED = 'JobMessageRefused';

/** True when `message` names shops at all (a 0.5 sender), so no patch decides how it is checked. */
const namesShops = (message: unknown) =>
  message !== null && typeof message === 'object' && 'shopIds' in message;

/** The checks of one job's messages: the job's id (as messages name it) and its shops. */
export function jobMessageChecks(jobId: string, jobShops: readonly string[]) {
  return {
    /** For a signal handler: true (and a log line) when the signal is to be ignored. */
    signalRefused(name: string, message: unknown): boolean {
      const strict = namesShops(message) || patched(JOB_MESSAGES_PATCH);
      const problem = jobMessageProblem(message, jobId, jobShops, strict);
      if (problem) log.warn(`signal ${name} ignored: ${problem}`);
      return problem !== undefined;
    },
    /** Options of an update handler: the codec's refusals, then the shops, turned away by its validator. */
    update: {
      validator(message?: unknown): void {
        validateInput(message);
        const problem = jobMessageProblem(message, jobId, jobShops);
        if (problem) throw ApplicationFailure.nonRetryable(problem, MESSAGE_REFUSED);
      },
    },
  };
}

/**
 * What the many-shop parent sends a child with a message: the child's shop named, from JOB_MESSAGES_PATCH
 * on (decided when sent); undefined in a run recorded before it, which sends what it sent then.
 */
export function childMessage(shopId: string, reason?: string): JobMessage | undefined {
  if (!patched(JOB_MESSAGES_PATCH)) return undefined;
  return { shopIds: [shopId], ...(reason !== undefined ? { reason } : {}) };
}
