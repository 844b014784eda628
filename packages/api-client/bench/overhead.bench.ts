// Per-call overhead of the client against raw undici, on the same simulator endpoint in one run.
// The simulator runs with rate limits lifted; every side keeps its connections alive. Rounds rotate
// the order of the sides so machine noise hits them alike; ratios compare median per-call latencies.
// The client is measured with its default transport (undici) and with the got transport.
//
//   node packages/api-client/bench/overhead.bench.ts [--calls 3000] [--rounds 6] [--concurrency 16]
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { startSimulator, createSeller, createApiKey, addAddress } from '@selling-kit/simulator';
import { createClient, createGotTransport, createUndiciTransport } from '../src/index.ts';

export interface BenchOptions {
  /** Sequential calls per side (split over the rounds). Default 3000. */
  calls?: number;
  /** Rounds rotating the sides. Default 6. */
  rounds?: number;
  /** In-flight calls in the concurrent pass. Default 16. */
  concurrency?: number;
  /** Print the table. Default true. */
  print?: boolean;
}

export interface SideResult {
  name: string;
  medianUs: number;
  concurrentRps: number;
  /** Median latency ÷ raw undici's (1 for raw undici itself). */
  ratio: number;
  concurrentRatio: number;
}

export interface BenchResult {
  endpoint: string;
  calls: number;
  concurrency: number;
  sides: SideResult[];
  /** The client with its default transport ÷ raw undici (target ≤ 1.5). */
  ratio: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const calls = options.calls ?? 3000;
  const rounds = options.rounds ?? 6;
  const concurrency = options.concurrency ?? 16;
  const sim = await startSimulator({ port: 0, config: { rateLimitsEnabled: false, fetchPictures: false } });
  const seller = createSeller(sim.world, { username: 'bench-shop' });
  addAddress(sim.world, seller);
  const { key } = createApiKey(sim.world, 'partner-bench', seller.id);
  const path = '/api/v1/shop/';
  const url = sim.url + path;
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  const undiciTransport = createUndiciTransport();
  const gotTransport = createGotTransport();
  // The simulator's limits are lifted; pacing stays on (its bookkeeping is part of the overhead).
  const pacing = { allowances: { general: { limit: 1_000_000_000, windowMs: 60_000 } } };
  const client = createClient({ baseUrl: sim.url, apiKey: key, transport: undiciTransport, pacing });
  const gotClient = createClient({ baseUrl: sim.url, apiKey: key, transport: gotTransport, pacing });

  const sides: { name: string; fn: () => Promise<void> }[] = [
    {
      name: 'raw undici',
      fn: async () => {
        const res = await request(url, {
          method: 'GET',
          headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
          dispatcher,
        });
        const body = (await res.body.json()) as { id: number };
        if (res.statusCode !== 200 || typeof body.id !== 'number')
          throw new Error(`raw call failed: ${res.statusCode}`);
      },
    },
    {
      name: 'client (undici, default)',
      fn: async () => {
        if (typeof (await client.shop.get()).id !== 'number') throw new Error('client call failed');
      },
    },
    {
      name: 'client (got)',
      fn: async () => {
        if (typeof (await gotClient.shop.get()).id !== 'number') throw new Error('client call failed');
      },
    },
  ];

  const timeEach = async (fn: () => Promise<void>, n: number, out: number[]) => {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await fn();
      out.push(performance.now() - t0);
    }
  };
  const throughput = async (fn: () => Promise<void>, n: number) => {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < n) await fn();
      }),
    );
    return (n / (performance.now() - t0)) * 1000;
  };

  try {
    for (const side of sides) await timeEach(side.fn, 500, []); // warm-up: JIT, sockets, zod
    const times = sides.map(() => [] as number[]);
    const perRound = Math.ceil(calls / rounds);
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < sides.length; k++) {
        const i = (k + r) % sides.length;
        await timeEach(sides[i]!.fn, perRound, times[i]!);
      }
    }
    const rps: number[] = [];
    for (const side of sides) rps.push(await throughput(side.fn, calls));
    const medians = times.map((t) => median(t) * 1000);
    const results: SideResult[] = sides.map((side, i) => ({
      name: side.name,
      medianUs: Math.round(medians[i]!),
      concurrentRps: Math.round(rps[i]!),
      ratio: Number((medians[i]! / medians[0]!).toFixed(2)),
      concurrentRatio: Number((rps[0]! / rps[i]!).toFixed(2)),
    }));
    const result: BenchResult = {
      endpoint: `GET ${path}`,
      calls: times[0]!.length,
      concurrency,
      sides: results,
      ratio: results[1]!.ratio,
    };
    if (options.print ?? true) {
      console.log(`api-client per-call overhead vs raw undici — ${result.endpoint} on the simulator`);
      console.log(
        `  ${result.calls} sequential calls per side (median), then ${calls} at concurrency ${concurrency}`,
      );
      for (const s of results) {
        console.log(
          `  ${s.name.padEnd(26)} ${String(s.medianUs).padStart(6)} µs/call  ${String(s.ratio).padStart(5)}×   ` +
            `${String(s.concurrentRps).padStart(6)} calls/s  ${String(s.concurrentRatio).padStart(5)}×`,
        );
      }
      console.log(
        `  client ratio ${result.ratio}× (target ≤ 1.5×) ${result.ratio <= 1.5 ? 'OK' : 'ABOVE TARGET'}`,
      );
    }
    return result;
  } finally {
    await Promise.all([undiciTransport.close(), dispatcher.close()]);
    gotTransport.close();
    await sim.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i === -1 ? undefined : Number(process.argv[i + 1]);
  };
  await run({ calls: arg('calls'), concurrency: arg('concurrency'), rounds: arg('rounds') });
}
