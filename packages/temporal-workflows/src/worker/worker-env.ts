// The worker's settings from its environment: one reader for `node src/worker/worker-main.ts` (compose, the
// variables listed there) and `selling-kit worker` (whose flags win over the same variables). Also the
// worker's view of credentials.json, read again when it changes.
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { codecEnabled } from '../codec/codec.ts';
import { CredentialsFileError, readCredentialsFile } from '../stores/credentials-file.ts';
import { METRICS_ADDRESS_ENV } from '../observability/metrics.ts';
import { TUNING_ENV, workerTuning, type WorkerTuning } from './worker-tuning.ts';
import { JOB_STORE_ENV } from '../stores/job-store.ts';
import { WORKER_QUEUES, type WorkerQueues } from './worker-queues.ts';
import type { Credential, CredentialStore, ShopNames } from '../activities/index.ts';
import { feedPolicyFromEnv, type FeedPolicy } from '../activities/feed-policy.ts';
import type { OrderEventsTarget } from '../webhooks/order-types.ts';
import { orderEventsFromEnv } from './order-events-env.ts';

/**
 * The feed policy's variables (SELLING_KIT_FEED_ROOTS, _HOSTS, _MAX_BYTES, _MAX_RECORD_BYTES, _MAX_ITEMS):
 * defined beside the policy (activities/feed-policy.ts), which client code loads without this module.
 */
export { FEED_POLICY_ENV, FeedPolicyError, feedPolicy } from '../activities/feed-policy.ts';
export type { FeedPolicy } from '../activities/feed-policy.ts';

type TuningKey = keyof typeof TUNING_ENV;

/** The token store of connected sellers: a sealed file or a postgres:// URL (token-store-open.ts). */
export const TOKEN_STORE_ENV = 'SELLING_KIT_TOKEN_STORE';

/** Which queues the worker polls (worker.ts WORKER_QUEUES): all, jobs or sales. */
export const WORKER_QUEUES_ENV = 'SELLING_KIT_WORKER_QUEUES';

/** `value` as the queues a worker polls; unset or empty: all. Throws naming `name` and the choices. */
export function workerQueues(value: string | undefined, name = WORKER_QUEUES_ENV): WorkerQueues {
  const v = value?.trim().toLowerCase();
  if (!v) return 'all';
  if ((WORKER_QUEUES as readonly string[]).includes(v)) return v as WorkerQueues;
  throw new Error(`${name} must be one of ${WORKER_QUEUES.join(', ')} (got "${value}")`);
}

/** Settings given on a command line instead: each with the flag's name, for messages that name it. */
export interface WorkerFlags {
  tuning?: Partial<Record<TuningKey, { value: string | undefined; name: string }>>;
  metricsAddress?: string;
  queues?: string;
}

export interface WorkerEnvironment {
  /** SELLING_KIT_TASK_QUEUE; unset: the contract's DEFAULT_TASK_QUEUE. */
  taskQueue?: string;
  /** SELLING_KIT_CREDENTIALS: the API keys of direct partners (credentials.json). */
  credentialsFile?: string;
  /** SELLING_KIT_TOKEN_STORE: a sealed file or a postgres:// URL (token-store-open.ts). */
  tokenStore?: string;
  /**
   * SELLING_KIT_JOB_STORE: jobs' snapshots and reports, a postgres:// URL (several hosts) or a folder;
   * unset: ~/.selling-kit/jobs (stores/open-job-store.ts).
   */
  jobStore?: string;
  /** SELLING_KIT_CODEC: payload encryption, on unless turned off (codec.ts CODEC_DEFAULT). */
  codec: boolean;
  /** SELLING_KIT_KEY_FILE, default ~/.selling-kit/codec.key (read when SELLING_KIT_CODEC_KEY is empty). */
  keyFile: string;
  /** The flag, else SELLING_KIT_METRICS_ADDRESS: host:port of the Prometheus endpoint; off when unset. */
  metricsAddress?: string;
  /**
   * Flags, else TUNING_ENV. A function: a bad value throws TuningError naming the flag or variable, when
   * the caller reaches that check.
   */
  tuning(): WorkerTuning;
  /** The flag, else SELLING_KIT_WORKER_QUEUES: all (default), jobs or sales. Throws naming the setting. */
  queues(): WorkerQueues;
  /**
   * What job feeds and SKU maps the worker reads (FEED_POLICY_ENV), `extra` added (a dev worker's roots,
   * its loopback exemption). Throws FeedPolicyError naming the variable of a bad value.
   */
  feedPolicy(extra?: Partial<FeedPolicy>): FeedPolicy;
  /**
   * Where order flows send their events (ORDER_EVENTS_URL_ENV, its token from ORDER_EVENTS_TOKEN_FILE_ENV), or
   * undefined. Throws OrderEventsSettingError naming the variable of a bad value.
   */
  orderEvents(): OrderEventsTarget | undefined;
}

export function workerEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  flags: WorkerFlags = {},
): WorkerEnvironment {
  const tuning = () => {
    const values: Partial<Record<TuningKey, string | undefined>> = {};
    const names: Partial<Record<TuningKey, string>> = {};
    for (const key of Object.keys(TUNING_ENV) as TuningKey[]) {
      const flag = flags.tuning?.[key];
      const fromFlag = flag !== undefined && flag.value !== undefined;
      values[key] = fromFlag ? flag.value : env[TUNING_ENV[key]];
      names[key] = fromFlag ? flag.name : TUNING_ENV[key];
    }
    return workerTuning(values, names);
  };
  return {
    taskQueue: env.SELLING_KIT_TASK_QUEUE || undefined,
    credentialsFile: env.SELLING_KIT_CREDENTIALS || undefined,
    tokenStore: env[TOKEN_STORE_ENV] || undefined,
    jobStore: env[JOB_STORE_ENV]?.trim() || undefined,
    codec: codecEnabled(env.SELLING_KIT_CODEC),
    keyFile: env.SELLING_KIT_KEY_FILE || join(homedir(), '.selling-kit', 'codec.key'),
    metricsAddress: flags.metricsAddress ?? (env[METRICS_ADDRESS_ENV]?.trim() || undefined),
    tuning,
    queues: () =>
      flags.queues !== undefined
        ? workerQueues(flags.queues, '--queues')
        : workerQueues(env[WORKER_QUEUES_ENV]),
    feedPolicy: (extra) => feedPolicyFromEnv(env, extra),
    orderEvents: () => orderEventsFromEnv(env),
  };
}

/**
 * credentials.json, read again when its modification time changes (a rotated key, a new shop), and
 * its shop names for the shop directory (names only: clients never see a key). A missing or broken
 * file throws now; a later broken copy is reported through `warn` and the last good one stays in use.
 */
export function watchedCredentialsFile(
  path: string,
  warn: (message: string) => void = console.error,
): { store: CredentialStore; names: ShopNames } {
  let cache: { mtimeMs: number; shops: Record<string, Credential> } | undefined;
  const read = () => {
    const mtimeMs = statSync(path).mtimeMs;
    if (cache?.mtimeMs === mtimeMs) return cache.shops;
    try {
      cache = { mtimeMs, shops: readCredentialsFile(path) };
    } catch (e) {
      if (!cache) throw e;
      const kind = e instanceof CredentialsFileError ? e.kind : (e as Error).name;
      warn(`${path} changed but is not valid JSON (${kind}): keeping the last good copy`);
      cache = { ...cache, mtimeMs };
    }
    return cache.shops;
  };
  read(); // a missing or broken file stops the worker at start
  return { store: (ref) => read()[ref], names: () => Object.keys(read()) };
}
