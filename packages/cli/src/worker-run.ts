// What `selling-kit worker` (and `dev`) run: a Temporal worker for the CLI's shops and sellers, until
// Ctrl-C / SIGTERM. Loaded only by those commands (dynamic import), so every other command — starting a
// job among them — never loads the native worker runtime.
// Tuning and metrics (flags, else the environment as compose's worker reads it: temporal-workflows'
// worker-env.ts): activities at once, the sticky cache, the shutdown grace time; the token store may be a
// postgres:// URL (workers on several hosts share it) instead of the sealed file. The worker runtime
// comes from the package's `./worker` entry, loaded by this command only.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import {
  CODEC_OFF_WARNING,
  connectOptions,
  describeConnection,
  explainConnectError,
  isDatabaseUrl,
  tracingFromEnv,
  openTokenStore,
  TuningError,
  type TokenStore,
  type WorkerTuning,
} from '@selling-kit/temporal-workflows';
import {
  createWorker,
  jobRetentionDays,
  FeedPolicyError,
  metricsTelemetry,
  OrderEventsSettingError,
  openJobStore,
  stopOnSignals,
  workerEnvironment,
  type FeedPolicy,
  type OrderEventsTarget,
  type WorkerEnvironment,
  type WorkerQueues,
} from '@selling-kit/temporal-workflows/worker';
import type { Context } from './context.ts';
import { CliError, EXIT } from './errors.ts';
import { cliWorkerCodec, tokenStoreKeysOf } from './stores.ts';
import { liveCredentials, liveShopNames, liveTokens } from './worker-deps.ts';

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

export interface WorkerFlags {
  maxConcurrentActivities?: string;
  maxCachedWorkflows?: string;
  maxCachedOrderFlows?: string;
  shutdownGraceTime?: string;
  tokenStore?: string;
  metricsAddress?: string;
  queues?: string;
}

/** The worker's settings: flags over the environment (the one reader, worker-env.ts). */
const settings = (flags: WorkerFlags = {}): WorkerEnvironment =>
  workerEnvironment(process.env, {
    tuning: {
      maxConcurrentActivityTaskExecutions: {
        value: flags.maxConcurrentActivities,
        name: '--max-concurrent-activities',
      },
      maxCachedWorkflows: { value: flags.maxCachedWorkflows, name: '--max-cached-workflows' },
      maxCachedOrderFlows: { value: flags.maxCachedOrderFlows, name: '--max-cached-order-flows' },
      shutdownGraceTime: { value: flags.shutdownGraceTime, name: '--shutdown-grace-time' },
    },
    metricsAddress: flags.metricsAddress,
    queues: flags.queues,
  });

