// What a conformance probe is: a stable id, the spec's words it checks, our choice where the spec is
// silent, and a check that asks the service and compares its answer. Probes are data plus one small
// function; the runner (runner.ts) decides order, blocking and clean-up.
import type { ProbeContext } from './context.ts';

/** What the service answered to one request, reduced to what probes compare. */
export interface Reply {
  /** HTTP status; undefined when no answer came back (network failure, timeout). */
  status?: number;
  /** The error code (`errors[0].code`, or the 429 body's `code`); undefined on success. */
  code?: string;
  /** The error message (already scrubbed of the credential). */
  message?: string;
  /** Why there was no answer. */
  failure?: string;
}

/** A probe's verdict on the answer it got. */
export interface Check {
  /** What the service answered, for people: `422 invalid_description`, `200 (status STATUS_ONSALE)`. */
  answer: string;
  ok: boolean;
}

export interface Probe {
  /** Stable id (`products.restock-after-sell-out`): the README's Spec gaps point at it. */
  id: string;
  /** The spec's words this probe checks (quoted), or what the public reference says where the spec is silent. */
  spec: string;
  /** The expected answer, short: `422 invalid_description`. */
  expected: string;
  /** Our SPEC GAP choice the probe confirms or refutes; '' when the spec itself decides. */
  choice: string;
  /** Probes whose success this one builds on (they leave the listing in the state it starts from). */
  needs?: string[];
  /** Probes that must run first when they can (selected along with this one), without blocking it. */
  after?: string[];
  /** Why the probe cannot run with these options (e.g. no webhook receiver); undefined = it runs. */
  unavailable?: (ctx: ProbeContext) => string | undefined;
  run(ctx: ProbeContext): Promise<Check>;
}

export type Verdict = 'ok' | 'differs' | 'blocked' | 'skipped';

export interface ProbeResult {
  id: string;
  spec: string;
  expected: string;
  choice: string;
  answer: string;
  verdict: Verdict;
  ok: boolean;
}

/** `422 invalid_description`, `200`, `no answer (timeout)`. */
export function showReply(r: Reply): string {
  if (r.status === undefined) return `no answer (${r.failure ?? 'unknown'})`;
  // A 2xx whose body breaks our schema (the client's strict responses): say what does not match.
  if (r.code === 'invalid_response') return `${r.status} but ${r.message ?? 'the body does not match'}`;
  return r.code ? `${r.status} ${r.code}` : String(r.status);
}

/** A 2xx whose body matched our schema. */
export const isSuccess = (r: Reply) =>
  r.status !== undefined && r.status >= 200 && r.status < 300 && r.code === undefined;

/** The reply is this status (and this code, when one is given). */
export function expectReply(r: Reply, status: number, code?: string, note?: string): Check {
  const answer = note ? `${showReply(r)} ${note}` : showReply(r);
  return { answer, ok: r.status === status && (code === undefined || r.code === code) };
}

/** The reply is a 2xx; `then` adds what was read back (its own verdict). */
export function expectSuccess(r: Reply, then?: Check): Check {
  if (!isSuccess(r)) return { answer: showReply(r), ok: false };
  return then
    ? { answer: `${showReply(r)}, ${then.answer}`, ok: then.ok }
    : { answer: showReply(r), ok: true };
}
