// Two deployments on one Temporal namespace, each with its own task queue, and the same shop name (the
// CLI's `dev` always calls its demo shop "demo"): a pacing entity started by one deployment runs on that
// deployment's task queue, so the other must never wait on it — once the first deployment's workers are
// gone, nothing would ever answer. Each task queue has its own lanes (and app budgets).
// @needs temporal
import { startBulkJob } from '../src/client/client.ts';
import { csvFeed, job, startEnv, type TestEnv } from './helpers.ts';

let env: TestEnv;
beforeAll(async () => {
  env = await startEnv('task-queues');
}, 120_000);
afterAll(() => env?.close(), 60_000);

const within = <T>(ms: number, what: string, p: Promise<T>) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms),
    ),
  ]);

describe('deployments on separate task queues', () => {
  it('a shop worked by a deployment that has gone is worked by another at once', async () => {
    const shop = env.shop('tq');
    const first = `${env.taskQueue}-first`;
    const stopFirst = await env.worker({ taskQueue: first });
    const a = job(env, shop, csvFeed(env, 'TQA', 5));
    expect(await (await startBulkJob(env.client, a, first)).result()).toMatchObject({ done: 5 });
    await stopFirst(); // the first deployment is gone, its lane with it

    const second = `${env.taskQueue}-second`;
    await env.worker({ taskQueue: second });
    const b = job(env, shop, csvFeed(env, 'TQB', 5));
    const result = await within(
      60_000,
      'the second deployment',
      (await startBulkJob(env.client, b, second)).result(),
    );
    expect(result).toMatchObject({ state: 'finished', done: 5 });
  }, 180_000);
});
