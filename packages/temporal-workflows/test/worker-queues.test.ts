// SELLING_KIT_WORKER_QUEUES (worker-queues.ts): a worker process polls the main queue, the sale lane's,
// or both. With the sale lane in a process of its own, a sale waits for no event loop busy with bulk
// requests; a deployment that splits them must still serve both, so each half is checked on the server.
// @needs temporal
import { randomUUID } from 'node:crypto';
import { markAsSold } from '../src/client/client.ts';
import { saleTaskQueue } from '../src/contract.ts';
import { WORKER_QUEUES_ENV, workerEnvironment, workerQueues } from '../src/worker/worker-env.ts';
import { servedQueues } from '../src/worker/worker-queues.ts';
import { createWorker } from '../src/worker/worker.ts';
import { TEST_FEED_POLICY } from './feed-files.ts';
import { listDirectly, useTestEnv, waitFor } from './helpers.ts';

describe('the queues setting', () => {
  it('defaults to all; takes jobs or sales in any case; refuses anything else, naming the setting', () => {
    expect(workerQueues(undefined)).toBe('all');
    expect(workerQueues(' ')).toBe('all');
    expect(workerQueues('Sales')).toBe('sales');
    expect(workerQueues('jobs')).toBe('jobs');
    expect(() => workerQueues('bulk')).toThrow(
      `${WORKER_QUEUES_ENV} must be one of all, jobs, sales (got "bulk")`,
    );
    expect(workerEnvironment({ [WORKER_QUEUES_ENV]: 'sales' }).queues()).toBe('sales');
    expect(() => workerEnvironment({}, { queues: 'sale' }).queues()).toThrow(/^--queues must be one of/);
    // What each polls: the order flows' queue goes with the main one.
    expect(servedQueues('all', 'tq')).toEqual(['tq', 'tq-orders', 'tq-sales']);
    expect(servedQueues('jobs', 'tq')).toEqual(['tq', 'tq-orders']);
    expect(servedQueues('sales', 'tq')).toEqual(['tq-sales']);
  });
});

describe('workers split by queue', () => {
  // This file's first worker polls the main queue only: the sale lane has no poller until a sales
  // worker starts.
  const env = useTestEnv('worker-queues', { queues: 'jobs' });

  /** The pollers the server lists on a queue's workflow tasks (their identities). */
  const pollers = async (taskQueue: string) =>
    (
      await env.client.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue },
        taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
      })
    ).pollers ?? [];

  it('a jobs worker leaves sales waiting; a sales worker beside it settles them and polls nothing else', async () => {
    const shop = env.shop('wq');
    const sku = `WQ-${randomUUID().slice(0, 8)}`;
    const seller = env.sim.world.sellers.get(shop.sellerId)!;
    const listing = await listDirectly(env, shop.sellerId, sku);
    const state = () => seller.products.get(listing.productId)!.state;

    await waitFor('a poller on the main queue', async () => (await pollers(env.taskQueue)).length > 0);
    expect(await pollers(saleTaskQueue(env.taskQueue))).toHaveLength(0);
    const sale = markAsSold(
      env.client,
      { shop: { shopId: shop.shopId, credentialRef: shop.ref }, ref: { sku } },
      env.taskQueue,
    );
    await new Promise((r) => setTimeout(r, 2_000));
    expect(state()).not.toBe('sold'); // nobody polls the sale lane yet

    const { worker, close } = await createWorker({
      address: process.env.TEMPORAL_TEST_ADDRESS!,
      taskQueue: env.taskQueue,
      credentials: (ref) => env.keys.get(ref),
      jobStore: env.store,
      feedPolicy: TEST_FEED_POLICY,
      queues: 'sales',
    });
    const running = worker.run();
    try {
      // Its one SDK worker polls the sale lane's queue, not the main one.
      expect(worker.options.taskQueue).toBe(saleTaskQueue(env.taskQueue));
      expect(await sale).toEqual({ status: 'sold', attempts: 1 });
      expect(state()).toBe('sold');
      await waitFor(
        'a poller on the sale queue',
        async () => (await pollers(saleTaskQueue(env.taskQueue))).length > 0,
      );
    } finally {
      worker.shutdown();
      await running;
      await close();
    }
  }, 60_000);
});
