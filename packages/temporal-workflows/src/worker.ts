// The worker: workflow code bundled from ./workflows, activities with their dependencies injected, the
// data converter (codec + failure converter) shared with clients, and a shutdown that lets in-flight
// work finish.
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
import { createActivities, type ActivityDeps, type ShopDirectoryDeps } from './activities/index.ts';
import { dataConverter, failureConverterPath } from './data-converter.ts';
import { TRACING_WORKFLOW_MODULE, type Tracing } from './tracing.ts';
import { DEFAULT_TASK_QUEUE } from './contract.ts';

export { DEFAULT_TASK_QUEUE } from './contract.ts';
/** In-flight activities get this long to finish after a stop signal; then they are cancelled. */
export const SHUTDOWN_GRACE_TIME = '10s';
/**
 * worker-main's limit: then `worker.run()` gives up waiting (GracefulShutdownPeriodExpiredError) and the
 * process exits, before compose's `stop_grace_period: 30s` kills it. Not a createWorker default: an
 * embedding process decides how its own shutdown ends.
 */
export const SHUTDOWN_FORCE_TIME = '25s';

/** `shopNames` lists the shops of `credentials` for the shop directory (clients' shop pickers). */
export interface WorkerOptions extends ActivityDeps, ShopDirectoryDeps {
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
  /** Default SHUTDOWN_GRACE_TIME. */
  shutdownGraceTime?: Duration;
  /** None by default: wait for in-flight activities (worker-main passes SHUTDOWN_FORCE_TIME). */
  shutdownForceTime?: Duration;
  /** OpenTelemetry (tracing.ts): workflow, activity and request spans. Off when absent. */
  tracing?: Tracing;
}

/** Where the workflow code is, and how to bundle it (shared by workers and replay tests). */
export const workflowCode: Pick<TemporalWorkerOptions, 'workflowsPath' | 'bundlerOptions'> = {
  workflowsPath: fileURLToPath(new URL('./workflows/index.ts', import.meta.url)),
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

const bundle = (workflowInterceptorModules: string[]) =>
  bundleWorkflowCode({
    workflowsPath: workflowCode.workflowsPath!,
    webpackConfigHook: workflowCode.bundlerOptions?.webpackConfigHook,
    // Workflow failures go through the codec too (the bundle holds the workflow side's converter).
    failureConverterPath,
    workflowInterceptorModules,
    logger: new DefaultLogger('WARN'),
  });

/** The workflow code, bundled once per process and shared by every worker it creates. */
export const workflowBundle = onceSucceeded(() => bundle([]));
/** The same with OpenTelemetry's workflow interceptors (a tracing worker; spans only, no commands). */
export const tracedWorkflowBundle = onceSucceeded(() => bundle([TRACING_WORKFLOW_MODULE]));

export async function createWorker(
  options: WorkerOptions,
): Promise<{ worker: Worker; connection: NativeConnection; close(): Promise<void> }> {
  // The same endpoint, TLS and API key for the worker's connection and its activities' client.
  const endpoint = {
    address: options.address,
    ...(options.tls !== undefined ? { tls: options.tls } : options.apiKey ? { tls: true } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.metadata ? { metadata: options.metadata } : {}),
  };
  const connection = await NativeConnection.connect(endpoint);
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  // Activities reach the shop lanes (entity workflows) through a client of their own.
  let clientConnection: Connection;
  try {
    clientConnection = await Connection.connect(endpoint);
  } catch (e) {
    await connection.close();
    throw e;
  }
  const converter = dataConverter(options.codec);
  const temporal = new Client({
    connection: clientConnection,
    namespace: options.namespace,
    dataConverter: converter,
    interceptors: options.tracing ? { workflow: options.tracing.clientInterceptors() } : undefined,
  });
  const closers: (() => Promise<void>)[] = [];
  const worker = await Worker.create({
    connection,
    namespace: options.namespace ?? 'default',
    taskQueue,
    workflowBundle: await (options.tracing ? tracedWorkflowBundle() : workflowBundle()),
    ...options.tracing?.workerOptions(),
    activities: createActivities({ temporal, taskQueue, ...options, closers }),
    dataConverter: converter,
    maxConcurrentActivityTaskExecutions: options.maxConcurrentActivityTaskExecutions,
    maxCachedWorkflows: options.maxCachedWorkflows,
    shutdownGraceTime: options.shutdownGraceTime ?? SHUTDOWN_GRACE_TIME,
    shutdownForceTime: options.shutdownForceTime,
    // Heartbeats reach the server within a second (the SDK's default is 0.8 × the heartbeat timeout):
    // a cancelled window stops sending within a second, and a retried attempt's copy of what was
    // answered is at most a second old.
    maxHeartbeatThrottleInterval: '1s',
  });
  const close = async () => {
    for (const c of closers) await c();
    await clientConnection.close();
    await connection.close();
    await options.tracing?.flush(); // spans still queued leave before the process does
  };
  return { worker, connection, close };
}

/**
 * SIGINT / SIGTERM stop the worker gracefully (in-flight activities get the grace time). A second signal
 * during the drain is only reported: the SDK's runtime handles the first and then stops listening, so
 * without this listener a second signal would kill the process mid-drain, and an unguarded
 * `worker.shutdown()` would throw IllegalStateError. Returns the function that removes the listeners.
 */
export function stopOnSignals(worker: Worker, onRepeat?: (signal: NodeJS.Signals) => void): () => void {
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
