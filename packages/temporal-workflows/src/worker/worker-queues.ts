// The queues one worker process polls. A deployment serves the main queue (bulk jobs, lanes, schedules),
// the order flows' queue beside it (`orderTaskQueue`, polled with the main one) and the sale lane's
// (`saleTaskQueue`): in one process (`all`, the default) or in processes of their own (`jobs`, `sales`), so
// a sale's workflow task and request never wait in an event loop busy with bulk requests.
import { orderTaskQueue, saleTaskQueue } from '../contract.ts';

export const WORKER_QUEUES = ['all', 'jobs', 'sales'] as const;
export type WorkerQueues = (typeof WORKER_QUEUES)[number];

/** The task queues a process with `queues` polls, for a deployment's task queue `taskQueue`. */
export function servedQueues(queues: WorkerQueues, taskQueue: string): string[] {
  const jobs = [taskQueue, orderTaskQueue(taskQueue)];
  const sales = [saleTaskQueue(taskQueue)];
  return queues === 'jobs' ? jobs : queues === 'sales' ? sales : [...jobs, ...sales];
}
