// `selling-kit worker`: a Temporal worker for the CLI's shops and sellers, until Ctrl-C / SIGTERM.
// Tuning (flags, else the environment variables of worker-tuning.ts, the ones compose's worker reads):
// activities at once, the sticky cache, the shutdown grace time; the token store may be a postgres:// URL
// (workers on several hosts share it) instead of the sealed file.
import type { Command } from 'commander';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import {
  AesGcmCodec,
  connectOptions,
  createWorker,
  describeConnection,
  explainConnectError,
  isDatabaseUrl,
  METRICS_ADDRESS_ENV,
  metricsTelemetry,
  tracingFromEnv,
  openTokenStore,
  stopOnSignals,
  tokenStoreKeys,
  TUNING_ENV,
  TuningError,
  workerTuning,
  type TokenStore,
  type WorkerTuning,
} from '@selling-kit/temporal-workflows';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { codecKey } from '../stores.ts';
import { liveCredentials, liveShopNames, liveTokens } from '../worker-deps.ts';

let runtimeInstalled = false;

/**
 * The SDK logs warnings and errors to stderr only: stdout stays clean for --json. With a metrics address
 * (flag, else SELLING_KIT_METRICS_ADDRESS) the runtime serves Prometheus text at /metrics.
 */
function installRuntime(metricsAddress?: string): void {
  if (runtimeInstalled) return;
  let telemetryOptions;
  try {
    telemetryOptions = metricsAddress ? metricsTelemetry(metricsAddress) : undefined;
  } catch (e) {
    throw new CliError('bad_metrics_address', (e as Error).message, EXIT.usage);
  }
  runtimeInstalled = true;
  Runtime.install({
    logger: new DefaultLogger('WARN', ({ level, message, meta }) => {
      process.stderr.write(`[worker ${level}] ${message}${meta ? ` ${JSON.stringify(meta)}` : ''}\n`);
    }),
    telemetryOptions,
  });
}

interface WorkerFlags {
  maxConcurrentActivities?: string;
  maxCachedWorkflows?: string;
  shutdownGraceTime?: string;
  tokenStore?: string;
  metricsAddress?: string;
}

/** Flags over the environment; a bad value is a usage error naming the flag or the variable it came from. */
function tuning(flags: WorkerFlags): WorkerTuning {
  const from = (flag: string | undefined, flagName: string, key: keyof typeof TUNING_ENV) =>
    flag !== undefined
      ? { value: flag, name: flagName }
      : { value: process.env[TUNING_ENV[key]], name: TUNING_ENV[key] };
  const active = from(
    flags.maxConcurrentActivities,
    '--max-concurrent-activities',
    'maxConcurrentActivityTaskExecutions',
  );
  const cached = from(flags.maxCachedWorkflows, '--max-cached-workflows', 'maxCachedWorkflows');
  const grace = from(flags.shutdownGraceTime, '--shutdown-grace-time', 'shutdownGraceTime');
  try {
    return workerTuning(
      {
        maxConcurrentActivityTaskExecutions: active.value,
        maxCachedWorkflows: cached.value,
        shutdownGraceTime: grace.value,
      },
      {
        maxConcurrentActivityTaskExecutions: active.name,
        maxCachedWorkflows: cached.name,
        shutdownGraceTime: grace.name,
      },
    );
  } catch (e) {
    if (e instanceof TuningError) throw new CliError('bad_tuning', e.message, EXIT.usage);
    throw e;
  }
}

/**
 * `--token-store`, else SELLING_KIT_TOKEN_STORE when it is a postgres:// URL: that store; otherwise the
 * CLI's sealed file (the one `auth login` writes).
 */
function tokens(config: Context['config'], flag?: string): TokenStore & { close?(): Promise<void> } {
  const env = process.env.SELLING_KIT_TOKEN_STORE?.trim();
  const location = flag ?? (env && isDatabaseUrl(env) ? env : undefined);
  return location ? openTokenStore(location, tokenStoreKeys(codecKey(config))) : liveTokens(config);
}

