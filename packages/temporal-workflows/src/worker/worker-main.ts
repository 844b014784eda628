// `node src/worker/worker-main.ts`: a worker process, configured by environment variables (read by
// worker-env.ts, as `selling-kit worker` reads them; secrets stay in the worker, never in workflow inputs):
//   Temporal's own client configuration (connection-config.ts, the `temporal` CLI's): a profile of
//   temporal.toml (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE), then
//   TEMPORAL_ADDRESS          default 127.0.0.1:7233
//   TEMPORAL_NAMESPACE        default "default"
//   TEMPORAL_API_KEY          Temporal Cloud API key (turns TLS on)
//   TEMPORAL_TLS_*            TLS / mTLS: TEMPORAL_TLS_SERVER_CA_CERT_PATH, TEMPORAL_TLS_CLIENT_CERT_PATH,
//                             TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_TLS=true|false
//   SELLING_KIT_TASK_QUEUE    default selling-kit
//   SELLING_KIT_CREDENTIALS   JSON file { "<credentialRef>": { "baseUrl": "...", "apiKey": "..." } } (direct
//                             partners); re-read when it changes, so a rotated key is used by the next activity
//   SELLING_KIT_TOKEN_STORE   encrypted token store of connected sellers (cross-listers), see token-store.ts
//   SELLING_KIT_JOB_STORE     jobs' feed snapshots and reports: a postgres:// URL (every worker of a deployment
//                             on several hosts opens the same one) or a folder; default ~/.selling-kit/jobs
//                             (one host). Migrated at start, see stores/open-job-store.ts
//   SELLING_KIT_JOB_RETENTION_DAYS  days a job's data is kept (default 30): the task queue's retention
//                             schedule is created or updated to it at start (schedules.ts)
//   SELLING_KIT_CODEC         "0" turns payload encryption off; on by default (CODEC_DEFAULT, the same as
//                             `selling-kit worker`): clients must use the same key
//   SELLING_KIT_CODEC_KEY     the keyring, `id:base64,…` (first seals) or one base64 key (32 bytes), see codec.ts
//   SELLING_KIT_CLIENT_KEYS   the client keyring (`selling-kit keys issue`), default client-keys.json beside the
//                             key file, or a postgres:// URL (unset: a postgres:// job store's), auth/client-keyring.ts
//   SELLING_KIT_CLIENT_AUTH   "on" (default): unsigned payloads are refused; "migrate": sealed 0.4 payloads pass
//   SELLING_KIT_TOKEN_STORE_KEY  the token store's own key (base64 of 32 bytes), else
//   SELLING_KIT_TOKEN_STORE_KEY_FILE (default token-store.key beside the key file); needed with a token store
//   SELLING_KIT_KEY_FILE      read when SELLING_KIT_CODEC_KEY is empty (default ~/.selling-kit/codec.key);
//                             this process never creates one (only `selling-kit dev` does, for its local stack)
//   SELLING_KIT_MAX_CONCURRENT_ACTIVITIES  activities run at once (default: the SDK's, 100)
//   SELLING_KIT_MAX_CACHED_WORKFLOWS       workflows kept in memory (default: the SDK's, from the heap)
//   SELLING_KIT_MAX_CACHED_ORDER_FLOWS     order flows kept in memory, on the order queue (default 500)
//   SELLING_KIT_SHUTDOWN_GRACE_TIME        after SIGTERM, in-flight activities get this long (default 10s),
//                                          see worker-tuning.ts
//   SELLING_KIT_WORKER_QUEUES              all (default), jobs (with the order flows') or sales: a process for
//                                          the sale lane alone
//                                          keeps sales out of an event loop busy with bulk requests
//   (SELLING_KIT_TOKEN_STORE may also be a postgres:// URL: the store shared by hosts, token-store-pg.ts)
//   SELLING_KIT_METRICS_ADDRESS            host:port of a Prometheus endpoint (`/metrics`), also serving
//                                          /healthz and /readyz (health.ts); off when unset
//   SELLING_KIT_HEALTH_ADDRESS             host:port of /healthz and /readyz when metrics are off
//   SELLING_KIT_TRACING                    `otlp`: OpenTelemetry spans to OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT
//   SELLING_KIT_FEED_ROOTS    folders (`:`-separated) job feed paths and SKU maps may be in; unset: path feeds
//                             are refused (n8n jobs send inline feeds). Symlinks are resolved first
//   SELLING_KIT_FEED_HOSTS    comma-separated hosts feed URLs may name (`.example.com`: and subdomains);
//                             unset: any public host. Feed URLs are https to public addresses only
//   SELLING_KIT_FEED_MAX_BYTES / _MAX_RECORD_BYTES / _MAX_ITEMS  a feed's limits (512 MiB, 1 MiB, 1,000,000)
//   SELLING_KIT_FEED_LOOPBACK_HTTP         `1`: plain http to loopback too (local test/dev workers only)
import { OrderEventsSettingError } from './order-events-env.ts';
import type { OrderEventsTarget } from '../webhooks/order-types.ts';
import { createWorker, stopOnSignals } from './worker.ts';
import { DEFAULT_TASK_QUEUE } from '../contract.ts';
import { servedQueues, type WorkerQueues } from './worker-queues.ts';
import { TOKEN_STORE_ENV, watchedCredentialsFile, workerEnvironment } from './worker-env.ts';
import {
  connectOptions,
  ConnectionConfigError,
  describeConnection,
  explainConnectError,
  loadConnectionConfig,
  type TemporalConnectionConfig,
} from '../client/connection-config.ts';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { CodecKeyError, loadCodecKey } from '../codec/codec.ts';
import { CODEC_OFF_WARNING, workerAuthSettings, workerCodec } from '../auth/worker-auth.ts';
import { ClientAuthSettingError } from '../auth/payload-checks.ts';
import { ClientKeysError } from '../auth/client-keys.ts';
import { loadTokenStoreKey, tokenStoreKeyring } from '../auth/token-store-key.ts';
import { openTokenStore } from '../stores/token-store-open.ts';
import { JOB_RETENTION_ENV, jobRetentionDays, openJobStore } from '../stores/open-job-store.ts';
import { TuningError, type WorkerTuning } from './worker-tuning.ts';
import { describeFeedPolicy, FeedPolicyError, type FeedPolicy } from '../activities/feed-policy.ts';
import { installMetrics, zeroKitCounters } from '../observability/metrics.ts';
import {
  freeLoopbackPort,
  healthAddress,
  parseHostPort,
  publicMessage,
  startHealthServer,
} from './health.ts';
import { workerChecks, workerLiveness, type WorkerHealthDeps } from './health-checks.ts';
import { isDatabaseUrl } from '../stores/token-store-open.ts';
import { redactDatabaseUrl } from '../stores/token-store-pg.ts';
import { JOB_STORE_ENV } from '../stores/job-store.ts';
import { tracingFromEnv } from '../observability/tracing.ts';
import type { CredentialStore, ShopNames } from '../activities/index.ts';

