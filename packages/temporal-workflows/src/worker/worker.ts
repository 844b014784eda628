// The worker: workflow code bundled from ./workflows, activities with their dependencies injected, the
// data converter (codec + failure converter) shared with clients, the job store (migrated at start), and
// a shutdown that lets in-flight work finish.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Worker,
  type WorkerOptions as TemporalWorkerOptions,
} from '@temporalio/worker';
import type { Duration, PayloadCodec } from '@temporalio/common';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { createActivities, type ActivityDeps, type ShopDirectoryDeps } from '../activities/index.ts';
import { dataConverter, failureConverterPath } from '../codec/data-converter.ts';
import { dropSpans, TRACING_WORKFLOW_MODULE, type Tracing } from '../observability/tracing.ts';
import { DEFAULT_TASK_QUEUE, orderTaskQueue, saleTaskQueue } from '../contract.ts';
import type { WorkerQueues } from './worker-queues.ts';
import type { JobStore } from '../stores/job-store.ts';
import { openJobStore } from '../stores/open-job-store.ts';
import { ensureJobRetentionSchedule } from '../client/schedules.ts';

export { DEFAULT_TASK_QUEUE } from '../contract.ts';
/** In-flight activities get this long to finish after a stop signal; then they are cancelled. */
export const SHUTDOWN_GRACE_TIME = '10s';
/**
 * worker-main's limit: then `worker.run()` gives up waiting (GracefulShutdownPeriodExpiredError) and the
 * process exits, before compose's `stop_grace_period: 30s` kills it. Not a createWorker default: an
 * embedding process decides how its own shutdown ends.
 */
export const SHUTDOWN_FORCE_TIME = '25s';

/** `shopNames` lists the shops of `credentials` for the shop directory (clients' shop pickers). */
export interface WorkerOptions extends Omit<ActivityDeps, 'jobStore'>, ShopDirectoryDeps {
  /**
   * Jobs' snapshots and outcomes: the store every worker of the deployment opens. Default
   * `openJobStore()` (SELLING_KIT_JOB_STORE), which `close()` closes; a store given here is the
   * caller's to close (several workers may share it). Migrated at start either way.
   */
  jobStore?: JobStore;
  /**
   * Days the job store keeps a job's data: when set, the task queue's retention schedule is created or
   * updated to it at start (schedules.ts). The worker processes (worker-main, `selling-kit worker`) set
   * it from SELLING_KIT_JOB_RETENTION_DAYS (`jobRetentionDays()`, default 30); embedded workers (tests)
   * leave the schedule to them (unset or `false`).
   */
  jobRetentionDays?: number | false;
  address: string;
  namespace?: string;
  /** TLS to the frontend (a CA, a client certificate for mTLS), e.g. from loadConnectionConfig. */
  tls?: TLSConfig | boolean;
  /** An API key (Temporal Cloud), sent as a bearer token; TLS is on with it unless `tls: false`. */
  apiKey?: string;
  /** gRPC metadata sent with every call (a profile's grpc_meta). */
  metadata?: Record<string, string>;
  taskQueue?: string;
  /** Encrypts every payload (see codec.ts); the client must use the same codec. */
  codec?: PayloadCodec;
  /** Activities this worker runs at once (SDK default 100). */
  maxConcurrentActivityTaskExecutions?: number;
  /** Workflows kept in memory between tasks (SDK default: from the heap size). */
  maxCachedWorkflows?: number;
  /** Order flows kept in memory between tasks, on the order queue (default 500; SELLING_KIT_MAX_CACHED_ORDER_FLOWS). */
  maxCachedOrderFlows?: number;
  /** Default SHUTDOWN_GRACE_TIME. */
  shutdownGraceTime?: Duration;
  /** None by default: wait for in-flight activities (worker-main passes SHUTDOWN_FORCE_TIME). */
  shutdownForceTime?: Duration;
  /** OpenTelemetry (tracing.ts): workflow, activity and request spans. Off when absent. */
  tracing?: Tracing;
  /**
   * Which of the task queue's queues this worker polls (SELLING_KIT_WORKER_QUEUES): `all` (default),
   * `jobs` (the main queue: bulk jobs, lanes, schedules, and the order queue beside it) or `sales` (the sale lane only: a process whose
   * event loop no bulk request delays). A deployment serves all of them, in one process or in several.
   */
  queues?: WorkerQueues;
}

