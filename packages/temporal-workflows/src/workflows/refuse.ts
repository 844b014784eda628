// The workflow side of refused payloads (contract.ts refusedInput; the worker's codec puts a refusal in
// place of a payload it will not accept): an entry point fails at once, before any command, a signal
// handler ignores the signal, an update validator rejects the update. Checking a valid input issues no
// command, so these checks need no patch marker: histories replay as before.
import { ApplicationFailure, log } from '@temporalio/workflow';
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

/** A signal handler that ignores (and logs) refused arguments. */
export const guardSignal =
  <A extends unknown[]>(name: string, handler: (...args: A) => void | Promise<void>) =>
  (...args: A): void | Promise<void> =>
    signalRefused(name, args) ? undefined : handler(...args);

/** The options of every update handler: its validator turns refused arguments away. */
export const REFUSING_UPDATE = { validator: validateInput } as const;
