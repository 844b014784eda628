// A Temporal dev server with its HTTP API on, and a selling-kit worker with the payload codec listing
// into a simulator (its shop names published for the node's Shops list, its job store a folder of the
// server's temp dir): what the Bulk Job node talks to, for the unit and the end-to-end tests. Also the
// Bulk Job tests' two-shop set-up, their real-HTTP stand-in for n8n's request helper, feed rows as items.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { addShop } from '@selling-kit/simulator/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { INodeExecutionData } from 'n8n-workflow';
import {
  AesGcmCodec,
  clientCredentialFor,
  issueClientKey,
  keyringOf,
  watchedClientKeys,
  type Credential,
} from '@selling-kit/temporal-workflows';
import {
  FEED_HEADER,
  feedRow as sharedFeedRow,
  startDevServer,
} from '@selling-kit/temporal-workflows/testing';
import { createWorker, feedPolicy, openJobStore } from '@selling-kit/temporal-workflows/worker';

export interface TemporalStack {
  httpUrl: string;
  taskQueue: string;
  /** The worker's master key (never given to the node). */
  key: Buffer;
  /** The node's client key (the credential's Client Key), scoped to every shop of the worker. */
  clientKey: string;
  /** Issues another client key for `shops`: its credential string. */
  issue(id: string, shops: string[]): string;
  dir: string;
  stop(): Promise<void>;
}

/**
 * A worker's codec as the operator runs it (master key, client keyring file, checks on) and the way to
 * issue client keys it accepts, as `selling-kit keys issue` does.
 */
export function workerAuth(key: Buffer, keyringFile: string) {
  const issue = (id: string, shops: string[]) =>
    clientCredentialFor(keyringOf(key), issueClientKey(keyringFile, { id, shops }));
  issue('bootstrap', ['none']); // the keyring file exists before the worker reads it
  return { codec: new AesGcmCodec(key, { clientKeys: watchedClientKeys(keyringFile) }), issue };
}

let runtimeInstalled = false;

export async function startTemporalStack(credentials: Record<string, Credential>): Promise<TemporalStack> {
  const server = await startDevServer({ http: true });
  const httpUrl = server.httpUrl!;
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    runtimeInstalled = true;
  }
  const key = randomBytes(32);
  const auth = workerAuth(key, join(server.dir, 'client-keys.json'));
  const taskQueue = `n8n-bulk-${randomBytes(3).toString('hex')}`;
  // Jobs' snapshots and reports: the node reads them through Temporal, never from this folder.
  const jobStore = openJobStore(join(server.dir, 'jobs'));
  const worker = await createWorker({
    jobStore,
    address: server.address,
    taskQueue,
    credentials: (ref) => credentials[ref],
    // The shop directory (what the Bulk Job node's Shops list asks): the names, never the keys.
    shopNames: () => Object.keys(credentials),
    codec: auth.codec,
    // Path feeds of the tests are files in the system's temporary folder (the worker's feed root).
    feedPolicy: feedPolicy({ roots: [tmpdir()] }),
  });
  const running = worker.worker.run();
  return {
    httpUrl,
    taskQueue,
    key,
    clientKey: auth.issue('n8n-test', Object.keys(credentials)),
    issue: auth.issue,
    dir: server.dir,
    async stop() {
      worker.worker.shutdown();
      await running;
      await worker.close();
      await jobStore.close();
      await server.stop();
    },
  };
}

/**
 * The test file's demo simulator with a second seller (shop `second`, its seller id `second`) and a stack
 * whose worker holds both shops, started before its tests and stopped after (the fields are set once it
 * runs): the many-shop and cross-shop set-up the Bulk Job tests share.
 */
export function useTwoShopStack(): { sim: RunningSimulator; stack: TemporalStack; second: number } {
  const two = {} as { sim: RunningSimulator; stack: TemporalStack; second: number };
  beforeAll(async () => {
    two.sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
    const shop = addShop(two.sim, { username: 'second-shop', partnerId: 'partner-second' });
    two.second = shop.sellerId;
    two.stack = await startTemporalStack({
      demo: { baseUrl: two.sim.url, apiKey: 'pak_demo_selling_kit' },
      second: shop.credential,
    });
  }, 180_000);
  afterAll(async () => {
    await two.stack?.stop();
    await two.sim?.close();
  }, 60_000);
  return two;
}

/** The SKUs of seller `sellerId` in `sim` that start with `prefix`, sorted. */
export const skusOf = (sim: RunningSimulator, sellerId: number, prefix: string) =>
  [...sim.world.sellers.get(sellerId)!.skus.keys()].filter((s) => s.startsWith(prefix)).sort();

/** A request of the Bulk Job node's Temporal transport, as it hands it to n8n's HTTP helper. */
export interface TemporalHttpRequest {
  method: string;
  url: string;
  body?: unknown;
  qs?: Record<string, unknown>;
}

/**
 * n8n's `httpRequestWithAuthentication` for the node's Temporal credential, done over real HTTP (JSON
 * in and out, the status answered beside the body): what the node's tests mock that helper with.
 */
export async function temporalHttp(req: TemporalHttpRequest) {
  const url = new URL(req.url);
  for (const [k, v] of Object.entries(req.qs ?? {})) url.searchParams.set(k, String(v));
  const res = await fetch(url, {
    method: req.method,
    headers: { 'content-type': 'application/json' },
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
  });
  const text = await res.text();
  return { statusCode: res.status, body: text ? JSON.parse(text) : {} };
}

export { FEED_HEADER };

/** A valid feed row (feedRow) as an n8n user's input item: the CSV feed's columns, every cell a string. */
export const feedRowItem = (sku: string): INodeExecutionData => {
  const names = FEED_HEADER.split(',');
  const cells = feedRow(sku).split(',');
  return { json: Object.fromEntries(names.map((n, i) => [n, cells[i]!])) };
};
/** A valid feed row whose picture is named after its SKU (the shared row, temporal-workflows' testing). */
export const feedRow = (sku: string, picture = `https://img.example/${sku}.png`) =>
  sharedFeedRow(sku, { picture });