/** `createKey`: only for the worker of `selling-kit dev` (its local stack owns the machine's key). */
export async function startWorker(
  config: Context['config'],
  extra?: Parameters<typeof liveCredentials>[1],
  options: {
    createKey?: boolean;
    tuning?: Partial<WorkerTuning>;
    tokenStore?: string;
    metricsAddress?: string;
  } = {},
) {
  installRuntime(options.metricsAddress);
  const temporal = config.temporal(); // a bad TLS setting stops here, naming it
  const codec = config.codec ? new AesGcmCodec(codecKey(config, { create: options.createKey })) : undefined;
  const store = tokens(config, options.tokenStore);
  try {
    const started = await createWorker({
      ...connectOptions(temporal),
      namespace: temporal.namespace,
      taskQueue: config.taskQueue,
      credentials: liveCredentials(config, extra),
      shopNames: liveShopNames(config, extra),
      tokens: store,
      // SELLING_KIT_TRACING=otlp: spans to the OTLP collector (tracing.ts).
      tracing: tracingFromEnv('selling-kit-worker'),
      codec,
      ...options.tuning,
    });
    return {
      ...started,
      close: async () => {
        await started.close();
        await store.close?.();
      },
    };
  } catch (e) {
    await store.close?.();
    throw new CliError(
      'temporal_unreachable',
      `the worker cannot connect: ${await explainConnectError(temporal, e)}`,
      EXIT.temporalUnreachable,
      temporal.tls
        ? 'check the TLS settings named above (TEMPORAL_TLS_*, the temporal.toml profile, --tls-*)'
        : 'start the embedded stack with `selling-kit dev`, or set TEMPORAL_ADDRESS',
    );
  }
}

async function run({ config, out }: Context, flags: WorkerFlags): Promise<number> {
  const tuned = tuning(flags);
  const metricsAddress = flags.metricsAddress ?? (process.env[METRICS_ADDRESS_ENV]?.trim() || undefined);
  const { worker, close } = await startWorker(config, undefined, {
    tuning: tuned,
    tokenStore: flags.tokenStore,
    metricsAddress,
  });
  stopOnSignals(worker, () =>
    out.info(`already stopping: in-flight activities get up to ${tuned.shutdownGraceTime} ms`),
  );
  if (metricsAddress) out.info(`metrics on http://${metricsAddress}/metrics`);
  out.info(
    `worker on ${describeConnection(config.temporal())}, task queue ${config.taskQueue}; Ctrl-C stops it`,
  );
  let code: number = EXIT.ok;
  try {
    await worker.run();
  } catch (e) {
    // Activities still running after the force time (grace + 15 s): abandoned, Temporal retries them.
    out.info(`worker stopped before its activities ended (${(e as Error).name}): Temporal retries them`);
    code = 1;
  }
  await close();
  return code;
}

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run a worker for the stored shops and sellers (until Ctrl-C or SIGTERM)')
    .option(
      '--max-concurrent-activities <n>',
      'activities run at once (env SELLING_KIT_MAX_CONCURRENT_ACTIVITIES; default 100)',
    )
    .option(
      '--max-cached-workflows <n>',
      'sticky cache: workflows kept in memory between tasks, 0 = off (env SELLING_KIT_MAX_CACHED_WORKFLOWS; default from the heap)',
    )
    .option(
      '--shutdown-grace-time <duration>',
      'after SIGTERM / Ctrl-C, in-flight batches get this long to finish, e.g. 30s (env SELLING_KIT_SHUTDOWN_GRACE_TIME; default 10s)',
    )
    .option(
      '--metrics-address <host:port>',
      'serve Prometheus metrics at http://<host:port>/metrics (env SELLING_KIT_METRICS_ADDRESS; off by default)',
    )
    .option(
      '--token-store <path|url>',
      "sellers' OAuth tokens: a sealed file, or a postgres:// URL shared by workers on several hosts (env SELLING_KIT_TOKEN_STORE)",
    )
    .addHelpText(
      'after',
      `
Examples:
  $ TEMPORAL_ADDRESS=temporal.internal:7233 selling-kit worker
  $ TEMPORAL_ADDRESS=<ns>.<account>.tmprl.cloud:7233 TEMPORAL_NAMESPACE=<ns>.<account> TEMPORAL_API_KEY=… selling-kit worker
  $ selling-kit worker --tls-ca ca.pem --tls-cert client.pem --tls-key client.key
  $ selling-kit worker --max-concurrent-activities 20 --shutdown-grace-time 30s
  $ SELLING_KIT_TOKEN_STORE=postgres://worker@db.internal/selling_kit selling-kit worker`,
    )
    .action(action(run));
}