const env = process.env;
const settings = workerEnvironment(env);
const fail = (message: string): never => {
  console.error(message);
  process.exit(2);
};

// Where to connect, checked before anything else starts (a missing CA file names its variable).
let temporal: TemporalConnectionConfig;
try {
  temporal = loadConnectionConfig({}, { env });
} catch (e) {
  if (!(e instanceof ConnectionConfigError)) throw e;
  temporal = fail(e.message);
}
const file = settings.credentialsFile;
if (!file && !settings.tokenStore)
  fail('set SELLING_KIT_CREDENTIALS (API keys) and/or SELLING_KIT_TOKEN_STORE (OAuth sellers)');
const encrypt = settings.codec;
let keys: ReturnType<typeof loadCodecKey> | undefined;
let tokenKeys: Buffer[] = [];
let codec: ReturnType<typeof workerCodec> | undefined;
const known = (e: unknown) =>
  [CodecKeyError, ClientAuthSettingError, ClientKeysError].some((type) => e instanceof type);
try {
  const auth = workerAuthSettings(env, dirname(settings.keyFile));
  try {
    if (encrypt) keys = loadCodecKey(settings.keyFile);
    // Refuses unsealed, unsigned and out-of-scope input (auth/payload-checks.ts).
    if (keys) codec = workerCodec(keys, auth);
  } catch (e) {
    if (!known(e) || !encrypt) throw e;
    throw new CodecKeyError(
      'codec_key_missing',
      `${(e as Error).message} (payload encryption is on: SELLING_KIT_CODEC=0 turns it off)`,
    );
  }
  // The token store's own key (never the codec's); the codec ring, when there, opens stores sealed by 0.4.
  if (settings.tokenStore) {
    const legacy =
      keys ??
      (existsSync(settings.keyFile) || env.SELLING_KIT_CODEC_KEY
        ? loadCodecKey(settings.keyFile)
        : undefined);
    tokenKeys = tokenStoreKeyring(loadTokenStoreKey(auth.tokenStoreKeyFile), legacy);
  }
} catch (e) {
  if (!known(e)) throw e;
  fail((e as Error).message);
}
if (!encrypt) console.warn(CODEC_OFF_WARNING);
let options: WorkerTuning;
try {
  options = settings.tuning();
} catch (e) {
  if (!(e instanceof TuningError)) throw e;
  options = fail(e.message);
}
// What job feeds and SKU maps this worker reads: its own setting (SELLING_KIT_FEED_ROOTS, …), never the job's.
let queues: WorkerQueues;
try {
  queues = settings.queues();
} catch (e) {
  queues = fail((e as Error).message);
}
// The queues the health check asks the server about: every one this process polls.
const polled = servedQueues(queues, settings.taskQueue ?? DEFAULT_TASK_QUEUE);
let feedPolicy: FeedPolicy;
try {
  feedPolicy = settings.feedPolicy();
} catch (e) {
  if (!(e instanceof FeedPolicyError)) throw e;
  feedPolicy = fail(e.message);
}
let orderEvents: OrderEventsTarget | undefined;
try {
  orderEvents = settings.orderEvents();
} catch (e) {
  if (!(e instanceof OrderEventsSettingError)) throw e;
  orderEvents = fail(e.message);
}
let credentials: CredentialStore = () => undefined;
let shopNames: ShopNames = () => [];
try {
  if (file) ({ store: credentials, names: shopNames } = watchedCredentialsFile(file));
} catch (e) {
  fail(`SELLING_KIT_CREDENTIALS: ${(e as Error).message}`);
}
// Before the first connection: the runtime (and its exporter) is the process's. The exporter listens on a
// loopback port of its own; the health listener (health.ts) serves /metrics from it on the metrics
// address, beside /healthz and /readyz. Every kit counter exists at 0 from now on.
const metricsAddress = settings.metricsAddress;
const listener = healthAddress(env, metricsAddress);
let metricsUpstream: string | undefined;
try {
  if (listener) parseHostPort(listener.address, listener.variable);
  if (metricsAddress) {
    const exporter = `127.0.0.1:${await freeLoopbackPort()}`;
    installMetrics(exporter);
    metricsUpstream = `http://${exporter}/metrics`;
    zeroKitCounters({ namespace: temporal.namespace, taskQueue: settings.taskQueue ?? DEFAULT_TASK_QUEUE });
  }
} catch (e) {
  fail((e as Error).message);
}
// A file (one host) or a postgres:// URL (several hosts): token-store-open.ts. Proved usable now (a
// wrong URL, password or key stops the worker here, naming the setting, not at the first OAuth seller).
const tokenStoreWhere = (location: string) =>
  isDatabaseUrl(location) ? redactDatabaseUrl(location.trim()) : location;
