// A Temporal dev server with its HTTP API on, and a selling-kit worker with the payload codec listing
// into a simulator (its shop names published for the node's Shops list, its job store a folder of the
// server's temp dir): what the Bulk Job node talks to, for the unit and the end-to-end tests.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { AesGcmCodec, type Credential } from '@selling-kit/temporal-workflows';
import {
  FEED_HEADER,
  feedRow as sharedFeedRow,
  startDevServer,
} from '@selling-kit/temporal-workflows/testing';
import { createWorker, openJobStore } from '@selling-kit/temporal-workflows/worker';

export interface TemporalStack {
  httpUrl: string;
  taskQueue: string;
  key: Buffer;
  dir: string;
  stop(): Promise<void>;
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
    codec: new AesGcmCodec(key),
  });
  const running = worker.worker.run();
  return {
    httpUrl,
    taskQueue,
    key,
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
