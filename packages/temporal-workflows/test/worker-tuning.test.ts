// Worker tuning (src/worker/worker-tuning.ts and `selling-kit worker`'s flags): values checked and named, and a
// real `selling-kit worker` process that gets SIGTERM while a sendBatch window is in flight lets it
// finish within its grace time — the activity completes on its first attempt, every create reached the
// API exactly once, nothing is verified or re-sent — and exits 0.
// @needs temporal
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import {
  addAddress,
  createApiKey,
  createSeller,
  startSimulator,
  type Handler,
  type RunningSimulator,
} from '@selling-kit/simulator';
import { handlers as simulatorHandlers } from '../../simulator/src/handlers/index.ts';
import { bulkWorkflowId, startBulkJob } from '../src/client/client.ts';
import { TuningError, tuningFromEnv, workerTuning } from '../src/worker/worker-tuning.ts';
import { HEADER, row } from './helpers.ts';
import { REPO_ROOT } from './topology/deploy-env.ts';

const CLI = join(REPO_ROOT, 'packages/cli/src/main.ts');

describe('worker tuning values', () => {
  it('reads the three variables; durations in ms, s or m; force time = grace + 15 s', () => {
    expect(
      tuningFromEnv({
        SELLING_KIT_MAX_CONCURRENT_ACTIVITIES: '20',
        SELLING_KIT_MAX_CACHED_WORKFLOWS: '0',
        SELLING_KIT_SHUTDOWN_GRACE_TIME: '45s',
      }),
    ).toEqual({
      maxConcurrentActivityTaskExecutions: 20,
      maxCachedWorkflows: 0,
      shutdownGraceTime: 45_000,
      shutdownForceTime: 60_000,
    });
    expect(tuningFromEnv({})).toEqual({
      maxConcurrentActivityTaskExecutions: undefined,
      maxCachedWorkflows: undefined,
      shutdownGraceTime: 10_000,
      shutdownForceTime: 25_000,
    });
    expect(workerTuning({ shutdownGraceTime: '2m' }).shutdownGraceTime).toBe(120_000);
    expect(workerTuning({ shutdownGraceTime: '1500ms' }).shutdownGraceTime).toBe(1_500);
  });

  it('bad values are refused, naming the variable or flag', () => {
    expect(() => tuningFromEnv({ SELLING_KIT_MAX_CONCURRENT_ACTIVITIES: '0' })).toThrow(
      'SELLING_KIT_MAX_CONCURRENT_ACTIVITIES must be a positive integer, got "0"',
    );
    expect(() => tuningFromEnv({ SELLING_KIT_MAX_CACHED_WORKFLOWS: '-1' })).toThrow(
      /SELLING_KIT_MAX_CACHED_WORKFLOWS must be a whole number/,
    );
    expect(() => tuningFromEnv({ SELLING_KIT_SHUTDOWN_GRACE_TIME: 'soon' })).toThrow(TuningError);
    expect(() =>
      workerTuning({ shutdownGraceTime: '90m' }, { shutdownGraceTime: '--shutdown-grace-time' }),
    ).toThrow('--shutdown-grace-time must be whole milliseconds, at most 1 hour, got "90m"');
  });
});

