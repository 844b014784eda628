// A bulk job's metrics from workflow code: items settled (by operation and outcome), the pacing
// waits it sleeps on, and its pauses by cause (an operator is alerted on them: deploy/prometheus).
// The SDK drops workflow metrics while a history is replayed, so a turn replayed by another worker (or
// after a cache eviction) counts nothing twice, and no command is added: histories are unchanged. A run
// counts from the carried counts, so continue-as-new counts nothing twice either.
import { metricMeter } from '@temporalio/workflow';
import {
  ITEMS_METRIC,
  JOB_PAUSES_METRIC,
  PACING_WAIT_METRIC,
  type ItemOutcome,
  type PauseCause,
} from '../observability/metric-names.ts';

export type { PauseCause } from '../observability/metric-names.ts';

interface Settled {
  done: number;
  failed: number;
  cancelled: number;
}

export function jobMetrics(operation: string, carried: Settled) {
  const items = metricMeter.createCounter(ITEMS_METRIC.name, undefined, ITEMS_METRIC.description);
  const waits = metricMeter.createHistogram(
    PACING_WAIT_METRIC.name,
    'int',
    PACING_WAIT_METRIC.unit,
    PACING_WAIT_METRIC.description,
  );
  const pauses = metricMeter.createCounter(JOB_PAUSES_METRIC.name, undefined, JOB_PAUSES_METRIC.description);
  const seen: Settled = { ...carried };
  const add = (outcome: ItemOutcome, n: number) => {
    if (n > 0) items.add(n, { operation, outcome });
  };
  return {
    /** Items refused by the feed check: counted now, and left out of the next `failed` delta. */
    invalid(n: number) {
      add('invalid', n);
      seen.failed += n;
    },
    /** Counts what settled since the last call. */
    settled(counts: Settled) {
      add('ok', counts.done - seen.done);
      add('failed', counts.failed - seen.failed);
      add('cancelled', counts.cancelled - seen.cancelled);
      Object.assign(seen, { done: counts.done, failed: counts.failed, cancelled: counts.cancelled });
    },
    /** The job has just paused (it was running). */
    paused(cause: PauseCause) {
      pauses.add(1, { operation, cause });
    },
    /** A pacing timer about to be slept on (ms). */
    waiting(ms: number) {
      if (ms > 0) waits.record(Math.round(ms), { operation });
    },
  };
}
