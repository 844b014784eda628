// The worker process (P2, R13): a second stop signal is harmless, in-flight work gets a grace time,
// tuning options reach the SDK, a failed bundling is retried, and worker-main refuses to run with
// encryption on (the default, shared with `selling-kit worker`) but no key.
// @needs temporal
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { saleTaskQueue } from '../src/contract.ts';
import {
  createWorker,
  onceSucceeded,
  SHUTDOWN_FORCE_TIME,
  SHUTDOWN_GRACE_TIME,
} from '../src/worker/worker.ts';
import { runWorkerMainToExit } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'sk-worker-'));
const credentialsFile = join(dir, 'credentials.json');
writeFileSync(credentialsFile, JSON.stringify({ s: { baseUrl: 'http://127.0.0.1:9', apiKey: 'pak_x' } }));

/** worker-main on a task queue of its own, with the credentials file, a codec key and `env`. */
const runWorkerMain = (env: NodeJS.ProcessEnv, onReady?: (kill: (s: NodeJS.Signals) => void) => void) =>
  runWorkerMainToExit(
    {
      SELLING_KIT_TASK_QUEUE: `worker-test-${randomUUID()}`,
      SELLING_KIT_CREDENTIALS: credentialsFile,
      SELLING_KIT_KEY_FILE: join(dir, 'no-such-dir', 'codec.key'),
      SELLING_KIT_CODEC_KEY: randomBytes(32).toString('base64'),
      ...env,
    },
    onReady,
  );

describe('worker-main', () => {
  it('a second stop signal during shutdown is harmless: the worker drains and exits 0', async () => {
    const exit = await runWorkerMain({}, (kill) => {
      kill('SIGTERM');
      kill('SIGINT');
    });
    expect(exit.stderr).not.toMatch(/IllegalStateError/);
    expect(exit.code).toBe(0);
  }, 120_000);

  it('encryption is on by default; without a key it exits 2 naming SELLING_KIT_CODEC_KEY (no key minted)', async () => {
    const exit = await runWorkerMain({ SELLING_KIT_CODEC_KEY: '' });
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/SELLING_KIT_CODEC_KEY/);
    expect(exit.stdout).not.toContain('worker ready');
  }, 120_000);

  it('tuning variables are checked: a bad number exits 2 naming the variable', async () => {
    const exit = await runWorkerMain({ SELLING_KIT_MAX_CONCURRENT_ACTIVITIES: 'many' });
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/SELLING_KIT_MAX_CONCURRENT_ACTIVITIES/);
  }, 120_000);

  it('SELLING_KIT_WORKER_QUEUES: a bad value exits 2 naming it; `sales` polls the sale lane alone', async () => {
    const bad = await runWorkerMain({ SELLING_KIT_WORKER_QUEUES: 'bulk' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SELLING_KIT_WORKER_QUEUES must be one of all, jobs, sales (got "bulk")');
    expect(bad.stdout).not.toContain('worker ready');
    const queue = `worker-test-${randomUUID()}`;
    const sales = await runWorkerMain({ SELLING_KIT_WORKER_QUEUES: 'sales', SELLING_KIT_TASK_QUEUE: queue });
    expect(sales.code).toBe(0);
    expect(sales.stdout).toContain(`task queue ${queue} (sales only: ${saleTaskQueue(queue)})`);
  }, 120_000);
});

describe('createWorker', () => {
  it('passes the tuning options and a shutdown grace time to the SDK', async () => {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // installed by an earlier test file in this process
    }
    const { worker, close } = await createWorker({
      address: process.env.TEMPORAL_TEST_ADDRESS!,
      taskQueue: `worker-test-${randomUUID()}`,
      credentials: () => undefined,
      maxConcurrentActivityTaskExecutions: 7,
      maxCachedWorkflows: 13,
    });
    const running = worker.run();
    try {
      expect(worker.options.maxCachedWorkflows).toBe(13);
      expect(worker.options.tuner).toMatchObject({ activityTaskSlotSupplier: { numSlots: 7 } });
      expect(SHUTDOWN_GRACE_TIME).toBe('10s');
      expect(worker.options.shutdownGraceTimeMs).toBe(10_000);
      // worker-main's limit comes before compose's stop_grace_period (30 s) kills the container.
      expect(Number.parseInt(SHUTDOWN_FORCE_TIME)).toBeLessThan(30);
    } finally {
      worker.shutdown();
      await running;
      await close();
    }
  }, 120_000);
});

describe('onceSucceeded (the workflow bundle)', () => {
  it('a failed attempt is not cached: the next call tries again; a success is shared', async () => {
    let calls = 0;
    const get = onceSucceeded(async () => {
      calls++;
      if (calls === 1) throw new Error('webpack failed');
      return calls;
    });
    await expect(get()).rejects.toThrow('webpack failed');
    expect(await get()).toBe(2);
    expect(await get()).toBe(2);
    expect(calls).toBe(2);
  });
});
