// Worker metrics: the Prometheus endpoint of the SDK's runtime (its own `temporal_*` metrics plus ours,
// named in metric-names.ts), and the adapter that counts what the API clients of activities see.
// Off unless an address is given: `SELLING_KIT_METRICS_ADDRESS=127.0.0.1:9464` (or `selling-kit worker
// --metrics-address`). The runtime is process-wide, so it is installed once, before any connection.
import { Runtime, type RuntimeOptions } from '@temporalio/worker';
import type { MetricMeter } from '@temporalio/common';
import { OPERATIONS_BY_ID, type Logger, type LogEvent } from '@selling-kit/api-client';
import {
  RATE_LIMITED_METRIC,
  REFRESHES_METRIC,
  REQUESTS_METRIC,
  VERIFICATION_ROUNDS_METRIC,
} from './metric-names.ts';

export * from './metric-names.ts';

/** Where the worker serves `/metrics` when this variable is set (host:port). */
export const METRICS_ADDRESS_ENV = 'SELLING_KIT_METRICS_ADDRESS';

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
export function countRefresh(
  result: 'rotated' | 'settled' | 'reauthorize',
  meter: () => MetricMeter = workerMeter,
): void {
  counter(meter(), REFRESHES_METRIC).add(1, { result });
}

/** Counts one verification round of creates in doubt. */
export function countVerification(found: number, meter: () => MetricMeter = workerMeter): void {
  counter(meter(), VERIFICATION_ROUNDS_METRIC).add(1, { result: found > 0 ? 'found' : 'none' });
}
