// A Temporal dev server with its HTTP API on, and a selling-kit worker with the payload codec listing
// into a simulator (its shop names published for the node's Shops list, its job store a folder of the
// server's temp dir): what the Bulk Job node talks to, for the unit and the end-to-end tests.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { DefaultLogger, Runtime } from '@temporalio/worker';
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

export { FEED_HEADER };
/** A valid feed row whose picture is named after its SKU (the shared row, temporal-workflows' testing). */
export const feedRow = (sku: string, picture = `https://img.example/${sku}.png`) =>
  sharedFeedRow(sku, { picture });
