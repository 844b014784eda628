// Worker metrics: the Prometheus endpoint of the SDK's runtime (its own `temporal_*` metrics plus ours,
// named in metric-names.ts), and the adapter that counts what the API clients of activities see.
// Off unless an address is given: `SELLING_KIT_METRICS_ADDRESS=127.0.0.1:9464` (or `selling-kit worker
// --metrics-address`). The runtime is process-wide, so it is installed once, before any connection.
import { Runtime, type RuntimeOptions } from '@temporalio/worker';
import type { MetricMeter } from '@temporalio/common';
import { OPERATIONS_BY_ID, RATE_LIMITS, type Logger, type LogEvent } from '@selling-kit/api-client';
import { BULK_OPERATIONS, WORKFLOW_TYPES } from '../contract.ts';
import { METRICS_ADDRESS_ENV } from '../worker/health.ts';
import {
  ITEM_OUTCOMES,
  ITEMS_METRIC,
  JOB_PAUSES_METRIC,
  PAUSE_CAUSES,
  RATE_LIMITED_METRIC,
  REFRESH_RESULTS,
  REFRESHES_METRIC,
  REQUESTS_METRIC,
  STATUS_CLASSES,
  VERIFICATION_RESULTS,
  VERIFICATION_ROUNDS_METRIC,
  type RefreshResult,
} from './metric-names.ts';

export * from './metric-names.ts';

/** Where the worker serves `/metrics` when this variable is set (host:port): defined beside the health listener. */
export { METRICS_ADDRESS_ENV };

/** The runtime's telemetry options for a Prometheus endpoint on `bindAddress` (host:port; `/metrics`). */
export function metricsTelemetry(bindAddress: string): RuntimeOptions['telemetryOptions'] {
  if (!/^[^\s:]+:\d{1,5}$/.test(bindAddress))
    throw new Error(`${METRICS_ADDRESS_ENV}: expected host:port (e.g. 127.0.0.1:9464), got "${bindAddress}"`);
  return { metrics: { prometheus: { bindAddress } } };
}

/**
 * Installs the SDK runtime with a Prometheus exporter on `bindAddress`. Call it before the first
 * connection of the process; a second call, or one after the runtime started, fails with the SDK's
 * error (a process has one runtime). A process that installs the runtime itself (with its own logger)
 * passes `metricsTelemetry(address)` as its `telemetryOptions` instead.
 */
export function installMetrics(bindAddress: string): void {
  Runtime.install({ telemetryOptions: metricsTelemetry(bindAddress) });
}

/** The runtime's meter: a no-op exporter when no metrics address was installed. */
export const workerMeter = (): MetricMeter => Runtime.instance().metricMeter;

/** 2xx / 4xx / 429 / 5xx: few series whatever the traffic. */
const statusClass = (status: number) => (status === 429 ? '429' : `${Math.floor(status / 100)}xx`);

type Counter = ReturnType<MetricMeter['createCounter']>;
const counters = new WeakMap<MetricMeter, Map<string, Counter>>();

/** One counter per meter and name, made on first use. */
function counter(meter: MetricMeter, def: { name: string; description: string }): Counter {
  let byName = counters.get(meter);
  if (!byName) counters.set(meter, (byName = new Map()));
  let made = byName.get(def.name);
  if (!made) byName.set(def.name, (made = meter.createCounter(def.name, undefined, def.description)));
  return made;
}

/**
 * An api-client logger that counts answered requests by rate group and status class, 429s by group,
 * and network failures; then hands the event to `next`. Reads only the event's operation id and status:
 * no path, key or body is kept.
 */
export function requestMetricsLogger(meter: () => MetricMeter = workerMeter, next?: Logger): Logger {
  return (event: LogEvent) => {
    if (event.type === 'response' || event.type === 'transport_error') {
      const group = OPERATIONS_BY_ID.get(event.operationId)?.group ?? 'none';
      const status = event.type === 'response' ? statusClass(event.status) : 'network';
      counter(meter(), REQUESTS_METRIC).add(1, { group, status });
      if (status === '429') counter(meter(), RATE_LIMITED_METRIC).add(1, { group });
    }
    next?.(event);
  };
}

/** Counts one token rotation attempt by its result. */
export function countRefresh(result: RefreshResult, meter: () => MetricMeter = workerMeter): void {
  counter(meter(), REFRESHES_METRIC).add(1, { result });
}

/** Counts one verification round of creates in doubt. */
export function countVerification(found: number, meter: () => MetricMeter = workerMeter): void {
  counter(meter(), VERIFICATION_ROUNDS_METRIC).add(1, { result: found > 0 ? 'found' : 'none' });
}

/** Rate groups as the request counters tag them (`none`: a request outside the table, e.g. OAuth's). */
const RATE_GROUP_LABELS = [...Object.keys(RATE_LIMITS), 'none'];

/**
 * Adds 0 to every label set of every kit counter (metric-names.ts KIT_COUNTERS), so each exists from the
 * worker's start: a rule on `rate(…)` or `increase(…)` sees 0, not "no data", and the first pause or 429
 * is an increase of an existing series (a series born at 1 would not count in `increase`). The items and
 * pauses counters are counted by the bulk job's workflow code, whose series the SDK labels with the
 * worker's namespace and task queue and the workflow type: their zero series carry the same labels.
 */
export function zeroKitCounters(
  worker: { namespace: string; taskQueue: string },
  meter: MetricMeter = workerMeter(),
): void {
  const jobs = meter.withTags({ ...worker, workflowType: WORKFLOW_TYPES.bulkListing });
  for (const operation of Object.values(BULK_OPERATIONS)) {
    for (const outcome of ITEM_OUTCOMES) counter(jobs, ITEMS_METRIC).add(0, { operation, outcome });
    for (const cause of PAUSE_CAUSES) counter(jobs, JOB_PAUSES_METRIC).add(0, { operation, cause });
  }
  for (const group of RATE_GROUP_LABELS) {
    for (const status of STATUS_CLASSES) counter(meter, REQUESTS_METRIC).add(0, { group, status });
    counter(meter, RATE_LIMITED_METRIC).add(0, { group });
  }
  for (const result of VERIFICATION_RESULTS) counter(meter, VERIFICATION_ROUNDS_METRIC).add(0, { result });
  for (const result of REFRESH_RESULTS) counter(meter, REFRESHES_METRIC).add(0, { result });
}
