// The worker: workflow code bundled from ./workflows, activities with their dependencies injected.
import { fileURLToPath } from 'node:url';
import {
  bundleWorkflowCode,
  DefaultLogger,
  NativeConnection,
  Worker,
  type WorkerOptions as TemporalWorkerOptions,
} from '@temporalio/worker';
import type { PayloadCodec } from '@temporalio/common';
import { Client, Connection } from '@temporalio/client';
import { createActivities, type ActivityDeps } from './activities/index.ts';

export const DEFAULT_TASK_QUEUE = 'selling-kit';

export interface WorkerOptions extends ActivityDeps {
  address: string;
  namespace?: string;
  taskQueue?: string;
  /** Encrypts every payload (see codec.ts); the client must use the same codec. */
  codec?: PayloadCodec;
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

let bundle: ReturnType<typeof bundleWorkflowCode> | undefined;
/** The workflow code, bundled once per process and shared by every worker it creates. */
export const workflowBundle = () =>
  (bundle ??= bundleWorkflowCode({
    workflowsPath: workflowCode.workflowsPath!,
    webpackConfigHook: workflowCode.bundlerOptions?.webpackConfigHook,
    logger: new DefaultLogger('WARN'),
  }));

export async function createWorker(
  options: WorkerOptions,
): Promise<{ worker: Worker; connection: NativeConnection; close(): Promise<void> }> {
  const connection = await NativeConnection.connect({ address: options.address });
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  // Activities reach the shop lanes (entity workflows) through a client of their own.
  const clientConnection = await Connection.connect({ address: options.address });
  const dataConverter = options.codec ? { payloadCodecs: [options.codec] } : undefined;
  const temporal = new Client({ connection: clientConnection, namespace: options.namespace, dataConverter });
  const closers: (() => Promise<void>)[] = [];
  const worker = await Worker.create({
    connection,
    namespace: options.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createActivities({ temporal, taskQueue, ...options, closers }),
    ...(dataConverter ? { dataConverter } : {}),
  });
  const close = async () => {
    for (const c of closers) await c();
    await clientConnection.close();
    await connection.close();
  };
  return { worker, connection, close };
}
