// When a bulk job stops sending because the API itself is unwell, and waits for a person to resume it:
// a high RATE of server errors over enough recent answers (not a count that a window's own successes
// reset: a window reports its OKs apart from its failures, so their order is lost), or windows in a row
// of which no request reached the API at all (connection refused, unknown host, connect timeout).
// Pure code: the workflow carries the tallies across continue-as-new (a few numbers).

/** Server errors above this share of the recent answers pause the job… */
export const SERVER_ERROR_RATE = 0.9;
/** …once at least this many answers are counted. */
export const MIN_ANSWERS = 50;
/** Windows in a row with nothing answered and a request that could not leave: the job pauses. */
export const UNREACHABLE_WINDOWS = 5;

/**
 * Answers per window, oldest first: `[answers, server errors]`. Only the fewest recent windows that hold
 * MIN_ANSWERS are kept (a window is never split: its answers have no order).
 */
export type AnswerTallies = [answers: number, serverErrors: number][];

/** The tallies with one more window's answers counted. */
export function countAnswers(tallies: AnswerTallies, answers: number, serverErrors: number): AnswerTallies {
  if (answers === 0) return tallies;
  const next: AnswerTallies = [...tallies, [answers, serverErrors]];
  let total = next.reduce((n, [a]) => n + a, 0);
  while (next.length > 1 && total - next[0]![0] >= MIN_ANSWERS) total -= next.shift()![0];
  return next;
}

/** Why the job should pause for server errors, or undefined while the API answers well enough. */
export function serverErrorPause(tallies: AnswerTallies): string | undefined {
  const answers = tallies.reduce((n, [a]) => n + a, 0);
  const errors = tallies.reduce((n, [, e]) => n + e, 0);
  if (answers < MIN_ANSWERS || errors <= SERVER_ERROR_RATE * answers) return undefined;
  return `the API answered ${errors} of its last ${answers} requests with server errors: paused (resume when it is healthy)`;
}

/** Why the job should pause because nothing reaches the API (`lastReason`: the last request's). */
export function unreachablePause(windows: number, lastReason: string): string | undefined {
  if (windows < UNREACHABLE_WINDOWS) return undefined;
  return `${lastReason} (nothing reached the API in ${windows} windows in a row): paused — check the shop's base URL and the network, then resume`;
}
