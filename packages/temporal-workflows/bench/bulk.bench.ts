// Bulk listing throughput on a real Temporal dev server against a time-scaled simulator: achieved
// create rate ÷ the shop's allowance for N listings on one shop, 429s, and history events per item.
//   node packages/temporal-workflows/bench/bulk.bench.ts [--items 2000] [--time-scale 10]
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startSimulator, createSeller, createApiKey, addAddress } from '@selling-kit/simulator';
import { createWorker } from '../src/worker.ts';
import { startBulkJob } from '../src/client.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

export async function run(items = arg('items', 2000), timeScale = arg('time-scale', 10)) {
  const bin = process.env.TEMPORAL_CLI_PATH;
  if (!bin) throw new Error('TEMPORAL_CLI_PATH is not set: source scripts/setup.sh');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dir = mkdtempSync(join(tmpdir(), 'sk-bench-'));
  const port = await freePort();
  const server = spawn(
    bin,
    [
      'server',
      'start-dev',
      '--db-filename',
      join(dir, 't.db'),
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--ui-port',
      String(await freePort()),
      '--headless',
      '--log-level',
      'error',
      ...['SellingKitShop', 'SellingKitJobId', 'SellingKitOperation'].flatMap((n) => [
        '--search-attribute',
        `${n}=Keyword`,
      ]),
    ],
    { stdio: 'ignore' },
  );
  const address = `127.0.0.1:${port}`;
  let connection: Connection | undefined;
  for (let i = 0; i < 200 && !connection; i++) {
    connection = await Connection.connect({ address, connectTimeout: 1000 }).catch(async () => {
      await new Promise((r) => setTimeout(r, 200));
      return undefined;
    });
  }
  const sim = await startSimulator({ port: 0, config: { timeScale, fetchPictures: false } });
  const seller = createSeller(sim.world, { username: 'bench-shop' });
  addAddress(sim.world, seller);
  const { key } = createApiKey(sim.world, 'partner-bench', seller.id);
  const taskQueue = `bench-${randomUUID()}`;
  const { worker, close } = await createWorker({
    address,
    taskQueue,
    credentials: () => ({ baseUrl: sim.url, apiKey: key }),
  });
  const running = worker.run();
  try {
    const client = new Client({ connection: connection! });
    const header =
      'sku,description,price_amount,price_currency,quantity,national_shipping_cost,pictures,department,product_type,condition,brand_name,country_code';
    const rows = Array.from(
      { length: items },
      (_, i) =>
        `B-${i},Bench tee ${i} #nike,20.00,GBP,1,3.50,https://img.example/${i}.jpg,menswear,tshirts,used_good,Nike,GB`,
    );
    const feed = join(dir, 'feed.csv');
    writeFileSync(feed, [header, ...rows].join('\n'));
    // The spec's allowance, 200 per 10 s, on the simulator's clock: 200 per 10/timeScale real seconds.
    const allowance = { limit: 200, windowMs: 10_000 / timeScale };
    const started = Date.now();
    const handle = await startBulkJob(
      client,
      {
        jobId: `bench-${randomUUID()}`,
        shop: { shopId: String(seller.id), credentialRef: 'bench' },
        feed: { path: feed, format: 'csv' },
        operation: 'create',
        reportDir: dir,
        allowance,
      },
      taskQueue,
    );
    const result = await handle.result();
    const seconds = (Date.now() - started) / 1000;
    const events = (await handle.fetchHistory()).events!.length;
    const rate = result.done / seconds;
    const allowed = allowance.limit / (allowance.windowMs / 1000);
    // The last window need not wait out its timer, so compare against the windows the job needed.
    const ideal = (Math.ceil(items / allowance.limit) - 1) * (allowance.windowMs / 1000);
    const out = {
      items,
      done: result.done,
      rateLimited: result.rateLimited,
      seconds,
      rate,
      allowance: allowed,
      ratio: rate / allowed,
      idealSeconds: ideal,
      eventsPerItem: events / items,
      runs: result.runs,
    };
    console.log(
      `  bulk create, one shop: ${items} listings in ${seconds.toFixed(1)} s (ideal ≥ ${ideal.toFixed(1)} s)`,
    );
    console.log(
      `    achieved ${rate.toFixed(1)}/s ÷ allowance ${allowed}/s = ${out.ratio.toFixed(3)} (target ≥ 0.97), 429s: ${result.rateLimited}`,
    );
    console.log(
      `    history events per item: ${out.eventsPerItem.toFixed(3)} over ${result.runs} run(s) of the final execution`,
    );
    return out;
  } finally {
    worker.shutdown();
    await running;
    await close();
    await connection?.close();
    await sim.close();
    server.kill('SIGTERM');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await run();
}
