// `selling-kit worker`: a Temporal worker for the CLI's shops and sellers, until Ctrl-C.
import type { Command } from 'commander';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import {
  AesGcmCodec,
  createWorker,
  SHUTDOWN_GRACE_TIME,
  stopOnSignals,
} from '@selling-kit/temporal-workflows';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { codecKey } from '../stores.ts';
import { liveCredentials, liveTokens } from '../worker-deps.ts';

let runtimeInstalled = false;

/** The SDK logs warnings and errors to stderr only: stdout stays clean for --json. */
function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: new DefaultLogger('WARN', ({ level, message, meta }) => {
      process.stderr.write(`[worker ${level}] ${message}${meta ? ` ${JSON.stringify(meta)}` : ''}\n`);
    }),
  });
}

/** `createKey`: only for the worker of `selling-kit dev` (its local stack owns the machine's key). */
export async function startWorker(
  config: Context['config'],
  extra?: Parameters<typeof liveCredentials>[1],
  options: { createKey?: boolean } = {},
) {
  installRuntime();
  const codec = config.codec ? new AesGcmCodec(codecKey(config, { create: options.createKey })) : undefined;
  try {
    return await createWorker({
      address: config.temporalAddress,
      namespace: config.namespace,
      taskQueue: config.taskQueue,
      credentials: liveCredentials(config, extra),
      tokens: liveTokens(config),
      codec,
    });
  } catch (e) {
    throw new CliError(
      'temporal_unreachable',
      `the worker cannot connect to Temporal at ${config.temporalAddress} (${(e as Error).message.split('\n')[0]})`,
      EXIT.temporalUnreachable,
      'start the embedded stack with `selling-kit dev`, or set TEMPORAL_ADDRESS',
    );
  }
}

async function run({ config, out }: Context): Promise<void> {
  const { worker, close } = await startWorker(config);
  stopOnSignals(worker, () =>
    out.info(`already stopping: in-flight activities get up to ${SHUTDOWN_GRACE_TIME}`),
  );
  out.info(`worker on ${config.temporalAddress}, task queue ${config.taskQueue}; Ctrl-C stops it`);
  await worker.run();
  await close();
}

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run a worker for the stored shops and sellers (until Ctrl-C)')
    .addHelpText('after', '\nExample:\n  $ TEMPORAL_ADDRESS=temporal.internal:7233 selling-kit worker')
    .action(action(run));
}
