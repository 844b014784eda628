// Shared set-up for the integration tests: the real dev server started by global-setup.js, a simulator
// over 127.0.0.1 (time-scaled), an in-process worker on a task queue of the test file's own.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import {
  startSimulator,
  createSeller,
  createApiKey,
  addAddress,
  type RunningSimulator,
} from '@selling-kit/simulator';
import { createWorker, type WorkerOptions } from '../src/worker.ts';
import type { BulkJobInput } from '../src/types.ts';

export const TIME_SCALE = 10; // the simulator's 10 s create window lasts 1 real second

export interface TestEnv {
  sim: RunningSimulator;
  client: Client;
  connection: Connection;
  taskQueue: string;
  dir: string;
  /** API keys by credential name (the worker's credential store). */
  keys: Map<string, { baseUrl: string; apiKey: string }>;
  /** A new seller with an address and an API key named `ref`. */
  shop(ref: string): { sellerId: number; shopId: string; ref: string };
  /** Another in-process worker on this task queue (or another). */
  worker(over?: Partial<WorkerOptions>): Promise<() => Promise<void>>;
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
  const stops: (() => Promise<void>)[] = [];
  const worker = async (o: Partial<WorkerOptions> = {}) => {
    const { worker: w, close } = await createWorker({
      address,
      taskQueue,
      credentials: (ref) => keys.get(ref),
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
    keys,
    shop(ref) {
      const seller = createSeller(sim.world, { username: `${ref}-${randomUUID().slice(0, 6)}` });
      addAddress(sim.world, seller);
      keys.set(ref, { baseUrl: sim.url, apiKey: createApiKey(sim.world, `partner-${ref}`, seller.id).key });
      // Shop ids are unique per test file: lanes of other files (other simulators) never mix in.
      return { sellerId: seller.id, shopId: `${name}-${seller.id}-${randomUUID().slice(0, 4)}`, ref };
    },
    worker,
    async close() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      await connection.close();
      await sim.close();
    },
  };
}

export const HEADER =
  'sku,description,price_amount,price_currency,quantity,national_shipping_cost,pictures,department,product_type,condition,brand_name,country_code';
export const row = (sku: string, i = 0) =>
  `${sku},Vintage tee ${i} #nike,${20 + (i % 7)}.00,GBP,1,3.50,https://img.example/${i}.jpg,menswear,tshirts,used_good,Nike,GB`;

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
    reportDir: env.dir,
    allowance: { limit: 20, windowMs: 1000 },
    verifyDelaysMs: [100, 200, 400],
    ...over,
  };
}

export const admin = (env: TestEnv, method: string, path: string, body?: unknown) =>
  fetch(env.sim.adminUrl + path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  }).then((r) => r.json());

export function products(env: TestEnv, sellerId: number, prefix: string) {
  return [...env.sim.world.sellers.get(sellerId)!.products.values()].filter((p) =>
    p.sku?.startsWith(`${prefix}-`),
  );
}

/** A listing created straight in the simulator's world (not through the API). */
export function listingBody(sku: string) {
  return {
    sku,
    address: { country_code: 'GB' },
    description: 'Vintage tee #nike',
    price_currency: 'GBP',
    price_amount: '20.00',
    national_shipping_cost: '3.50',
    quantity: 1,
    pictures: [{ url: 'https://img.example/x.jpg' }],
    department: 'menswear',
    product_type: 'tshirts',
    condition: 'used_good',
    brand_name: 'Nike',
  };
}
