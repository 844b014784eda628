// Requests outside the pacing ring (issue 21 §3, review N14): how fast a sale (mark-as-sold) is answered on a
// shop that runs a create feed the API refuses row by row (10,000 rows, each a 422 `ingest_picture_error`)
// beside a PATCH job at the general group's bulk allowance (95 %): sales live in the 5 % left. Before 0.4
// every refused create was followed by a GET by SKU, unpaced, in that group — as many GETs as creates — and
// those ate the reserve. Prints the sales' p50 / p99, the GETs by SKU and the general group's 429s at the
// gateway. Real Temporal dev server, simulator at ×1 (the spec's allowances in real time), one worker.
//   node packages/temporal-workflows/bench/reserve.bench.ts [--rows 10000] [--sale-gap-ms 500]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startSimulator } from '@selling-kit/simulator';
import { addShop, validListing } from '@selling-kit/simulator/testing';
import { createListing } from '../../simulator/src/domain/products.ts';
import { cancelJob, markAsSold, startBulkJob } from '../src/client/client.ts';
import { DEFAULT_ALLOWANCES } from '../src/workflows/pacing.ts';
import { openBench, param, percentile, runWhenMain, sleep, startInlineWorker } from './harness.ts';
import { simAdmin } from '../test/helpers.ts';
import { writeFeedFile } from './feeds.ts';

export async function run(
  rows = param('rows', 'RESERVE_ROWS', 10_000),
  saleGapMs = param('sale-gap-ms', 'RESERVE_SALE_GAP_MS', 500),
) {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const { dir, temporal } = await openBench('sk-reserve-');
  const sim = await startSimulator({ port: 0, config: { timeScale: 1, fetchPictures: false } });
  const admin = (method: string, path: string, body?: unknown) => simAdmin(sim, method, path, body);
  const { seller, credential } = addShop(sim, { username: 'bench-reserve' });
  const shop = { shopId: `reserve-${seller.id}`, credentialRef: 'bench-reserve' };
  const taskQueue = `bench-reserve-${randomUUID()}`;
  const stopWorker = await startInlineWorker(
    temporal.address,
    taskQueue,
    (ref) => (ref === shop.credentialRef ? credential : undefined),
    dir,
  );
  try {
    const { client } = temporal;
    // The creates' run time at 200 per 10 s, and listings for the PATCH job to keep the general group at its
    // bulk allowance that long (with some to spare), plus the listings the sales mark sold.
    const seconds = rows / (DEFAULT_ALLOWANCES.create_update.limit / 10);
    const patches = Math.ceil(((seconds + 30) * DEFAULT_ALLOWANCES.general.limit) / 60);
    const sales = Math.ceil((seconds * 1000) / saleGapMs) + 20;
    const list = async (sku: string) =>
      createListing(sim.world, sim.config, seller, validListing({ sku }) as never, {
        now: sim.world.clock.now(),
        skipPictureFetch: true,
      });
    for (let i = 0; i < patches; i++) await list(`PATCH-${i}`);
    for (let i = 0; i < sales; i++) await list(`SOLD-${i}`);
    const patchFeed = join(dir, 'patch.csv');
    writeFileSync(
      patchFeed,
      [
        'sku,price_amount',
        ...Array.from({ length: patches }, (_, i) => `PATCH-${i},${15 + (i % 7)}.00`),
      ].join('\n'),
    );
    const createFeed = writeFeedFile(join(dir, 'refused.csv'), 'REFUSED-', rows);
    await admin('POST', '/admin/faults', {
      type: 'error_422',
      operationId: 'products.create',
      code: 'ingest_picture_error',
      message: 'a picture could not be downloaded: https://img.example/x.jpg',
    });
    // Counts the GETs by SKU (a zero-latency rule counts what it matches).
    await admin('POST', '/admin/faults', { type: 'latency', latencyMs: 0, operationId: 'products.getBySku' });

    const patchJobId = `reserve-patch-${randomUUID()}`;
    await startBulkJob(
      client,
      { jobId: patchJobId, shop, feed: { path: patchFeed, format: 'csv' }, operation: 'patch' },
      taskQueue,
    );
    const createJob = await startBulkJob(
      client,
      {
        jobId: `reserve-create-${randomUUID()}`,
        shop,
        feed: { path: createFeed, format: 'csv' },
        operation: 'create',
      },
      taskQueue,
    );
    let creating = true;
    const latencies: number[] = [];
    let saleFailures = 0;
    const selling = (async () => {
      await sleep(5_000); // both jobs are sending
      for (let i = 0; i < sales && creating; i++) {
        const t = performance.now();
        const r = await markAsSold(client, { shop, ref: { sku: `SOLD-${i}` } }, taskQueue);
        if (r.status === 'sold') latencies.push(performance.now() - t);
        else saleFailures++;
        await sleep(saleGapMs);
      }
    })();
    const t0 = Date.now();
    const created = await createJob.result().finally(() => (creating = false));
    const took = (Date.now() - t0) / 1000;
    await selling;
    await cancelJob(client, patchJobId).catch(() => undefined);
    const counters = (await admin('GET', '/admin/counters')) as {
      rateLimits: Record<string, Record<string, { allowed: number; limited: number }>>;
    };
    const general = counters.rateLimits[`shop:${seller.id}`]?.general ?? { allowed: 0, limited: 0 };
    const faults = (await admin('GET', '/admin/faults')) as {
      rules: { type: string; operationId?: string; matched: number }[];
    };
    const lookups = faults.rules.find((r) => r.type === 'latency')?.matched ?? 0;
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    console.log(
      `  ${rows} refused creates in ${took.toFixed(0)} s (${created.failed} failed, ${created.done} done) beside a PATCH job at the general allowance`,
    );
    console.log(
      `    GETs by SKU: ${lookups}; general group at the gateway: ${general.allowed} allowed, ${general.limited} × 429`,
    );
    console.log(
      `    mark-as-sold on that shop meanwhile: p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms over ${latencies.length} sales (${saleFailures} not sold)`,
    );
    const result = {
      package: 'temporal-workflows',
      name: `mark-as-sold during a ${rows}-row feed of 422s (+ a PATCH job at 95 %)`,
      latencyP50Ms: Number(p50.toFixed(1)),
      latencyP99Ms: Number(p99.toFixed(1)),
      non2xx: general.limited,
      note: `${lookups} GETs by SKU, ${general.limited} × 429 in the general group, ${latencies.length} sales`,
    };
    console.log(`BENCH_RESULT ${JSON.stringify(result)}`);
    return { p50, p99, lookups, limited: general.limited, sales: latencies.length };
  } finally {
    await stopWorker();
    await sim.close();
    await temporal.stop();
  }
}

await runWhenMain(import.meta.url, run);
