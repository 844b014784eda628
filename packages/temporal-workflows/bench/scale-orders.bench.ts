// Scale, order flows (issue 26 §5): N orders (default 10,000) spread over S sellers of a simulator, each with
// its order flow, all on one worker in a process of its own (`worker-main`), its order events to a local
// endpoint. Measures and prints:
//  - start: N flows started (client), and how long until every hand-off (`order.ready`) arrived;
//  - waiting: the worker's RSS and CPU while N flows sit on their timers (a minute), and the workflow
//    tasks it served meanwhile (poll load: none expected);
//  - the first reminder of every flow (all due at once, the worst case): how long until all arrived, 429s;
//  - shipping: `shipOrder` on a sample of the orders, latency p50 / p99, and one flow's history length.
//   node packages/temporal-workflows/bench/scale-orders.bench.ts [--orders 10000] [--sellers 100]
//     [--ship 200] [--remind-after-s 240]   (or SCALE_ORDERS / SCALE_ORDER_SELLERS / SCALE_SHIP /
//     SCALE_REMIND_AFTER_S)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addAddress, createApiKey, createSeller, startSimulator } from '@selling-kit/simulator';
import { createListing } from '../../simulator/src/domain/products.ts';
import { createOrder } from '../../simulator/src/domain/orders.ts';
import { validListing } from '@selling-kit/simulator/testing';
import { shipOrder, startOrderFlow } from '../src/client/orders-client.ts';
import { orderWorkflowId } from '../src/contract.ts';
import {
  gateway429s,
  loadAverage,
  openBench,
  param,
  percentile,
  runWhenMain,
  sampleRss,
  sleep,
  spawnBenchWorker,
} from './harness.ts';

