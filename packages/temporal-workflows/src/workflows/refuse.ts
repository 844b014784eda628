// The workflow side of refused payloads (contract.ts refusedInput; the worker's codec puts a refusal in
// place of a payload it will not accept): an entry point fails at once, before any command, a signal
// handler ignores the signal, an update validator rejects the update. Checking a valid input issues no
// command, so these checks need no patch marker: histories replay as before.
import {
  ApplicationFailure,
  ContinueAsNew,
  isCancellation,
  log,
  TemporalFailure,
  WorkflowError,
} from '@temporalio/workflow';
import { refusedInput } from '../contract.ts';

/** The failure type of a refused input (non-retryable). */
export const INPUT_REFUSED = 'InputRefused';

/** First line of every workflow function: a refused argument fails the workflow, nothing scheduled. */
export function refuseInput(...args: unknown[]): void {
  const refusal = refusedInput(...args);
  if (refusal) throw ApplicationFailure.nonRetryable(refusal.message, INPUT_REFUSED, refusal.code);
}

/** For signal handlers: true (and a log line) when the signal's arguments were refused: ignore it. */
export function signalRefused(name: string, args: unknown[]): boolean {
  const refusal = refusedInput(...args);
  if (refusal) log.warn(`signal ${name} ignored: ${refusal.message}`, { code: refusal.code });
  return refusal !== undefined;
}

/** An update validator: rejects refused arguments (the update is never accepted, nothing recorded). */
export function validateInput(...args: unknown[]): void {
  const refusal = refusedInput(...args);
  if (refusal) throw ApplicationFailure.nonRetryable(refusal.message, INPUT_REFUSED, refusal.code);
}

/** A plain object (not null, not an array): what a handler taking `{ … }` may destructure. */
export const anObject = (arg: unknown): arg is Record<string, unknown> =>
  arg !== null && typeof arg === 'object' && !Array.isArray(arg);
/** An optional `{ … }` argument: absent, null or a plain object. */
export const optionalObject = (arg: unknown): boolean => arg === undefined || arg === null || anObject(arg);

/** The SDK's own errors (a failure, continue-as-new, cancellation, a determinism violation): never swallowed. */
const temporalError = (e: unknown) =>
  e instanceof TemporalFailure ||
  e instanceof ContinueAsNew ||
  e instanceof WorkflowError ||
  isCancellation(e);

/**
 * A signal handler that ignores (and logs) refused arguments, a first argument `expects` turns away
 * (anyone may signal: a null or a string where the handler destructures an object would throw), and the
 * handler's own errors: a plain error thrown in a signal handler fails the workflow task, over and over.
 */
export const guardSignal =
  <A extends unknown[]>(
    name: string,
    handler: (...args: A) => void | Promise<void>,
    expects?: (arg: unknown) => boolean,
  ) =>
  (...args: A): void | Promise<void> => {
    if (signalRefused(name, args)) return undefined;
    if (expects && !expects(args[0])) {
      log.warn(`signal ${name} ignored: its argument is not what the signal takes`);
      return undefined;
    }
    const failed = (e: unknown) => {
      if (temporalError(e)) throw e;
      log.warn(`signal ${name} ignored: its handler failed`, { error: String(e) });
    };
    try {
      const done = handler(...args);
      return done instanceof Promise ? done.catch(failed) : undefined;
    } catch (e) {
      return failed(e);
    }
  };

/** The options of every update handler: its validator turns refused arguments away. */
export const REFUSING_UPDATE = { validator: validateInput } as const;
