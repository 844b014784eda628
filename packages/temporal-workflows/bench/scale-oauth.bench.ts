// Scale, one cross-lister app (issue 12 §5): S OAuth sellers (default 500) of one application, each with
// a create feed and a job of its own, all at once, under the app-wide limit (default the spec's 30,000
// per minute) enforced by the simulator. The worker runs in a process of its own with the sellers'
// tokens in a sealed file token store (SELLING_KIT_TOKEN_STORE), as a cross-lister would run it.
// Measures and prints, from the simulator's creation times (simulated clock, so windows are the spec's):
//  - aggregate ÷ app budget while the app is saturated (from the app's first create until fewer sellers
//    have work left than can fill the budget at their own allowance), over the whole budget windows in
//    that span (a seller paced over the budget window sends its share in one burst: a span ending just
//    after a burst would count it without the window it belongs to), against 30,000/min and against what
//    the allocator leases (budget minus its headroom); from first create to the span's end and the
//    busiest 60 s window too;
//  - 429s at the gateway (app-wide and per seller), target 0;
//  - starvation: per seller, the longest stretch without a create from the app's first create to the
//    seller's last, in seller windows (10 s) and budget windows (60 s) — target ≤ 2 budget windows (a
//    seller whose share fits one seller window sends it once per budget window: README, "Scale");
//  - history events per second of the lanes and of the allocator (all their runs), and of the jobs, and
//    history events per request.
//   node packages/temporal-workflows/bench/scale-oauth.bench.ts [--sellers 500] [--seller-items 150]
//     [--app-limit 30000] [--headroom 0.02] [--max-activities 0] [--time-scale 1] [--deadline-s 900]
//   (or SCALE_SELLERS, SCALE_SELLER_ITEMS, SCALE_APP_LIMIT, SCALE_HEADROOM, SCALE_MAX_ACTIVITIES,
//   SCALE_OAUTH_TIME_SCALE, SCALE_DEADLINE_S; --max-activities 0 = the SDK's default of 100 concurrent
//   activities). A job still running at the deadline is reported with what it did so far.
//   Each seller gets a job of its own, all started at once; --one-job 1 (SCALE_ONE_JOB=1) runs one
//   many-shop job over every seller instead (maxConcurrentShops = sellers).
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import {
  startSimulator,
  createSeller,
  addAddress,
  createOAuthClient,
  type AccessTokenRecord,
} from '@selling-kit/simulator';
import { startBulkJob } from '../src/client/client.ts';
import { createFileTokenStore, sealTokens } from '../src/stores/token-store.ts';
import { DEFAULT_HEADROOM } from '../src/workflows/app-budget.ts';
import type { SellerTokens } from '../src/activities/index.ts';
import {
  HEADER,
  counters,
  loadAverage,
  dynamicConfig,
  param,
  percentile,
  row,
  sleep,
  openBench,
  spawnBenchWorker,
  runWhenMain,
} from './harness.ts';
import { grantTokenPair } from '../test/token-helpers.ts';

const SELLER_WINDOW_MS = 10_000; // create_update: 200 per 10 s per connected seller (simulated time)
const APP_WINDOW_MS = 60_000; // app-wide: per minute (simulated time)

/** History events of every run of the workflows of one type; running runs are described (visibility lags). */
async function typeEvents(client: Client, type: string) {
  const ids = new Set<string>();
  let events = 0;
  for await (const w of client.workflow.list({ query: `WorkflowType = '${type}'` })) {
    ids.add(w.workflowId);
    events +=
      w.status.name === 'RUNNING'
        ? ((await client.workflow.getHandle(w.workflowId, w.runId).describe()).historyLength ?? 0)
        : (w.historyLength ?? 0);
  }
  return { workflows: ids.size, events };
}

