// Shared set-up for the integration tests: the real dev server started by global-setup.js, a simulator
// over 127.0.0.1 (time-scaled), an in-process worker on a task queue of the test file's own, and a job
// store (a local folder in the test's temp dir) its workers share; `reportOf` reads a job's report
// straight from it. Also worker-main run as a process of its own, the client-keyring codecs of the attack
// tests, and the simulator's admin surface (which the benches use too).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { addShop, validListing } from '@selling-kit/simulator/testing';
import { createListing } from '../../simulator/src/domain/products.ts';
import { FEED_HEADER, feedRow } from '../src/testing.ts';
import { createWorker, type WorkerOptions } from '../src/worker/worker.ts';
import type { BulkJobInput, ItemResult } from '../src/types.ts';
import type { JobKey, JobRecord, JobStore } from '../src/stores/job-store.ts';
import { createLocalJobStore } from '../src/stores/job-store-local.ts';
import { AesGcmCodec, deriveKey, type CodecKeyring } from '../src/codec/codec.ts';
import { issueClientKey, watchedClientKeys } from '../src/auth/client-keys.ts';
import { formatClientCredential } from '../src/auth/payload-auth.ts';
import { TEST_FEED_POLICY } from './feed-files.ts';

export const TIME_SCALE = 10; // the simulator's 10 s create window lasts 1 real second

export interface TestEnv {
  sim: RunningSimulator;
  client: Client;
  connection: Connection;
  taskQueue: string;
  dir: string;
  /** The job store of this env's workers (a folder in `dir`); `worker({ jobStore })` starts one on another. */
  store: JobStore;
  /** Its folder: SELLING_KIT_JOB_STORE of a worker process that shares it. */
  storeDir: string;
  /** API keys by credential name (the worker's credential store). */
  keys: Map<string, { baseUrl: string; apiKey: string }>;
  /** A new seller with an address and an API key named `ref`. */
  shop(ref: string): { sellerId: number; shopId: string; ref: string };
  /** Another in-process worker on this task queue (or another). */
  worker(over?: Partial<WorkerOptions>): Promise<() => Promise<void>>;
  /** Closes `resource` with the env, before what was started before it (a receiver before the workers). */
  closeWith(close: () => Promise<void>): void;
  close(): Promise<void>;
}

export async function startEnv(name: string, over: Partial<WorkerOptions> = {}): Promise<TestEnv> {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed by an earlier test file in this process
  }
  const address = process.env.TEMPORAL_TEST_ADDRESS;
  if (!address) throw new Error('TEMPORAL_TEST_ADDRESS is unset: the jest global set-up starts the server');
  const sim = await startSimulator({ port: 0, config: { timeScale: TIME_SCALE, fetchPictures: false } });
  const keys = new Map<string, { baseUrl: string; apiKey: string }>();
  const taskQueue = `${name}-${randomUUID()}`;
  const dir = mkdtempSync(join(tmpdir(), `sk-${name}-`));
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const storeDir = join(dir, 'jobs');
  const store = createLocalJobStore(storeDir);
  const stops: (() => Promise<void>)[] = [];
  const worker = async (o: Partial<WorkerOptions> = {}) => {
    const { worker: w, close } = await createWorker({
      address,
      taskQueue,
      credentials: (ref) => keys.get(ref),
      jobStore: store,
      // Feeds are files in the system's temporary folder or on local test servers (feed-files.ts).
      feedPolicy: TEST_FEED_POLICY,
      ...over,
      ...o,
    });
    const running = w.run();
    const stop = async () => {
      if (w.getState() === 'RUNNING') w.shutdown();
      await running;
      await close();
    };
    stops.push(stop);
    return stop;
  };
  await worker();
  return {
    sim,
    client,
    connection,
    taskQueue,
    dir,
    store,
    storeDir,
    keys,
    shop(ref) {
      const { sellerId, credential } = addShop(sim, {
        username: `${ref}-${randomUUID().slice(0, 6)}`,
        partnerId: `partner-${ref}`,
      });
      keys.set(ref, credential);
      // Shop ids are unique per test file: lanes of other files (other simulators) never mix in.
      return { sellerId, shopId: `${name}-${sellerId}-${randomUUID().slice(0, 4)}`, ref };
    },
    worker,
    closeWith: (close) => stops.push(close),
    async close() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      await connection.close();
      await sim.close();
      await store.close();
    },
  };
}