/** CPU seconds (user + system) a process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A local endpoint counting the order events it is sent, by kind. */
async function eventsEndpoint() {
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { event } = JSON.parse(Buffer.concat(chunks).toString()) as { event: string };
      counts.set(event, (counts.get(event) ?? 0) + 1);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`,
    count: (event: string) => counts.get(event) ?? 0,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Waits until `done()` or `ms` passed; the seconds it took (or NaN). */
async function until(done: () => boolean, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!done()) {
    if (Date.now() - t0 > ms) return NaN;
    await sleep(250);
  }
  return (Date.now() - t0) / 1000;
}

export async function run(
  orders = param('orders', 'SCALE_ORDERS', 10_000),
  sellers = param('sellers', 'SCALE_ORDER_SELLERS', 100),
  ship = param('ship', 'SCALE_SHIP', 200),
  remindAfterS = param('remind-after-s', 'SCALE_REMIND_AFTER_S', 240),
) {
  const { dir, temporal } = await openBench('sk-bench-orders-');
  const sim = await startSimulator({ port: 0, config: { timeScale: 1, fetchPictures: false } });
  const events = await eventsEndpoint();
  // The orders: one listing sold in each, spread over the sellers (each seller's general group: 6,000 a minute).
  const credentials: Record<string, { baseUrl: string; apiKey: string }> = {};
  const flows: { shopId: string; purchaseId: string }[] = [];
  for (let s = 0; s < sellers; s++) {
    const seller = createSeller(sim.world, { username: `orders-${s}` });
    addAddress(sim.world, seller);
    const shopId = `orders-${s}`;
    credentials[shopId] = {
      baseUrl: sim.url,
      apiKey: createApiKey(sim.world, 'partner-orders', seller.id).key,
    };
    for (let i = s; i < orders; i += sellers) {
      const product = await createListing(
        sim.world,
        sim.config,
        seller,
        validListing({ sku: `O-${i}` }) as never,
        {
          now: sim.world.clock.now(),
          skipPictureFetch: true,
        },
      );
      const order = createOrder(sim.world, seller, [product.productId], {
        now: sim.world.clock.now(),
        events: { emit: () => undefined },
      });
      flows.push({ shopId, purchaseId: order.purchaseId });
    }
  }
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify(credentials));
  const { taskQueue, worker } = await spawnBenchWorker(temporal, dir, 'orders', {
    SELLING_KIT_CREDENTIALS: join(dir, 'credentials.json'),
    SELLING_KIT_ORDER_EVENTS_URL: events.url,
  });
  const rss = sampleRss(worker.pid, () => events.count('order.ready'));
  const ticker = setInterval(
    () =>
      console.log(
        `    … ${events.count('order.ready')} hand-offs, ${events.count('order.reminder') + events.count('order.at_risk')} reminders, worker RSS ${(rss.samples.at(-1)!.kib / 1024).toFixed(0)} MiB`,
      ),
    30_000,
  );
  try {
    // Every flow's first reminder a little after the last has started: all due together (the worst case).
    const t0 = Date.now();
    const firstReminderAt = remindAfterS * 1000;
    const reminders = {
      afterMs: [firstReminderAt],
      atRiskEveryMs: 86_400_000,
      giveUpAfterMs: 7 * 86_400_000,
    };
    for (let i = 0; i < flows.length; i += 100)
      await Promise.all(
        flows
          .slice(i, i + 100)
          .map(({ shopId, purchaseId }) =>
            startOrderFlow(
              temporal.client,
              { purchaseId, shop: { shopId, credentialRef: shopId }, reminders },
              taskQueue,
            ),
          ),
      );
    const startS = (Date.now() - t0) / 1000;
    const handOffS = await until(() => events.count('order.ready') >= orders, firstReminderAt);
    console.log(
      `  ${orders} order flows over ${sellers} sellers on one worker: started in ${startS.toFixed(1)} s, every hand-off after ${((Date.now() - t0) / 1000).toFixed(1)} s (${events.count('order.ready')} order.ready)`,
    );
    // Waiting on timers: a minute of the worker's CPU and RSS (less, before an early first reminder).
    const cpu0 = cpuSeconds(worker.pid);
    const idleFrom = rss.samples.length;
    const idleMs = Math.min(60_000, Math.max(5_000, t0 + firstReminderAt - Date.now() - 5_000));
    await sleep(idleMs);
    const idleCpu = ((cpuSeconds(worker.pid) - cpu0) * 60_000) / idleMs;
    const idle = rss.samples.slice(idleFrom).map((s) => s.kib / 1024);
    console.log(
      `    waiting (a minute, ${orders} flows on timers): worker CPU ${idleCpu.toFixed(1)} s per 60 s, RSS median ${percentile(idle, 50).toFixed(0)} MiB, max ${Math.max(...idle).toFixed(0)} MiB`,
    );
    // Every first reminder at once.
    const remindS = await until(
      () => events.count('order.reminder') + events.count('order.at_risk') >= orders,
      Math.max(0, t0 + firstReminderAt - Date.now()) + 10 * 60_000,
    );
    const limited = await gateway429s(sim);
    console.log(
      `    the first reminder of every flow, due together: all ${orders} delivered ${remindS.toFixed(1)} s after the first was due (${limited} × 429 at the gateway)`,
    );
    // Shipping a sample, one after another.
    const latencies: number[] = [];
    for (const { shopId, purchaseId } of flows.slice(0, ship)) {
      const t = performance.now();
      const r = await shipOrder(
        temporal.client,
        { shopId, purchaseId },
        { carrier: 'DPD', trackingCode: `T${purchaseId.slice(0, 8)}` },
      );
      if (r.status !== 'shipped') throw new Error(`order ${purchaseId}: ${JSON.stringify(r)}`);
      latencies.push(performance.now() - t);
    }
    const first = flows[0]!;
    const { historyLength } = await temporal.client.workflow
      .getHandle(orderWorkflowId(first.shopId, first.purchaseId))
      .describe();
    const all = rss.samples.map((s) => s.kib / 1024);
    console.log(
      `    mark-as-shipped through the flow (${ship} orders, one at a time): p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms; a shipped flow's history ${historyLength} events; worker RSS max ${Math.max(...all).toFixed(0)} MiB; load average ${loadAverage()}`,
    );
    const ok = events.count('order.ready') >= orders && Number.isFinite(remindS) && historyLength < 200;
    console.log(
      `BENCH_RESULT ${JSON.stringify({
        package: 'temporal-workflows',
        name: `scale: ${orders} order flows on one worker`,
        latencyP50Ms: Number(percentile(latencies, 50).toFixed(1)),
        latencyP99Ms: Number(percentile(latencies, 99).toFixed(1)),
        non2xx: limited,
        note:
          `${ok ? 'targets met' : 'TARGET MISSED'}: start ${startS.toFixed(0)} s, hand-offs ${handOffS.toFixed(0)} s, ` +
          `idle CPU ${idleCpu.toFixed(1)} s/min, RSS max ${Math.max(...all).toFixed(0)} MiB, all reminders ${remindS.toFixed(0)} s, ${historyLength} events/flow`,
      })}`,
    );
    return { ok, startS, handOffS, idleCpu, remindS, historyLength };
  } finally {
    clearInterval(ticker);
    rss.stop();
    await worker.stop();
    await events.close();
    await sim.close();
    await temporal.stop();
  }
}

await runWhenMain(import.meta.url, run, (r) => r.ok);
