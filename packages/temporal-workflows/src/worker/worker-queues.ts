// The queues one worker process polls. A deployment serves both the main queue (bulk jobs, lanes,
// schedules, with the order flows' queue beside it) and the sale lane's (`saleTaskQueue`): in one process (`all`, the default) or in processes of
// their own, so a sale's workflow task and request never wait in an event loop busy with bulk requests.
export const WORKER_QUEUES = ['all', 'jobs', 'sales'] as const;
export type WorkerQueues = (typeof WORKER_QUEUES)[number];
