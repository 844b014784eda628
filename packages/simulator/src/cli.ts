#!/usr/bin/env node
// selling-kit-simulator: runs the simulator until interrupted.
//   selling-kit-simulator --port 4010 --demo
//   selling-kit-simulator --port 0 --seed seed.json --time-scale 10 --admin-port 4011
import { Command, InvalidArgumentError } from 'commander';
import { startSimulator } from './index.ts';

function int(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return n;
  };
}

function positive(value: string): number {
  const n = Number(value);
  if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError('must be a number > 0');
  return n;
}

const program = new Command()
  .name('selling-kit-simulator')
  .description('Stateful local simulator of the marketplace Selling API.')
  .option('-p, --port <n>', 'API port (0 = any free port)', int('port', 0), 4010)
  .option(
    '--admin-port <n>',
    'admin port (0 = any free port; default: API port + 1, or any when the API port is 0)',
    int('admin port', 0),
  )
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--demo', 'seed the documented demo shop, API key, addresses and listings', false)
  .option('--seed <file>', 'load a JSON seed file (see README "Seed file")')
  .option(
    '--time-scale <k>',
    'simulated seconds per real second (10 = windows and expiries 10× shorter)',
    positive,
    1,
  )
  .option('--random-seed <n>', 'seed of the fault generator', int('random seed', 0), 1)
  .option('--no-rate-limits', 'lift every rate limit (benchmarks)')
  .option('--no-fetch-pictures', 'accept picture URLs without downloading them')
  .option('--admin-token <token>', 'require "Authorization: Bearer <token>" on the admin listener')
  .option(
    '--read-after-create-delay <ms>',
    'simulated ms before a new listing can be read by key',
    int('delay', 0),
    0,
  );

program.parse();
const opts = program.opts<{
  port: number;
  adminPort?: number;
  host: string;
  demo: boolean;
  seed?: string;
  timeScale: number;
  randomSeed: number;
  rateLimits: boolean;
  fetchPictures: boolean;
  adminToken?: string;
  readAfterCreateDelay: number;
}>();

try {
  const sim = await startSimulator({
    port: opts.port,
    adminPort: opts.adminPort ?? (opts.port === 0 ? 0 : opts.port + 1),
    host: opts.host,
    demo: opts.demo,
    seed: opts.seed,
    config: {
      timeScale: opts.timeScale,
      seed: opts.randomSeed,
      rateLimitsEnabled: opts.rateLimits,
      fetchPictures: opts.fetchPictures,
      adminToken: opts.adminToken,
      readAfterCreateDelayMs: opts.readAfterCreateDelay,
    },
  });
  const lines = ['selling-kit simulator is running', `  API:    ${sim.url}`, `  Admin:  ${sim.adminUrl}`];
  if (opts.timeScale !== 1)
    lines.push(`  Time scale: ${opts.timeScale}× (simulated seconds per real second)`);
  if (!opts.rateLimits) lines.push('  Rate limits: off');
  const demo = sim.demo;
  if (demo) {
    lines.push(
      `  Demo shop: ${demo.username} (seller ${demo.sellerId})`,
      `  Demo API key: ${demo.apiKey}`,
      `  Demo listings: ${demo.listings.length}`,
      `  Try: curl -H "Authorization: Bearer ${demo.apiKey}" ${sim.url}/api/v1/shop/`,
    );
    for (const w of demo.warnings) lines.push(`  Warning: ${w}`);
  }
  console.log(lines.join('\n'));

  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(`received ${signal}, shutting down`);
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (e) {
  console.error(`selling-kit-simulator: ${(e as Error).message}`);
  process.exit(1);
}
