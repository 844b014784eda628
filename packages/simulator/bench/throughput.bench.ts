// Throughput of the simulator on 127.0.0.1 with rate limits lifted: GET by SKU and PUT by SKU (plus
// GET /status as a baseline). The simulator runs in its own process (the CLI with --demo) so the load
// generator (autocannon, in this process) does not share its event loop.
//   node packages/simulator/bench/throughput.bench.ts        (BENCH_DURATION=seconds per case, default 3)
// Prints a human summary, then one `BENCH_RESULT {json}` line per case for scripts/bench.ts.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { DEMO, demoListings } from '../src/demo.ts';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const DURATION = Number(process.env.BENCH_DURATION ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

interface Case {
  name: string;
  method: 'GET' | 'PUT';
  path: string;
  body?: string;
  auth: boolean;
  note?: string;
}

export interface BenchResult {
  package: string;
  name: string;
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
  note?: string;
}

async function startSimulator(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [CLI, '--port', '0', '--admin-port', '0', '--demo', '--no-rate-limits', '--no-fetch-pictures'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /API:\s+(\S+)/.exec(out);
      if (m && /Demo listings:/.test(out)) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`simulator exited (${code}):\n${out}`)));
  });
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function works(url: string, c: Case): Promise<boolean> {
  const res = await fetch(url + c.path, {
    method: c.method,
    headers: { authorization: `Bearer ${DEMO.apiKey}`, 'content-type': 'application/json' },
    body: c.body,
  });
  await res.arrayBuffer();
  return res.status === 200;
}

async function run(url: string, c: Case): Promise<BenchResult> {
  const options = {
    url: url + c.path,
    method: c.method,
    headers: {
      ...(c.auth ? { authorization: `Bearer ${DEMO.apiKey}` } : {}),
      ...(c.body ? { 'content-type': 'application/json' } : {}),
    },
    body: c.body,
    connections: CONNECTIONS,
  };
  await autocannon({ ...options, duration: 1 }); // warm-up (JIT, connection pool)
  const r = await autocannon({ ...options, duration: DURATION });
  return {
    package: 'simulator',
    name: c.name,
    requestsPerSec: Math.round(r.requests.average),
    latencyP50Ms: r.latency.p50,
    latencyP99Ms: r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    note: c.note,
  };
}

const sim = await startSimulator();
try {
  const sku = DEMO.skus[0];
  const { sku: _omit, ...putBody } = demoListings(sim.url)[0]!;
  const getBySku: Case = {
    name: 'GET by SKU',
    method: 'GET',
    path: `/api/v1/products/by-sku/${sku}/`,
    auth: true,
  };
  const putBySku: Case = {
    name: 'PUT by SKU',
    method: 'PUT',
    path: `/api/v1/products/by-sku/${sku}/`,
    body: JSON.stringify({ ...putBody, attributes: {} }),
    auth: true,
  };
  const fallback: Case = {
    name: 'GET /api/v1/shop/ (authenticated)',
    method: 'GET',
    path: '/api/v1/shop/',
    auth: true,
  };
  const cases: Case[] = [{ name: 'GET /status', method: 'GET', path: '/status', auth: false }];
  for (const c of [getBySku, putBySku]) {
    if (await works(sim.url, c)) cases.push(c);
    else
      cases.push({
        ...fallback,
        note: `${c.name} unavailable (products handlers missing); measured ${fallback.name}`,
      });
  }
  const results: BenchResult[] = [];
  for (const c of cases) {
    const r = await run(sim.url, c);
    results.push(r);
    console.log(
      `${r.name.padEnd(36)} ${String(r.requestsPerSec).padStart(7)} req/s  p50 ${r.latencyP50Ms} ms  p99 ${r.latencyP99Ms} ms` +
        `  non-2xx ${r.non2xx}  errors ${r.errors}${r.note ? `  (${r.note})` : ''}`,
    );
  }
  for (const r of results) console.log(`BENCH_RESULT ${JSON.stringify(r)}`);
} finally {
  await sim.stop();
}
