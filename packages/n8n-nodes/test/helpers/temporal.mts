// A Temporal dev server with its HTTP API on, and a selling-kit worker with the payload codec listing
// into a simulator (its shop names published for the node's Shops list): what the Bulk Job node talks
// to, for the unit and the end-to-end tests.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { AesGcmCodec, createWorker, type Credential } from '@selling-kit/temporal-workflows';
import { freePort } from '../e2e/harness.mts';

export interface TemporalStack {
  httpUrl: string;
  taskQueue: string;
  key: Buffer;
  dir: string;
  stop(): Promise<void>;
}

let runtimeInstalled = false;

export async function startTemporalStack(credentials: Record<string, Credential>): Promise<TemporalStack> {
  const bin = process.env.TEMPORAL_CLI_PATH;
  if (!bin)
    throw new Error('TEMPORAL_CLI_PATH is not set: source scripts/env.sh (scripts/setup.sh builds it)');
  const dir = mkdtempSync(join(tmpdir(), 'sk-n8n-temporal-'));
  const [port, http, ui] = [await freePort(), await freePort(), await freePort()];
  const server = spawn(
    bin,
    [
      ...['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--http-port', String(http)],
      ...['--ui-port', String(ui), '--headless', '--log-level', 'error', '--db-filename', join(dir, 't.db')],
      ...['SellingKitShop', 'SellingKitJobId', 'SellingKitOperation'].flatMap((n) => [
        '--search-attribute',
        `${n}=Keyword`,
      ]),
    ],
    { stdio: 'ignore' },
  );
  const httpUrl = `http://127.0.0.1:${http}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${httpUrl}/api/v1/namespaces/default`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 180 || server.exitCode !== null) throw new Error('the Temporal dev server did not start');
    await new Promise((r) => setTimeout(r, 500));
  }
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    runtimeInstalled = true;
  }
  const key = randomBytes(32);
  const taskQueue = `n8n-bulk-${randomBytes(3).toString('hex')}`;
  const worker = await createWorker({
    address: `127.0.0.1:${port}`,
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
    dir,
    async stop() {
      worker.worker.shutdown();
      await running;
      await worker.close();
      server.kill('SIGTERM');
    },
  };
}

export const FEED_HEADER =
  'sku,description,price_amount,price_currency,quantity,national_shipping_cost,pictures,department,product_type,condition,brand_name,country_code';
export const feedRow = (sku: string, picture = `https://img.example/${sku}.png`) =>
  `${sku},Vintage tee #nike,20.00,GBP,1,3.50,${picture},menswear,tshirts,used_good,Nike,GB`;
