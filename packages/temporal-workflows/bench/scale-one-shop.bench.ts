// Scale, one shop (issue 12 §5): one bulk create job of N items (default 100,000) on one shop of a
// time-scaled simulator, run by a worker in a process of its own (`node src/worker/worker-main.ts`).
// Measures and prints:
//  - completion: listings created ÷ N, and 429s at the gateway;
//  - history per run (the job's runs through continue-as-new): each run's history fetched with the
//    client and serialised (protobuf) — the largest run (target < 4 MiB) and bytes per item over all runs
//    (target ≤ 300);
//  - the worker's RSS, read from /proc/<pid>/status once a second: max ÷ median after warm-up (the
//    first 10 % of items), target ≤ 1.3 — also without the job's last step (the report merge).
//   node packages/temporal-workflows/bench/scale-one-shop.bench.ts [--items 100000] [--time-scale 10]
//   (or SCALE_ITEMS / SCALE_TIME_SCALE in the environment, e.g. `SCALE_ITEMS=5000 pnpm bench`)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startSimulator, createSeller, createApiKey, addAddress } from '@selling-kit/simulator';
import { startBulkJob } from '../src/client/client.ts';
import {
  HEADER,
  MiB,
  dynamicConfig,
  loadAverage,
  gateway429s,
  param,
  percentile,
  row,
  runHistories,
  sampleRss,
  openBench,
  spawnBenchWorker,
  runWhenMain,
} from './harness.ts';