export async function run(
  sellers = param('sellers', 'SCALE_SELLERS', 500),
  sellerItems = param('seller-items', 'SCALE_SELLER_ITEMS', 150),
  appLimit = param('app-limit', 'SCALE_APP_LIMIT', 30_000),
  headroom = param('headroom', 'SCALE_HEADROOM', DEFAULT_HEADROOM),
  maxActivities = param('max-activities', 'SCALE_MAX_ACTIVITIES', 0),
  timeScale = param('time-scale', 'SCALE_OAUTH_TIME_SCALE', 1),
  deadlineS = param('deadline-s', 'SCALE_DEADLINE_S', 900),
  oneJob = param('one-job', 'SCALE_ONE_JOB', 0) === 1,
) {
  const { dir, temporal } = await openBench('sk-bench-oauth-');
  const sim = await startSimulator({
    port: 0,
    config: { timeScale, fetchPictures: false, appWideLimit: { limit: appLimit, windowMs: APP_WINDOW_MS } },
  });
  const world = sim.world;
  const app = createOAuthClient(world, 'partner-scale-oauth', ['http://127.0.0.1/cb']);

  // The sellers, their token pairs (as a consent gives them) and their feeds.
  const all: Record<string, SellerTokens> = {};
  const scopes: AccessTokenRecord['scopes'] = ['products_read', 'products_write', 'shop_read'];
  const shops = Array.from({ length: sellers }, (_, i) => {
    const seller = createSeller(world, { username: `oauth-${i}` });
    addAddress(world, seller);
    const { accessToken, refreshToken } = grantTokenPair(sim, {
      clientId: app.clientId,
      sellerId: seller.id,
      scopes,
      accessTtlMs: 24 * 3_600_000,
    });
    const ref = `oauth-seller-${seller.id}`;
    all[ref] = {
      baseUrl: sim.url,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      accessToken,
      refreshToken,
      expiresAt: Date.now() + (24 * 3_600_000) / timeScale,
      version: 1,
    };
    const path = join(dir, `seller-${i}.csv`);
    writeFileSync(
      path,
      [HEADER, ...Array.from({ length: sellerItems }, (_, j) => row(`O${i}-${j}`))].join('\n'),
    );
    return { seller, ref, path };
  });
  // The worker's token store: one sealed file (the format createFileTokenStore reads), written at once.
  const codecKey = randomBytes(32).toString('base64');
  // The token store's own key (SELLING_KIT_TOKEN_STORE_KEY), independent of the codec key.
  const tokenStoreKey = randomBytes(32);
  const keys = [tokenStoreKey];
  const storePath = join(dir, 'tokens.sealed');
  writeFileSync(storePath, sealTokens(keys[0]!, JSON.stringify(all)), { mode: 0o600 });
  if (!createFileTokenStore(storePath, keys).get(shops[0]!.ref)) throw new Error('token store unreadable');

  const { taskQueue, worker } = await spawnBenchWorker(temporal, dir, 'oauth', {
    SELLING_KIT_TOKEN_STORE: storePath,
    SELLING_KIT_CODEC_KEY: codecKey,
    SELLING_KIT_TOKEN_STORE_KEY: tokenStoreKey.toString('base64'),
    ...(maxActivities ? { SELLING_KIT_MAX_CONCURRENT_ACTIVITIES: String(maxActivities) } : {}),
  });
  const total = sellers * sellerItems;
  const created = () => shops.reduce((n, s) => n + s.seller.products.size, 0);
  try {
    const started = Date.now();
    const options = {
      operation: 'create' as const,
      allowance: { limit: 200, windowMs: SELLER_WINDOW_MS / timeScale },
      clockMarginMs: 250 / timeScale,
      appBudget: {
        appId: app.clientId,
        allowance: { limit: appLimit, windowMs: APP_WINDOW_MS / timeScale },
        headroom,
      },
    };
    const shopOf = (s: (typeof shops)[number]) => ({
      shopId: `oauth-${s.seller.id}`,
      credentialRef: s.ref,
      auth: 'oauth' as const,
    });
    const runId = randomUUID().slice(0, 8);
    // Default: a job per seller, all started at once. --one-job 1: one many-shop job over every seller
    // (its children are started by the parent workflow: see the README for what that costs at 500).
    let results: Promise<{ state: string }>[];
    if (oneJob) {
      const handle = await startBulkJob(
        temporal.client,
        {
          jobId: `scale-oauth-${runId}`,
          shops: shops.map((s) => ({ ...shopOf(s), feed: { path: s.path, format: 'csv' as const } })),
          maxConcurrentShops: sellers, // every seller has work at once
          ...options,
        },
        taskQueue,
      );
      results = [handle.result()];
    } else {
      results = [];
      for (let i = 0; i < shops.length; i += 50) {
        const handles = await Promise.all(
          shops.slice(i, i + 50).map((s, j) =>
            startBulkJob(
              temporal.client,
              {
                jobId: `scale-oauth-${runId}-${i + j}`,
                shop: shopOf(s),
                feed: { path: s.path, format: 'csv' },
                ...options,
              },
              taskQueue,
            ),
          ),
        );
        results.push(...handles.map((h) => h.result()));
      }
      console.log(`    ${shops.length} jobs started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    const all = Promise.all(results).then((rs) => ({
      state: rs.every((r) => r.state === 'finished') ? 'finished' : rs.map((r) => r.state).join(','),
    }));
    const ticker = setInterval(() => console.log(`    … ${created()}/${total} created`), 30_000);
    const result = await Promise.race([
      all,
      sleep(deadlineS * 1000).then(() => ({ state: `still running after ${deadlineS} s` })),
    ]).finally(() => clearInterval(ticker));
    const seconds = (Date.now() - started) / 1000;
    const load = loadAverage();
    for (const [kind, n] of worker.warnings()) console.log(`    worker log: ${n} × ${kind}`);
    if (dynamicConfig.length) console.log(`    DIAGNOSTIC server settings: ${dynamicConfig.join(', ')}`);

    // Creation times (simulated ms) per seller.
    const times = shops.map((s) =>
      [...s.seller.products.values()].map((p) => p.createdAt).sort((a, b) => a - b),
    );
    const flat = times.flat().sort((a, b) => a - b);
    if (!flat.length) {
      console.log(
        `  ${sellers} OAuth sellers × ${sellerItems} creates, one app at ${appLimit}/min: ${result.state}, NOTHING created in ${seconds.toFixed(0)} s; load average ${load}`,
      );
      console.log(
        `BENCH_RESULT ${JSON.stringify({ package: 'temporal-workflows', name: `scale: ${sellers} OAuth sellers × ${sellerItems}, app ${appLimit}/min`, errors: 1, note: `TARGET MISSED: nothing created (${result.state}); load ${load}` })}`,
      );
      return { ok: false, aggregate: 0, limited: 0, worstGap: Infinity, starvedSellerWindows: sellers };
    }
    const t0 = flat[0]!;
    // Saturated: while the sellers with work left could fill the budget at their own allowance.
    const perSellerMax = (200 * APP_WINDOW_MS) / SELLER_WINDOW_MS;
    const needed = Math.ceil(appLimit / perSellerMax);
    const finishes = times.map((t) => t.at(-1) ?? t0).sort((a, b) => a - b);
    const tEnd = finishes[Math.max(0, sellers - needed)]!;
    const inSpan = (from: number, to: number) => flat.filter((t) => t >= from && t < to).length;
    const ratioOver = (from: number, to: number) =>
      to > from ? inSpan(from, to) / (((to - from) / APP_WINDOW_MS) * appLimit) : NaN;
    const wholeWindows = Math.floor((tEnd - t0) / APP_WINDOW_MS);
    const toEnd = ratioOver(t0, tEnd);
    const aggregate = wholeWindows > 0 ? ratioOver(t0, t0 + wholeWindows * APP_WINDOW_MS) : toEnd;
    const afterFirstWindow = ratioOver(t0 + APP_WINDOW_MS, tEnd);
    // Every 60 s window starting at a second boundary within the saturated span.
    const windows: number[] = [];
    for (let from = t0; from + APP_WINDOW_MS <= tEnd; from += 1000)
      windows.push(inSpan(from, from + APP_WINDOW_MS));
    // Starvation: the longest gap per seller, from the app's first create to the seller's last.
    // A seller that has not finished is still waiting: its last stretch runs to the end of the run.
    const end = world.clock.now();
    const gaps = times.map((t) => {
      let gap = 0;
      let prev = t0;
      for (const x of t) {
        gap = Math.max(gap, x - prev);
        prev = x;
      }
      return t.length < sellerItems ? Math.max(gap, end - prev) : gap;
    });
    const worstGap = Math.max(...gaps);
    const starvedSellerWindows = gaps.filter((g) => g > 2 * SELLER_WINDOW_MS).length;
    const starvedAppWindows = gaps.filter((g) => g > 2 * APP_WINDOW_MS).length;
    /** A seller's creates as bursts (a pause over 5 s starts a new one): `+<s from t0> ×<creates>`. */
    const bursts = (t: number[]) => {
      const out: string[] = [];
      let [from, n, prev] = [t[0] ?? 0, 0, t[0] ?? 0];
      for (const x of [...t, Infinity]) {
        if (x - prev > 5_000) {
          out.push(`+${((from - t0) / 1000).toFixed(0)} s ×${n}`);
          [from, n] = [x, 0];
        }
        n++;
        prev = x;
      }
      return out.join(', ');
    };
    const worstSeller = gaps.indexOf(Math.max(...gaps));

    const c = (await counters(sim)).rateLimits;
    const appCounter = c[`app:${app.clientId}`]?.app_wide ?? { allowed: 0, limited: 0 };
    const limited = Object.values(c).reduce(
      (n, groups) => n + Object.values(groups).reduce((m, g) => m + g.limited, 0),
      0,
    );

    const lanes = await typeEvents(temporal.client, 'shopLaneWorkflow');
    const allocator = await typeEvents(temporal.client, 'appBudgetWorkflow');
    const jobs = await typeEvents(temporal.client, 'bulkListingWorkflow');
    const perSec = (n: number) => n / seconds;

    const leasable = 1 - headroom;
    console.log(
      `  ${sellers} OAuth sellers × ${sellerItems} creates, one app at ${appLimit}/min (×${timeScale}): ${result.state}, ${created()}/${total} listings in ${seconds.toFixed(0)} s; load average ${load}`,
    );
    console.log(
      `    aggregate while saturated (${((tEnd - t0) / 1000).toFixed(0)} s from the app's first create, until < ${needed} sellers had work), over its ${wholeWindows} whole budget window(s): ` +
        `${aggregate.toFixed(3)} of the app budget (${(aggregate / leasable).toFixed(3)} of the ${(leasable * 100).toFixed(0)} % the allocator leases; target ≥ 0.95); ` +
        `from the first create to the span's end ${toEnd.toFixed(3)}; after the first budget window ${afterFirstWindow.toFixed(3)}; 60 s windows: median ${windows.length ? (percentile(windows, 50) / appLimit).toFixed(3) : '-'}, max ${windows.length ? (Math.max(...windows) / appLimit).toFixed(3) : '-'}`,
    );
    console.log(
      `    429s: ${limited} at the gateway (app-wide ${appCounter.limited}; ${appCounter.allowed} app requests allowed; target 0)`,
    );
    console.log(
      `    starvation: longest gap of a seller ${(worstGap / 1000).toFixed(1)} s = ${(worstGap / SELLER_WINDOW_MS).toFixed(1)} seller windows = ${(worstGap / APP_WINDOW_MS).toFixed(2)} budget windows; ` +
        `sellers with a gap > 2 seller windows: ${starvedSellerWindows}, > 2 budget windows: ${starvedAppWindows} (target 0); median gap ${(percentile(gaps, 50) / 1000).toFixed(1)} s`,
    );
    console.log(`    the seller with the longest gap created: ${bursts(times[worstSeller]!)}`);
    console.log(
      `    events/s over ${seconds.toFixed(0)} s: lanes ${perSec(lanes.events).toFixed(1)} (${lanes.workflows} lanes, ${lanes.events} events), ` +
        `allocator ${perSec(allocator.events).toFixed(1)} (${allocator.events} events), jobs ${perSec(jobs.events).toFixed(1)} (${jobs.workflows} jobs); ` +
        `${((lanes.events + allocator.events + jobs.events) / Math.max(1, created())).toFixed(2)} history events per request`,
    );
    const ok =
      result.state === 'finished' &&
      created() === total &&
      limited === 0 &&
      aggregate >= 0.95 &&
      starvedAppWindows === 0;
    console.log(
      `BENCH_RESULT ${JSON.stringify({
        package: 'temporal-workflows',
        name: `scale: ${sellers} OAuth sellers × ${sellerItems}, app ${appLimit}/min`,
        requestsPerSec: Number((inSpan(t0, tEnd) / ((tEnd - t0) / 1000 / timeScale)).toFixed(1)),
        non2xx: limited,
        note:
          `${ok ? 'targets met' : 'TARGET MISSED'}: ${aggregate.toFixed(3)} of budget, max gap ${(worstGap / APP_WINDOW_MS).toFixed(2)} budget windows, ` +
          `lanes ${perSec(lanes.events).toFixed(0)} ev/s, allocator ${perSec(allocator.events).toFixed(1)} ev/s; load ${load}`,
      })}`,
    );
    return { ok, aggregate, limited, worstGap, starvedSellerWindows };
  } finally {
    await worker.stop();
    await sim.close();
    await temporal.stop();
  }
}

await runWhenMain(import.meta.url, run, (r) => r.ok);