/** `src/worker/worker-main.ts`: the worker process as an operator runs it. */
export const WORKER_MAIN = fileURLToPath(new URL('../src/worker/worker-main.ts', import.meta.url));

/** worker-main's environment against the test server: this process's, TEMPORAL_ADDRESS, then `env`. */
const workerMainEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...process.env,
  TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS,
  ...env,
});

/**
 * worker-main in a process of its own (stdout piped, stderr inherited), resolved once it says
 * "worker ready" (rejected if it exits before): the tests' second worker, as deployed.
 */
export function spawnReadyWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER_MAIN], {
    env: workerMainEnv(env),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('worker ready') && resolve(child));
    child.on('exit', (code) => reject(new Error(`worker exited early (${code})`)));
  });
}

export interface WorkerMainExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs worker-main to its exit, with its output: the start-up tests' way to see it refuse (or accept) a
 * setting. Once it says "worker ready", `onReady` gets a way to signal it; without `onReady` it is sent
 * SIGTERM then.
 */
export function runWorkerMainToExit(
  env: NodeJS.ProcessEnv,
  onReady?: (kill: (s: NodeJS.Signals) => void) => void,
): Promise<WorkerMainExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER_MAIN], {
      env: workerMainEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let ready = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!ready && stdout.includes('worker ready')) {
        ready = true;
        onReady?.((s) => child.kill(s));
        if (!onReady) child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A worker's codec as the operator runs it: the master `ring` and the client keyring file `keyringFile`
 * (a bootstrap key issued first: the file exists before the worker reads it), its warnings collected.
 * The set-up of the attack tests on client keys.
 */
export function keyringWorkerCodec(ring: CodecKeyring, keyringFile: string) {
  const warnings: string[] = [];
  issueClientKey(keyringFile, { id: 'bootstrap', shops: ['none'] });
  const codec = new AesGcmCodec(ring, {
    clientKeys: watchedClientKeys(keyringFile),
    warn: (m) => warnings.push(m),
  });
  return { codec, warnings };
}

/**
 * A client's codec for a key freshly issued as `id` for `shops` in `keyringFile` (what `selling-kit keys
 * issue --shops` hands out), sealing under `ring`'s key `codecKeyId`.
 */
export function issuedClientCodec(
  ring: CodecKeyring,
  keyringFile: string,
  grant: { id: string; shops: string[]; codecKeyId: string },
): AesGcmCodec {
  const record = issueClientKey(keyringFile, { id: grant.id, shops: grant.shops });
  return AesGcmCodec.forClient(
    formatClientCredential({
      clientId: grant.id,
      codecKeyId: grant.codecKeyId,
      codecKey: deriveKey(ring.keys.get(grant.codecKeyId)!, 'codec'),
      clientKey: Buffer.from(record.key, 'base64'),
    }),
  );
}

/** The test file's environment: started before its tests (`startEnv`), closed after them. */
export function useTestEnv(name: string, over: Partial<WorkerOptions> = {}): TestEnv {
  const env = {} as TestEnv;
  beforeAll(async () => {
    Object.assign(env, await startEnv(name, over));
  }, 120_000);
  afterAll(() => env.close?.());
  return env;
}

export const HEADER = FEED_HEADER;
/** Row `i` of a feed: its own description, price and picture. */
export const row = (sku: string, i = 0) =>
  feedRow(sku, {
    description: `Vintage tee ${i} #nike`,
    price: `${20 + (i % 7)}.00`,
    picture: `https://img.example/${i}.jpg`,
  });

let feedNo = 0;
/** A CSV feed of `n` valid listings `<prefix>-1…n`, plus the given extra rows. */
export function csvFeed(env: TestEnv, prefix: string, n: number, extra: string[] = []): string {
  const path = join(env.dir, `feed-${++feedNo}.csv`);
  writeFileSync(
    path,
    [HEADER, ...Array.from({ length: n }, (_, i) => row(`${prefix}-${i + 1}`, i)), ...extra].join('\n') +
      '\n',
  );
  return path;
}

export function writeFeed(env: TestEnv, name: string, text: string): string {
  const path = join(env.dir, name);
  writeFileSync(path, text);
  return path;
}

export function job(
  env: TestEnv,
  shop: { shopId: string; ref: string },
  path: string,
  over: Partial<BulkJobInput> = {},
): BulkJobInput & { jobId: string } {
  return {
    jobId: `job-${randomUUID()}`,
    shop: { shopId: shop.shopId, credentialRef: shop.ref },
    feed: { path, format: 'csv' },
    operation: 'create',
    allowance: { limit: 20, windowMs: 1000 },
    verifyDelaysMs: [100, 200, 400],
    ...over,
  };
}

/**
 * A call to a simulator's admin surface (JSON body, if any; the answer's JSON): the one client of it for
 * the tests and the benches.
 */
export const simAdmin = (
  sim: Pick<RunningSimulator, 'adminUrl'>,
  method: string,
  path: string,
  body?: unknown,
) =>
  fetch(sim.adminUrl + path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  }).then((r) => r.json());