export async function run(
  items = param('items', 'SCALE_ITEMS', 100_000),
  timeScale = param('time-scale', 'SCALE_TIME_SCALE', 10),
) {
  const { dir, temporal } = await openBench('sk-bench-scale-');
  // ×10 by default: the 200-per-10 s create window lasts one real second (100,000 items ≈ 500 s).
  const sim = await startSimulator({ port: 0, config: { timeScale, fetchPictures: false } });
  const seller = createSeller(sim.world, { username: 'scale-one' });
  addAddress(sim.world, seller);
  const credentials = join(dir, 'credentials.json');
  writeFileSync(
    credentials,
    JSON.stringify({
      'scale-one': { baseUrl: sim.url, apiKey: createApiKey(sim.world, 'partner-scale', seller.id).key },
    }),
  );
  const { taskQueue, worker } = await spawnBenchWorker(temporal, dir, 'scale', {
    SELLING_KIT_CREDENTIALS: credentials,
  });
  const created = () => seller.products.size;
  const rss = sampleRss(worker.pid, created);
  try {
    const feed = join(dir, 'feed.csv');
    writeFileSync(feed, [HEADER, ...Array.from({ length: items }, (_, i) => row(`SCALE-${i}`))].join('\n'));
    const allowance = { limit: 200, windowMs: 10_000 / timeScale };
    const started = Date.now();
    const handle = await startBulkJob(
      temporal.client,
      {
        jobId: `scale-${randomUUID()}`,
        shop: { shopId: String(seller.id), credentialRef: 'scale-one' },
        feed: { path: feed, format: 'csv' },
        operation: 'create',
        allowance,
        clockMarginMs: 250 / timeScale, // the 250 ms margin, scaled like the window
      },
      taskQueue,
    );
    const ticker = setInterval(
      () =>
        console.log(
          `    … ${created()}/${items} created, worker RSS ${(rss.samples.at(-1)!.kib / 1024).toFixed(0)} MiB`,
        ),
      60_000,
    );
    let sentAllAtMs = 0; // when the last listing was created (before the report merge)
    const watch = setInterval(() => {
      if (!sentAllAtMs && created() >= items) sentAllAtMs = Date.now() - started;
    }, 200);
    const result = await handle.result().finally(() => {
      clearInterval(ticker);
      clearInterval(watch);
    });
    rss.stop();
    const seconds = (Date.now() - started) / 1000;
    for (const [kind, n] of worker.warnings()) console.log(`    worker log: ${n} × ${kind}`);
    if (dynamicConfig.length) console.log(`    DIAGNOSTIC server settings: ${dynamicConfig.join(', ')}`);
    const load = loadAverage();
    const limited = await gateway429s(sim);

    const runs = await runHistories(temporal.client, handle.workflowId);
    const total = runs.reduce((n, r) => n + r.bytes, 0);
    const largest = runs.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const bytesPerItem = total / items;

    const warm = rss.samples.filter((s) => s.done >= items * 0.1);
    const rssStats = (xs: typeof warm) => {
      const kib = xs.map((s) => s.kib);
      const median = percentile(kib, 50);
      return { median, max: Math.max(...kib), ratio: Math.max(...kib) / median, n: kib.length };
    };
    const after = rssStats(warm);
    // The same while sending only: up to the last listing's creation, before the report is merged.
    const sending = rssStats(warm.filter((s) => !sentAllAtMs || s.atMs <= sentAllAtMs));
    const mib = (kib: number) => (kib / 1024).toFixed(0);

    console.log(
      `  one shop, ${items} creates at ×${timeScale}: ${result.state}, ${created()}/${items} listings (${result.done} done, ${result.failed} failed) in ${seconds.toFixed(0)} s, ${limited} × 429; load average ${load}`,
    );
    console.log(
      `    history: ${runs.length} run(s); largest ${(largest.bytes / MiB).toFixed(2)} MiB (${largest.events} events; target < 4 MiB); ` +
        `${bytesPerItem.toFixed(1)} bytes/item over all runs (target ≤ 300; ${total} bytes, ${runs.reduce((n, r) => n + r.events, 0)} events; server's count ${runs.reduce((n, r) => n + r.serverBytes, 0)} bytes)`,
    );
    for (const r of runs)
      console.log(
        `      run ${r.runId.slice(0, 8)}: ${r.events} events, ${r.bytes} bytes (server ${r.serverBytes})`,
      );
    console.log(
      `    worker RSS after warm-up (first 10 % of items): median ${mib(after.median)} MiB, max ${mib(after.max)} MiB, max ÷ median ${after.ratio.toFixed(3)} over ${after.n} samples (target ≤ 1.3); ` +
        `while sending (before the report merge): max ÷ median ${sending.ratio.toFixed(3)}, max ${mib(sending.max)} MiB`,
    );
    const rssPath = join(dir, 'worker-rss.ndjson');
    writeFileSync(rssPath, rss.samples.map((s) => JSON.stringify(s)).join('\n'));
    console.log(`    RSS samples (one per second): ${rssPath}`);
    const ok =
      result.state === 'finished' &&
      created() === items &&
      largest.bytes < 4 * MiB &&
      bytesPerItem <= 300 &&
      after.ratio <= 1.3;
    console.log(
      `BENCH_RESULT ${JSON.stringify({
        package: 'temporal-workflows',
        name: `scale: 1 shop × ${items} creates (×${timeScale})`,
        requestsPerSec: Number((items / seconds).toFixed(1)),
        non2xx: limited,
        note:
          `${ok ? 'targets met' : 'TARGET MISSED'}: ${runs.length} runs, max ${(largest.bytes / MiB).toFixed(2)} MiB/run, ` +
          `${bytesPerItem.toFixed(0)} B/item, RSS max÷median ${after.ratio.toFixed(2)}; load ${load}`,
      })}`,
    );
    return {
      ok,
      state: result.state,
      created: created(),
      runs: runs.length,
      largestRunBytes: largest.bytes,
      bytesPerItem,
      rssRatio: after.ratio,
      sendingRssRatio: sending.ratio,
    };
  } finally {
    rss.stop();
    await worker.stop();
    await sim.close();
    await temporal.stop();
  }
}

await runWhenMain(import.meta.url, run, (r) => r.ok);