/**
 * Where the workflow code is, and how to bundle it (shared by workers and replay tests). EVERY worker runs
 * the workflows with OpenTelemetry's workflow interceptors, tracing or not: with SDK 1.24 the interceptor
 * makes an update handler complete a few microtasks later, which changes the order of commands in
 * history, so a job started by a plain worker would not replay on a tracing one (and back). One bundle
 * makes turning tracing on or off a configuration change, not an upgrade; without tracing the spans go
 * to a sink that drops them (tracing.ts, `dropSpans`). The sale workflow alone runs without them
 * (workflow-interceptors.ts): it has no update handler, and its latency is what it is for.
 */
export const workflowCode: Pick<TemporalWorkerOptions, 'workflowsPath' | 'bundlerOptions' | 'interceptors'> =
  {
    // Beside this module: src/workflows/index.ts in the repository, dist/workflows/index.js when installed
    // (Temporal's bundler does not load TypeScript from node_modules).
    workflowsPath: fileURLToPath(
      new URL(`../workflows/index${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
    ),
    interceptors: { workflowModules: [TRACING_WORKFLOW_MODULE] },
    bundlerOptions: {
      // Workflow sources import siblings with their `.ts` extension (Node type stripping).
      webpackConfigHook: (config) => ({
        ...config,
        resolve: { ...config.resolve, extensionAlias: { '.js': ['.ts', '.js'] } },
      }),
    },
  };

/** `make()` once it has succeeded; a failed attempt is forgotten, so the next call tries again. */
export function onceSucceeded<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= make().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}

/** The workflow code, bundled once per process and shared by every worker it creates. */
export const workflowBundle = onceSucceeded(() =>
  bundleWorkflowCode({
    workflowsPath: workflowCode.workflowsPath!,
    webpackConfigHook: workflowCode.bundlerOptions?.webpackConfigHook,
    // Workflow failures go through the codec too (the bundle holds the workflow side's converter).
    failureConverterPath,
    workflowInterceptorModules: workflowCode.interceptors!.workflowModules,
    logger: new DefaultLogger('WARN'),
  }),
);

export async function createWorker(options: WorkerOptions): Promise<{
  worker: KitWorker;
  connection: NativeConnection;
  /** The job store its activities use (`kind` and `location` say which, without secrets). */
  jobStore: JobStore;
  close(): Promise<void>;
}> {
  // The same endpoint, TLS and API key for the worker's connection and its activities' client.
  const endpoint = {
    address: options.address,
    ...(options.tls !== undefined ? { tls: options.tls } : options.apiKey ? { tls: true } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.metadata ? { metadata: options.metadata } : {}),
  };
  const jobStore = options.jobStore ?? openJobStore();
  const closeStore = async () => {
    if (!options.jobStore) await jobStore.close();
  };
  let connection: NativeConnection;
  try {
    // First: a worker whose store cannot be reached or migrated does not take tasks.
    await jobStore.migrate();
    connection = await NativeConnection.connect(endpoint);
  } catch (e) {
    await closeStore();
    throw e;
  }
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  // Activities reach the shop lanes (entity workflows) through a client of their own.
  let clientConnection: Connection;
  try {
    clientConnection = await Connection.connect(endpoint);
  } catch (e) {
    await connection.close();
    await closeStore();
    throw e;
  }
  const converter = dataConverter(options.codec);
  const temporal = new Client({
    connection: clientConnection,
    namespace: options.namespace,
    dataConverter: converter,
    interceptors: options.tracing ? { workflow: options.tracing.clientInterceptors() } : undefined,
  });
  const queues = options.queues ?? 'all';
  const servesJobs = queues !== 'sales';
  const servesSales = queues !== 'jobs';
  try {
    // Old jobs' snapshots and reports are removed by a schedule of the task queue, whoever started it
    // (a sale-only worker runs no job, so it leaves that to the job workers).
    const retentionDays = options.jobRetentionDays;
    if (servesJobs && retentionDays !== undefined && retentionDays !== false)
      await ensureJobRetentionSchedule(temporal, { taskQueue, retentionDays });
  } catch (e) {
    await clientConnection.close();
    await connection.close();
    await closeStore();
    throw e;
  }
  const closers: (() => Promise<void>)[] = [];
  const mainActivities = createActivities({ temporal, taskQueue, ...options, jobStore, closers });
  // What the queues' workers share: the connection, bundle, activities and converter. Heartbeats reach the
  // server within a second (the SDK's default is 0.8 × the heartbeat timeout): a cancelled window stops
  // sending within a second, and a retried attempt's copy of what was answered is at most a second old.
  const shared = {
    connection,
    namespace: options.namespace ?? 'default',
    workflowBundle: await workflowBundle(),
    ...(options.tracing?.workerOptions() ?? { sinks: dropSpans }),
    activities: mainActivities,
    dataConverter: converter,
    shutdownGraceTime: options.shutdownGraceTime ?? SHUTDOWN_GRACE_TIME,
    shutdownForceTime: options.shutdownForceTime,
    maxHeartbeatThrottleInterval: '1s',
  } satisfies Partial<TemporalWorkerOptions>;
  const workers: Worker[] = [];
  if (servesJobs)
    workers.push(
      await Worker.create({
        ...shared,
        taskQueue,
        maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions,
        maxCachedWorkflows: options.maxCachedWorkflows,
        // No eager activities on the jobs' queue: with them, the activities a job schedules run on the worker
        // that ran its workflow task (sticky: the same one, task after task), so a job whose data is on
        // another worker's disk (a local job store on several hosts) never reached it, not even to wrap up a
        // cancel (chaos two-host, CI 2026-11-26: 13 attempts in 10 min, all on one worker). Through the
        // queue, every worker of the task queue takes its share. A bulk window is seconds long: the round
        // trip this adds is nothing to it. The sale lane keeps them (its latency is its point).
        maxEagerActivityReservationsPerWorkflowTask: 0,
      }),
    );
  // The order flows' queue, served beside the jobs' (they share its activities and lanes): a flow's task
  // waits behind other flows only, and its cache is bounded on its own, so ten thousand flows waiting for
  // tracking codes neither hold the memory of ten thousand cached workflows nor delay a lane's update.
  if (servesJobs)
    workers.push(
      await Worker.create({
        ...shared,
        taskQueue: orderTaskQueue(taskQueue),
        maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions,
        maxCachedWorkflows: options.maxCachedOrderFlows ?? ORDER_WORKER_CACHED_WORKFLOWS,
      }),
    );
  // The sale lane's queue, served by a second worker on the same connection, bundle and activities: a
  // sale's task gets a poller and a workflow thread of its own while bulk jobs keep the main queue busy.
  if (servesSales)
    workers.push(
      await Worker.create({
        ...shared,
        taskQueue: saleTaskQueue(taskQueue),
        maxCachedWorkflows: SALE_WORKER_CACHED_WORKFLOWS,
      }),
    );
  const close = async () => {
    for (const c of closers) await c();
    await clientConnection.close();
    await connection.close();
    await closeStore();
    await options.tracing?.flush(); // spans still queued leave before the process does
  };
  return { worker: runAsOne(workers), connection, jobStore, close };
}

/**
 * Order flows cached in memory: a flow sleeps for hours between tasks, and one evicted replays its short
 * history (under 200 events) when its timer fires. 500 keeps a worker with 10,000 open orders small.
 */
const ORDER_WORKER_CACHED_WORKFLOWS = 500;

/** A sale keeps few workflows in memory: each is one or two tasks long. */
const SALE_WORKER_CACHED_WORKFLOWS = 100;

/** What callers do with a kit worker: run it, stop it, ask its state, read its options. */
export interface KitWorker {
  run(): Promise<void>;
  shutdown(): void;
  getState(): ReturnType<Worker['getState']>;
  readonly options: Worker['options'];
}

/**
 * The workers of one process (the main and order queues', the sale lane's, or all), run and stopped as one:
 * `run` settles when all have stopped (and fails if one fails, after stopping the others). The first
 * one's options and state speak for them.
 */
function runAsOne(workers: Worker[]): KitWorker {
  const [first] = workers;
  if (!first) throw new Error('a worker with no queue to poll');
  const stopAll = () => {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
  };
  return {
    options: first.options,
    getState: () => first.getState(),
    shutdown: stopAll,
    async run() {
      const runs = workers.map((w) =>
        w.run().catch((e: unknown) => {
          stopAll();
          throw e;
        }),
      );
      const failed = (await Promise.allSettled(runs)).find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

/**
 * SIGINT / SIGTERM stop the worker gracefully (in-flight activities get the grace time). A second signal
 * during the drain is only reported: the SDK's runtime handles the first and then stops listening, so
 * without this listener a second signal would kill the process mid-drain, and an unguarded
 * `worker.shutdown()` would throw IllegalStateError. Returns the function that removes the listeners.
 */
export function stopOnSignals(worker: KitWorker, onRepeat?: (signal: NodeJS.Signals) => void): () => void {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
  const stop = (signal: NodeJS.Signals) => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    else onRepeat?.(signal);
  };
  for (const s of signals) process.on(s, stop);
  return () => {
    for (const s of signals) process.off(s, stop);
  };
}