let tokens: ReturnType<typeof openTokenStore> | undefined;
if (settings.tokenStore) {
  try {
    tokens = openTokenStore(settings.tokenStore, tokenKeys);
    await tokens.probe();
  } catch (e) {
    await tokens?.close?.().catch(() => undefined);
    fail(
      `${TOKEN_STORE_ENV} (${tokenStoreWhere(settings.tokenStore)}): the token store cannot be used: ${publicMessage(e)}`,
    );
  }
}
let retentionDays: number;
try {
  retentionDays = jobRetentionDays(env[JOB_RETENTION_ENV]);
} catch (e) {
  retentionDays = fail((e as Error).message);
}
// Jobs' snapshots and reports: one store every worker of the deployment opens, migrated before anything
// else connects (createWorker's own migration then finds nothing to do), and proved writable: a role that
// may only read, or a folder it cannot write, stops the worker here, naming the setting.
const jobStore = openJobStore(settings.jobStore);
try {
  await jobStore.migrate();
  await jobStore.probe?.();
} catch (e) {
  await jobStore.close().catch(() => undefined);
  await tokens?.close?.().catch(() => undefined);
  fail(
    `${JOB_STORE_ENV} (${jobStore.kind} ${jobStore.location}): the job store cannot be used: ${publicMessage(e)}`,
  );
}
// /healthz and /readyz from now on (the worker's own checks join once it exists: health-checks.ts).
const health: WorkerHealthDeps = {
  jobStore,
  tokenStore: tokens,
  codecKeyIds: keys ? [...keys.keys.keys()] : undefined,
};
let started: Awaited<ReturnType<typeof createWorker>> | undefined;
const healthServer = listener
  ? await startHealthServer({
      ...listener,
      liveness: () => workerLiveness(started?.worker),
      checks: () => workerChecks(health),
      metricsUpstream,
    }).catch(async (e: unknown) => {
      await tokens?.close?.().catch(() => undefined);
      await jobStore.close().catch(() => undefined);
      return fail((e as Error).message);
    })
  : undefined;
