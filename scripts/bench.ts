// `pnpm bench`: runs every package's benchmarks (packages/*/bench/*.bench.ts), one process each, and
// prints one table. A benchmark prints what it likes plus `BENCH_RESULT {json}` lines with at least
// { package, name, requestsPerSec } (optional: latencyP50Ms, latencyP99Ms, non2xx, errors, note).
// `pnpm bench <word>…` runs only the files whose path contains one of the words (`pnpm bench scale`: the
// scale benches, left out of a plain `pnpm bench`).
// Sizes reach a bench through its environment variables (e.g. `SCALE_ITEMS=5000 pnpm bench scale`; each
// bench's header lists its own).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packagesDir = join(root, 'packages');

interface Result {
  package: string;
  name: string;
  requestsPerSec?: number;
  latencyP50Ms?: number;
  latencyP99Ms?: number;
  non2xx?: number;
  errors?: number;
  note?: string;
}

function benchFiles(): string[] {
  const files: string[] = [];
  for (const pkg of readdirSync(packagesDir).sort()) {
    const dir = join(packagesDir, pkg, 'bench');
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.bench.ts')) files.push(join(dir, f));
  }
  return files;
}

function runBench(file: string): Promise<{ code: number | null; results: Result[] }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const results: Result[] = [];
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('BENCH_RESULT '))
          results.push(JSON.parse(line.slice('BENCH_RESULT '.length)) as Result);
        else console.log(`  ${line}`);
      }
    });
    child.on('exit', (code) => resolve({ code, results }));
  });
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const last = widths.length - 1;
  const line = (r: string[]) =>
    r
      .map((cell, i) =>
        i >= 2 && i <= 6 ? cell.padStart(widths[i]!) : i === last ? cell : cell.padEnd(widths[i]!),
      )
      .join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

const only = process.argv.slice(2).filter((a) => a !== '--');
// The scale benches (100,000 items, 500 sellers: ~25 min) run only when asked for by name.
const OPT_IN = /scale-/;
const files = benchFiles().filter((f) =>
  only.length ? only.some((w) => relative(root, f).includes(w)) : !OPT_IN.test(f),
);
if (files.length === 0) {
  console.log('no benchmarks found (packages/*/bench/*.bench.ts)');
  process.exit(0);
}
const all: Result[] = [];
let failed = false;
for (const file of files) {
  console.log(`> ${relative(root, file)}`);
  const { code, results } = await runBench(file);
  if (code !== 0) {
    failed = true;
    console.log(`  exited with code ${code}`);
  }
  all.push(...results);
}

const fmt = (n: number | undefined, digits = 0) =>
  n === undefined ? '-' : n.toLocaleString('en-US', { maximumFractionDigits: digits });
const rows = [
  ['package', 'benchmark', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'note'],
  ...all.map((r) => [
    r.package,
    r.name,
    fmt(r.requestsPerSec),
    fmt(r.latencyP50Ms, 2),
    fmt(r.latencyP99Ms, 2),
    fmt(r.non2xx),
    fmt(r.errors),
    r.note ?? '',
  ]),
];
console.log(`\n${table(rows)}`);
process.exit(failed ? 1 : 0);
