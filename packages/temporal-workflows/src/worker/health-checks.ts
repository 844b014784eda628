// The worker's readiness checks (health.ts READINESS_CHECKS), each on what the worker itself uses:
//   temporal    DescribeNamespace on the worker's own connection (its address, namespace, TLS, API key);
//   jobStore    the job store's probe: reachable and writable (a write rolled back or removed);
//   tokenStore  the same for the token store (or "none" when the worker has no OAuth sellers);
//   codecKey    the codec keyring loaded (or "off" when SELLING_KIT_CODEC=0);
//   polling     the worker is RUNNING and the server lists it among the task queue's pollers.
// Also the liveness rule: alive until the worker has stopped or failed.
import type { NativeConnection } from '@temporalio/worker';
import type { KitWorker } from './worker.ts';
import type { JobStore } from '../stores/job-store.ts';
import { CHECK_TIMEOUT_MS, type Check, type ReadinessCheck } from './health.ts';

/** The Temporal API's TASK_QUEUE_TYPE_WORKFLOW (the workflow task queue lists the worker's pollers). */
const TASK_QUEUE_TYPE_WORKFLOW = 1;

export interface WorkerHealthDeps {
  /** The worker's own connection and settings, once it exists. */
  /** The worker and every task queue it polls (worker-queues.ts `servedQueues`): each must list it. */
  worker?: { worker: KitWorker; connection: NativeConnection; namespace: string; taskQueues: string[] };
  jobStore: Pick<JobStore, 'probe' | 'id'>;
  tokenStore?: { probe(): Promise<void> };
  /** Ids of the codec keys loaded; undefined when payload encryption is off. */
  codecKeyIds?: readonly string[];
  timeoutMs?: number;
}

/** The checks /readyz runs now: before the worker exists, `temporal` and `polling` say it is starting. */
export function workerChecks(deps: WorkerHealthDeps): Record<ReadinessCheck, Check> {
  const timeoutMs = deps.timeoutMs ?? CHECK_TIMEOUT_MS;
  const w = deps.worker;
  const starting: Check = () => Promise.reject(new Error('the worker is starting'));
  return {
    temporal: w
      ? async () => {
          await w.connection.withDeadline(Date.now() + timeoutMs, () =>
            w.connection.workflowService.describeNamespace({ namespace: w.namespace }),
          );
          return `namespace ${w.namespace}`;
        }
      : starting,
    jobStore: async () => {
      if (deps.jobStore.probe) await deps.jobStore.probe();
      else await deps.jobStore.id();
    },
    tokenStore: async () => {
      if (!deps.tokenStore) return 'none';
      await deps.tokenStore.probe();
    },
    codecKey: async () => {
      if (!deps.codecKeyIds) return 'off';
      if (deps.codecKeyIds.length === 0) throw new Error('no codec key loaded');
      return `${deps.codecKeyIds.length} key(s)`;
    },
    polling: w
      ? async () => {
          const state = w.worker.getState();
          if (state !== 'RUNNING') throw new Error(`the worker is ${state}`);
          const identity = w.worker.options.identity;
          for (const taskQueue of w.taskQueues) {
            const { pollers } = await w.connection.withDeadline(Date.now() + timeoutMs, () =>
              w.connection.workflowService.describeTaskQueue({
                namespace: w.namespace,
                taskQueue: { name: taskQueue },
                taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
              }),
            );
            if (!(pollers ?? []).some((p) => p.identity === identity))
              throw new Error(`the server lists no poller ${identity} on task queue ${taskQueue}`);
          }
          return `task queues ${w.taskQueues.join(', ')}`;
        }
      : starting,
  };
}

/** Why the worker is not alive (stopped or failed), or undefined: a starting or running worker is. */
export function workerLiveness(worker: KitWorker | undefined): string | undefined {
  const state = worker?.getState();
  return state === 'FAILED' || state === 'STOPPED' ? `the worker is ${state}` : undefined;
}