const tracing = tracingFromEnv('selling-kit-worker');
try {
  started = await createWorker({
    tracing,
    ...connectOptions(temporal),
    namespace: temporal.namespace,
    taskQueue: settings.taskQueue,
    credentials,
    shopNames,
    tokens,
    jobStore,
    jobRetentionDays: retentionDays,
    feedPolicy,
    orderEvents,
    codec,
    queues,
    ...options,
  });
} catch (e) {
  await tokens?.close?.();
  await jobStore.close();
  started = fail(`the worker cannot connect: ${await explainConnectError(temporal, e)}`);
}
const { worker, close, connection } = started;
health.worker = {
  worker,
  connection,
  namespace: temporal.namespace,
  taskQueues: polled,
};
stopOnSignals(worker, (signal) =>
  console.log(`${signal}: already stopping (in-flight activities get up to ${options.shutdownGraceTime} ms)`),
);
if (healthServer)
  console.log(
    `health on ${healthServer.url}/healthz and /readyz${metricsUpstream ? `, metrics on ${healthServer.url}/metrics` : ''}`,
  );
console.log(`job store: ${jobStore.kind} ${jobStore.location} (jobs kept ${retentionDays} days)`);
console.log(describeFeedPolicy(feedPolicy));
console.log(
  `worker ready on ${describeConnection(temporal)}, task queue ${settings.taskQueue ?? DEFAULT_TASK_QUEUE} (${queues === 'all' ? 'polling' : `${queues} only:`} ${polled.join(', ')})`,
);
try {
  await worker.run();
} catch (e) {
  // Activities still running after the force time (grace + 15 s): they are abandoned, Temporal retries them.
  console.error(`worker stopped before its activities ended (${(e as Error).name}): Temporal retries them`);
  process.exitCode = 1;
}
await healthServer?.close();
await close();
await tokens?.close?.();
await jobStore.close();
await tracing?.shutdown(); // the spans still queued
