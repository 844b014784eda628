// Many-shop jobs for the integration tests: the shops a job lists (each with a feed of its own, or all
// reading the job's) and the job started on the test file's task queue.
import { randomUUID } from 'node:crypto';
import { startBulkJob } from '../src/client/client.ts';
import type { MultiShopJobInput } from '../src/types.ts';
import { csvFeed, type TestEnv } from './helpers.ts';

/** A test shop (`env.shop`) as a job names it. */
type JobShop = { shopId: string; ref: string };

/** `shops` as a many-shop job lists them, all reading the job's own `feed`. */
export const shopRefs = (shops: JobShop[]) => shops.map((s) => ({ shopId: s.shopId, credentialRef: s.ref }));

/** `shops` as a many-shop job lists them, shop i with its own CSV feed of `items` listings `<prefix><i>-…`. */
export const shopsWithFeeds = (env: TestEnv, shops: JobShop[], prefix: string, items: number) =>
  shopRefs(shops).map((s, i) => ({
    ...s,
    feed: { path: csvFeed(env, `${prefix}${i}`, items), format: 'csv' as const },
  }));

/**
 * Starts a job over many shops on the file's task queue, its id `<name>-<uuid>`: creates, each shop at
 * 20 per second, unless `over` says otherwise.
 */
export async function startShopsJob(
  env: TestEnv,
  name: string,
  shops: MultiShopJobInput['shops'],
  over: Partial<MultiShopJobInput> = {},
) {
  const jobId = `${name}-${randomUUID()}`;
  const input: MultiShopJobInput = {
    jobId,
    shops,
    operation: 'create',
    allowance: { limit: 20, windowMs: 1000 },
    ...over,
  };
  return { jobId, handle: await startBulkJob(env.client, input, env.taskQueue) };
}
