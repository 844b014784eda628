// What every chaos scenario opens with: the options they all take, a run folder of its own, a short tag
// that keeps this run's shops, jobs and task queues apart from any other run's on the same server, and
// its log of events (timed lines kept for the result and printed as they happen), with the failures it
// found.
import { mkdtempSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The options every scenario takes (each scenario's own come on top). */
export interface ChaosRunOptions {
  /** Creates in each job. */
  items: number;
  /** The simulator's time scale: its windows and delays pass this many times faster than real time. */
  scale: number;
  /** Gives up (and fails) when a job has not ended after this long (real ms; the scenario says from when). */
  timeoutMs: number;
  /** Progress lines go here (stderr in the CLI). */
  log: (line: string) => void;
}

/** The options of a scenario whose simulator injects faults and whose jobs may stall under them. */
export interface FaultedRunOptions extends ChaosRunOptions {
  /** Seed of the simulator's fault generator. */
  seed: number;
  /** The simulator's read-after-create delay, simulated ms. */
  readAfterCreateMs: number;
  /** Gives up (and fails) when no listing was created for this long while a job still runs (real ms). */
  stallMs: number;
}

/** The default `log`: progress on stderr, so stdout keeps only the result. */
export const logToStderr = (line: string): void => console.error(line);

export interface ChaosEvent {
  /** Seconds since the run's clock started (see `restartClock`). */
  at: number;
  what: string;
}

export interface ChaosRun {
  /** A new folder under the system's temp folder: data files, feeds, job stores, worker logs. */
  dir: string;
  /** Six upper-case characters, unique to this run. */
  tag: string;
  events: ChaosEvent[];
  /** What went wrong, one line each; the run passes when it stays empty. */
  failures: string[];
  /** Seconds since the clock started. */
  since(): number;
  /** Milliseconds since the clock started (the run's wall time at its end). */
  elapsedMs(): number;
  /** Records an event at `since()` and prints it as `[<name> <s> s] <what>`. */
  note(what: string): void;
  /** Counts from now on (a scenario whose events are timed from the jobs' start, not the stack's). */
  restartClock(): void;
}

/** Opens a run named `name` (in its log lines) with its folder made from `folderPrefix`; the clock starts now. */
export function openChaosRun(name: string, folderPrefix: string, log: (line: string) => void): ChaosRun {
  let t0 = Date.now();
  const elapsedMs = () => Date.now() - t0;
  const since = () => elapsedMs() / 1000;
  const events: ChaosEvent[] = [];
  return {
    dir: mkdtempSync(join(tmpdir(), folderPrefix)),
    tag: randomUUID().slice(0, 6).toUpperCase(),
    events,
    failures: [],
    since,
    elapsedMs,
    note: (what) => {
      const at = since();
      events.push({ at: Number(at.toFixed(1)), what });
      log(`[${name} ${at.toFixed(1).padStart(6)} s] ${what}`);
    },
    restartClock: () => {
      t0 = Date.now();
    },
  };
}
