// A worker's tuning, from environment variables (worker-main, `selling-kit worker`, compose's worker
// service) or flags, checked once with messages that name the setting:
//   SELLING_KIT_MAX_CONCURRENT_ACTIVITIES  maxConcurrentActivityTaskExecutions: activities at once (SDK: 100)
//   SELLING_KIT_MAX_CACHED_WORKFLOWS       maxCachedWorkflows: the sticky cache, workflows kept in memory
//                                          between tasks (SDK: from the heap size; 0 turns it off)
//   SELLING_KIT_MAX_CACHED_ORDER_FLOWS     the order queue's sticky cache (default 500: a flow sleeps for hours)
//   SELLING_KIT_SHUTDOWN_GRACE_TIME        after SIGTERM / SIGINT, how long in-flight activities (a sendBatch
//                                          window) get to finish before they are cancelled (default 10s)
// The force time (when `worker.run()` stops waiting and the process exits) follows the grace time:
// grace + SHUTDOWN_FORCE_MARGIN. A container's stop timeout (compose `stop_grace_period`) must be longer.
import type { Duration } from '@temporalio/common';

export const TUNING_ENV = {
  maxConcurrentActivityTaskExecutions: 'SELLING_KIT_MAX_CONCURRENT_ACTIVITIES',
  maxCachedWorkflows: 'SELLING_KIT_MAX_CACHED_WORKFLOWS',
  maxCachedOrderFlows: 'SELLING_KIT_MAX_CACHED_ORDER_FLOWS',
  shutdownGraceTime: 'SELLING_KIT_SHUTDOWN_GRACE_TIME',
} as const;

/** Default grace time (worker.ts SHUTDOWN_GRACE_TIME is the same value, as a Duration string). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** Force time = grace + this: the SDK's own clean-up after the grace time ends. */
export const SHUTDOWN_FORCE_MARGIN_MS = 15_000;

export class TuningError extends Error {
  override name = 'TuningError';
}

export interface WorkerTuning {
  maxConcurrentActivityTaskExecutions?: number;
  maxCachedWorkflows?: number;
  maxCachedOrderFlows?: number;
  shutdownGraceTime: Duration;
  shutdownForceTime: Duration;
}

/** A whole number ≥ min, or undefined (the SDK's default) when unset or empty. */
function whole(name: string, value: string | undefined, min: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min)
    throw new TuningError(
      `${name} must be ${min === 0 ? 'a whole number ≥ 0' : 'a positive integer'}, got "${text}"`,
    );
  return n;
}

/** `90s`, `2m`, `1500ms` or a number of milliseconds → milliseconds; undefined when unset or empty. */
export function durationMs(name: string, value: string | undefined): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(text);
  if (!m) throw new TuningError(`${name} must be a duration such as 30s, 2m or 1500ms, got "${text}"`);
  const ms = Number(m[1]) * (m[2] === 'm' ? 60_000 : m[2] === 's' ? 1_000 : 1);
  if (!Number.isInteger(ms) || ms > 3_600_000)
    throw new TuningError(`${name} must be whole milliseconds, at most 1 hour, got "${text}"`);
  return ms;
}

/** The tuning from `values` (flags, then the environment), each named by its variable in errors. */
export function workerTuning(
  values: Partial<Record<keyof typeof TUNING_ENV, string | undefined>>,
  names: Partial<Record<keyof typeof TUNING_ENV, string>> = TUNING_ENV,
): WorkerTuning {
  const name = (k: keyof typeof TUNING_ENV) => names[k] ?? TUNING_ENV[k];
  const graceMs =
    durationMs(name('shutdownGraceTime'), values.shutdownGraceTime) ?? DEFAULT_SHUTDOWN_GRACE_MS;
  return {
    maxConcurrentActivityTaskExecutions: whole(
      name('maxConcurrentActivityTaskExecutions'),
      values.maxConcurrentActivityTaskExecutions,
      1,
    ),
    maxCachedWorkflows: whole(name('maxCachedWorkflows'), values.maxCachedWorkflows, 0),
    maxCachedOrderFlows: whole(name('maxCachedOrderFlows'), values.maxCachedOrderFlows, 0),
    shutdownGraceTime: graceMs,
    shutdownForceTime: graceMs + SHUTDOWN_FORCE_MARGIN_MS,
  };
}

/** The tuning from environment variables (TUNING_ENV). */
export const tuningFromEnv = (env: NodeJS.ProcessEnv = process.env): WorkerTuning =>
  workerTuning({
    // Spelled out (not TUNING_ENV[k]): the compose test finds the variables a worker reads in the source.
    maxConcurrentActivityTaskExecutions: env.SELLING_KIT_MAX_CONCURRENT_ACTIVITIES,
    maxCachedWorkflows: env.SELLING_KIT_MAX_CACHED_WORKFLOWS,
    maxCachedOrderFlows: env.SELLING_KIT_MAX_CACHED_ORDER_FLOWS,
    shutdownGraceTime: env.SELLING_KIT_SHUTDOWN_GRACE_TIME,
  });
