// One error type for everything the CLI reports on purpose: a message for people, a stable code for
// scripts (`--json`), and the exit code. Anything else is a bug and exits 1 with its stack.

/** Exit codes, documented in the README ("CLI reference"). */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  /** Bad input: a flag, a file, a feed that cannot be read. Nothing was started. */
  usage: 2,
  /** The job ended, but some items failed or were invalid (see the report). */
  itemsFailed: 3,
  /** No such job, schedule, shop or seller. */
  notFound: 4,
  /** Temporal cannot be reached. */
  temporalUnreachable: 5,
  /** The API refused the credential, or cannot be reached. */
  credentials: 6,
  /** The job was cancelled or failed as a whole. */
  jobStopped: 7,
  /** The job is running, but no worker polls its task queue (or none answered within seconds). */
  noWorker: 8,
  /** `conformance`: some answers differ from the expectation, or the clean-up left a test listing. */
  conformanceDiffers: 9,
  /** Interrupted by Ctrl-C (the job goes on in Temporal). */
  interrupted: 130,
} as const;

export class CliError extends Error {
  readonly exitCode: number;
  readonly code: string;
  readonly hint?: string;

  constructor(code: string, message: string, exitCode: number, hint?: string) {
    super(message);
    this.name = 'CliError';
    this.code = code;
    this.exitCode = exitCode;
    this.hint = hint;
  }
}