/** A bad value is a usage error naming the flag or the variable it came from. */
function tuning(from: WorkerEnvironment): WorkerTuning {
  try {
    return from.tuning();
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
  const env = settings().tokenStore?.trim();
  const location = flag ?? (env && isDatabaseUrl(env) ? env : undefined);
  return location ? openTokenStore(location, tokenStoreKeysOf(config)) : liveTokens(config);
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
    /** The queues polled (worker-queues.ts): all by default. */
    queues?: WorkerQueues;
    /**
     * Added to the feed policy the environment sets (SELLING_KIT_FEED_ROOTS…): `dev` gives its examples
     * folder and the working folder as roots, and plain http to loopback (its simulator, local files).
     */
    feeds?: Partial<FeedPolicy>;
    /** Where order flows send their events, over SELLING_KIT_ORDER_EVENTS_URL (`dev`: its n8n or its own sink). */
    orderEvents?: OrderEventsTarget;
  } = {},
) {
  installRuntime(options.metricsAddress);
  // What job feeds and SKU maps this worker reads: its own setting, never a job's (issue 22).
  let feedPolicy: FeedPolicy;
  try {
    feedPolicy = settings().feedPolicy(options.feeds);
  } catch (e) {
    if (e instanceof FeedPolicyError) throw new CliError('bad_feed_policy', e.message, EXIT.usage);
    throw e;
  }
  let orderEvents: OrderEventsTarget | undefined;
  try {
    orderEvents = options.orderEvents ?? settings().orderEvents();
  } catch (e) {
    if (e instanceof OrderEventsSettingError) throw new CliError('bad_order_events', e.message, EXIT.usage);
    throw e;
  }
  const temporal = config.temporal(); // a bad TLS setting stops here, naming it
  // Refuses unsealed, unsigned and out-of-scope input (the client keyring: `selling-kit keys`).
  const codec = config.codec ? cliWorkerCodec(config, { create: options.createKey }) : undefined;
  if (!config.codec) console.warn(CODEC_OFF_WARNING);
  const store = tokens(config, options.tokenStore);
  // Jobs' snapshots and outcomes: SELLING_KIT_JOB_STORE (a postgres:// URL shared by workers on several
  // hosts), else <home>/jobs on this host. Migrated by createWorker before it takes a task.
  const jobStore = openJobStore(config.jobStore);
  // When the worker does not start: the stores opened for it are closed before the error is told.
  const closeStores = async () => {
    await store.close?.();
    await jobStore.close().catch(() => undefined);
  };
  try {
    await jobStore.migrate();
  } catch (e) {
    await closeStores();
    throw new CliError(
      'job_store_unavailable',
      `the job store (${jobStore.kind} ${jobStore.location}) cannot be opened: ${(e as Error).message}`,
      EXIT.usage,
      'check SELLING_KIT_JOB_STORE (a postgres:// URL every worker shares, or a folder)',
    );
  }
  try {
    const started = await createWorker({
      ...connectOptions(temporal),
      namespace: temporal.namespace,
      taskQueue: config.taskQueue,
      credentials: liveCredentials(config, extra),
      shopNames: liveShopNames(config, extra),
      tokens: store,
      jobStore,
      feedPolicy,
      orderEvents,
      // Old jobs' data is expired by the task queue's retention schedule (SELLING_KIT_JOB_RETENTION_DAYS,
      // default 30), ensured by every worker at start.
      jobRetentionDays: jobRetentionDays(),
      // SELLING_KIT_TRACING=otlp: spans to the OTLP collector (tracing.ts).
      tracing: tracingFromEnv('selling-kit-worker'),
      codec,
      queues: options.queues,
      ...options.tuning,
    });
    return {
      worker: started.worker,
      connection: started.connection,
      /** Which store, without secrets: `local /home/…/jobs`, `postgres postgres://host:5432/db`. */
      jobStore: `${jobStore.kind} ${jobStore.location}`,
      close: async () => {
        await started.close();
        await store.close?.();
        await jobStore.close();
      },
    };
  } catch (e) {
    await closeStores();
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

export async function run({ config, out }: Context, flags: WorkerFlags): Promise<number> {
  const fromFlags = settings(flags);
  const tuned = tuning(fromFlags);
  const metricsAddress = fromFlags.metricsAddress;
  let queues: WorkerQueues;
  try {
    queues = fromFlags.queues();
  } catch (e) {
    throw new CliError('bad_flag', (e as Error).message, EXIT.usage);
  }
  const { worker, close, jobStore } = await startWorker(config, undefined, {
    tuning: tuned,
    tokenStore: flags.tokenStore,
    metricsAddress,
    queues,
  });
  stopOnSignals(worker, () =>
    out.info(`already stopping: in-flight activities get up to ${tuned.shutdownGraceTime} ms`),
  );
  if (metricsAddress) out.info(`metrics on http://${metricsAddress}/metrics`);
  out.info(
    `worker on ${describeConnection(config.temporal())}, task queue ${config.taskQueue}${queues === 'all' ? '' : ` (${queues} only)`}, job store ${jobStore}; Ctrl-C stops it`,
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