export const admin = (env: TestEnv, method: string, path: string, body?: unknown) =>
  simAdmin(env.sim, method, path, body);

/** One fault rule on the simulator (its /admin/faults surface). */
export const addFault = (env: TestEnv, rule: { type: string } & Record<string, unknown>) =>
  admin(env, 'POST', '/admin/faults', rule);

/** Fault rules on one operation, by type → probability, added in the order given. */
export async function addFaults(env: TestEnv, operationId: string, probabilities: Record<string, number>) {
  for (const [type, probability] of Object.entries(probabilities))
    await addFault(env, { type, operationId, probability });
}

/** Subscribes `url` to the partner's webhooks of `eventTypes` → the subscription's id. */
export async function subscribeWebhooks(
  env: TestEnv,
  partnerId: string,
  url: string,
  eventTypes: string[],
): Promise<string> {
  return ((await admin(env, 'POST', '/admin/webhooks', { partnerId, url, eventTypes })) as { id: string }).id;
}

/** `f`'s first truthy answer, asked every 50 ms; fails naming `what` after `ms`. */
export async function waitFor<T>(
  what: string,
  f: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A report line, with its shop's id for a many-shop job. */
export type ReportLine = ItemResult & { shopId?: string };

/** Every line of one job's merged report (the rule `finalize` stored, else every part's first attempt). */
export async function linesOf(store: JobStore, key: JobKey): Promise<ItemResult[]> {
  const lines: ItemResult[] = [];
  for (let afterLine: number | undefined; ;) {
    const page = await store.readOutcomes(key, { afterLine, limit: 1000 });
    lines.push(...page.lines);
    if (page.nextAfterLine === undefined) return lines;
    afterLine = page.nextAfterLine;
  }
}

/**
 * The report of the newest job named `jobId`, read straight from the store (not through the client):
 * a many-shop job's is its shops' (each shop's newest job), with their shop ids, by shop id.
 */
export async function reportOf(from: { store: JobStore }, jobId: string): Promise<ReportLine[]> {
  const records = await from.store.findJobs(jobId);
  const own = records.find((r) => r.jobId === jobId && r.parentJobId === undefined);
  if (own) return linesOf(from.store, own.key);
  const shops = new Map<string, JobRecord>();
  for (const r of records)
    if (r.parentJobId === jobId && r.shopId !== undefined && !shops.has(r.shopId)) shops.set(r.shopId, r);
  const out: ReportLine[] = [];
  for (const shopId of [...shops.keys()].sort())
    out.push(...(await linesOf(from.store, shops.get(shopId)!.key)).map((l) => ({ ...l, shopId })));
  return out;
}

/** The `field` of every item a job's report has as ok, sorted. */
export const okOf = <K extends keyof ItemResult>(report: ItemResult[], field: K) =>
  report
    .filter((r) => r.status === 'ok')
    .map((r) => r[field])
    .sort();

export function products(env: TestEnv, sellerId: number, prefix: string) {
  return [...env.sim.world.sellers.get(sellerId)!.products.values()].filter((p) =>
    p.sku?.startsWith(`${prefix}-`),
  );
}

/** A valid listing's body for `sku`. */
export const listingBody = (sku: string) => validListing({ sku });

/** A listing created straight in the simulator's world (not through the API), `over` its valid body. */
export const listDirectly = (
  env: TestEnv,
  sellerId: number,
  sku: string,
  over: Record<string, unknown> = {},
) =>
  createListing(
    env.sim.world,
    env.sim.config,
    env.sim.world.sellers.get(sellerId)!,
    { ...listingBody(sku), ...over } as never,
    { now: env.sim.world.clock.now(), skipPictureFetch: true },
  );