describe('selling-kit worker: flags and SIGTERM', () => {
  let sim: RunningSimulator;
  let dir: string;
  let connection: Connection;
  const sends: { sku: string; at: number; answeredAt?: number }[] = [];
  const children: ChildProcess[] = [];
  const codecKey = randomBytes(32).toString('base64');
  const ANSWER_MS = 3_000; // every create answers after 3 s: a window is in flight for that long

  beforeAll(async () => {
    const create = simulatorHandlers['products.create']!;
    const slow: Handler = async (ctx) => {
      const sku = String((ctx.body as { sku?: unknown } | undefined)?.sku ?? '');
      const send: (typeof sends)[number] = { sku, at: Date.now() };
      sends.push(send);
      await new Promise((r) => setTimeout(r, ANSWER_MS));
      const result = await create(ctx);
      send.answeredAt = Date.now();
      return result;
    };
    sim = await startSimulator({
      port: 0,
      config: { fetchPictures: false },
      handlers: { 'products.create': slow },
    });
    dir = mkdtempSync(join(tmpdir(), 'sk-tuning-'));
    connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS! });
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await connection?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (taskQueue: string) => ({
    ...process.env,
    SELLING_KIT_HOME: dir,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS!,
    SELLING_KIT_TASK_QUEUE: taskQueue,
    SELLING_KIT_CREDENTIALS: join(dir, 'credentials.json'),
    SELLING_KIT_CODEC: '0',
    SELLING_KIT_JOB_STORE: join(dir, 'jobs'), // both workers' (never the home folder's)
    SELLING_KIT_FEED_ROOTS: dir, // the test's feeds
    // The token store is sealed with it even when payloads are not encrypted.
    SELLING_KIT_CODEC_KEY: codecKey,
  });

  function worker(taskQueue: string, args: string[]) {
    const child = spawn(process.execPath, [CLI, 'worker', ...args], {
      env: env(taskQueue),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; at: number }>((r) =>
      child.once('exit', (code) => r({ code, at: Date.now() })),
    );
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (stderr.includes('Ctrl-C stops it')) {
          clearInterval(timer);
          resolve();
        }
      }, 50);
      void exited.then(({ code }) => {
        clearInterval(timer);
        reject(new Error(`worker exited (${code}):\n${stderr}`));
      });
    });
    ready.catch(() => undefined); // awaited by the tests that need it; an early exit is their failure
    return { child, ready, exited, stderr: () => stderr };
  }

  it('a bad flag is a usage error (exit 2) naming the flag', async () => {
    const w = worker(`tuning-${randomUUID()}`, ['--max-concurrent-activities', 'lots']);
    const { code } = await w.exited;
    expect(code).toBe(2);
    expect(w.stderr()).toContain('--max-concurrent-activities must be a positive integer, got "lots"');
  });

  it('--queues takes all, jobs or sales: another value is a usage error naming the flag; sales says so', async () => {
    const bad = worker(`tuning-${randomUUID()}`, ['--queues', 'bulk']);
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toContain('--queues must be one of all, jobs, sales (got "bulk")');
    const sales = worker(`tuning-${randomUUID()}`, ['--queues', 'sales']);
    await sales.ready;
    expect(sales.stderr()).toContain('(sales only)');
    sales.child.kill('SIGTERM');
    expect((await sales.exited).code).toBe(0);
  }, 60_000);

  /**
   * A 10-item create job on a `selling-kit worker` started with `flags`; SIGTERM as soon as the window's
   * first request reached the API (its answer takes ANSWER_MS), then a second worker finishes the job.
   */
  async function sigtermMidWindow(flags: string[]) {
    const seller = createSeller(sim.world, { username: `tuning-${randomUUID().slice(0, 6)}` });
    addAddress(sim.world, seller);
    const apiKey = createApiKey(sim.world, 'partner-tuning', seller.id).key;
    writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ shop: { baseUrl: sim.url, apiKey } }));
    const taskQueue = `tuning-${randomUUID()}`;
    const first = worker(taskQueue, flags);
    await first.ready;

    const prefix = `GRACE-${randomUUID().slice(0, 6)}`;
    const skus = Array.from({ length: 10 }, (_, i) => `${prefix}-${i + 1}`);
    const feed = join(dir, `${prefix}.csv`);
    writeFileSync(feed, [HEADER, ...skus.map((s, i) => row(s, i))].join('\n') + '\n');
    const client = new Client({ connection });
    const jobId = `tuning-${randomUUID().slice(0, 8)}`;
    await startBulkJob(
      client,
      {
        jobId,
        shop: { shopId: `tuning-${seller.id}`, credentialRef: 'shop' },
        feed: { path: feed, format: 'csv' },
        operation: 'create',
      },
      taskQueue,
    );
    const deadline = Date.now() + 60_000;
    while (!sends.some((s) => s.sku.startsWith(prefix))) {
      if (Date.now() > deadline) throw new Error('no create reached the API');
      await new Promise((r) => setTimeout(r, 20));
    }
    first.child.kill('SIGTERM'); // the window's requests are in flight for ANSWER_MS
    const { code, at: exitedAt } = await first.exited;
    const mine = () => sends.filter((s) => s.sku.startsWith(prefix));
    const second = worker(taskQueue, []);
    await second.ready;
    const handle = client.workflow.getHandle(bulkWorkflowId(jobId));
    await handle.result();
    second.child.kill('SIGTERM');
    await second.exited;
    const events = (await handle.fetchHistory()).events ?? [];
    return { code, exitedAt, skus, seller, events, sent: mine() };
  }

  /** sendBatch attempts and how they ended; the activities the job scheduled. */
  function activities(events: Awaited<ReturnType<typeof sigtermMidWindow>>['events']) {
    const scheduled = new Map<string, string>();
    for (const e of events) {
      const a = e.activityTaskScheduledEventAttributes;
      if (a) scheduled.set(String(e.eventId), a.activityType?.name ?? '');
    }
    const isBatch = (id: unknown) => scheduled.get(String(id)) === 'sendBatch';
    const ended = events.filter((e) =>
      isBatch(
        (
          e.activityTaskCompletedEventAttributes ??
          e.activityTaskFailedEventAttributes ??
          e.activityTaskTimedOutEventAttributes ??
          e.activityTaskCanceledEventAttributes
        )?.scheduledEventId,
      ),
    );
    const attempts = events
      .filter((e) => isBatch(e.activityTaskStartedEventAttributes?.scheduledEventId))
      .map((e) => e.activityTaskStartedEventAttributes!.attempt);
    return { names: [...scheduled.values()], ended, attempts };
  }

  it('SIGTERM during a window: the batch finishes on its first attempt, nothing is re-sent, exit 0', async () => {
    const run = await sigtermMidWindow([
      ...['--shutdown-grace-time', '20s', '--max-concurrent-activities', '4', '--max-cached-workflows', '0'],
    ]);
    expect(run.code).toBe(0);
    // The worker waited for the answers of the window it had started.
    expect(run.sent.every((s) => s.answeredAt !== undefined && s.answeredAt <= run.exitedAt)).toBe(true);
    // Every SKU sent once, listed once; the sendBatch activity completed on its first attempt; no verification.
    expect(run.sent.map((s) => s.sku).sort()).toEqual([...run.skus].sort());
    expect(run.seller.products.size).toBe(run.skus.length);
    const { names, ended, attempts } = activities(run.events);
    expect(ended.length).toBeGreaterThan(0);
    expect(ended.every((e) => e.activityTaskCompletedEventAttributes)).toBe(true);
    expect(attempts.every((a) => a === 1)).toBe(true);
    expect(names).not.toContain('verifyBySku');
  }, 120_000);

  it('a grace time shorter than the answers: the worker exits before them, the job verifies instead of re-sending', async () => {
    const run = await sigtermMidWindow(['--shutdown-grace-time', '1s']);
    expect(run.code).toBe(0);
    // The flag reached the SDK: the worker did not wait for the 3 s answers.
    expect(run.sent.every((s) => (s.answeredAt ?? Infinity) > run.exitedAt)).toBe(true);
    // The creates left in doubt were looked up, not sent again: each SKU once at the API and in the shop.
    expect(activities(run.events).names).toContain('verifyBySku');
    expect(run.sent.map((s) => s.sku).sort()).toEqual([...run.skus].sort());
    expect(run.seller.products.size).toBe(run.skus.length);
  }, 120_000);
});
