#!/usr/bin/env node
// selling-kit-simulator: runs the simulator until interrupted.
//   selling-kit-simulator --port 4010 --demo
//   selling-kit-simulator --port 0 --seed seed.json --time-scale 10 --admin-port 4011
// The admin token comes from SELLING_KIT_SIMULATOR_ADMIN_TOKEN or --admin-token-file, never argv (other
// local users read argv with `ps`); bound to a non-loopback address without one, a random token is
// generated into a private file whose path is printed (never the token).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { isLoopbackHost } from '@selling-kit/api-client/core';
import { ADMIN_TOKEN_ENV } from './admin.ts';
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
  .option(
    '--admin-token-file <file>',
    `require "Authorization: Bearer <token>" on the admin listener, the token read from this file (or set ${ADMIN_TOKEN_ENV}; a non-loopback --host without one generates one)`,
  )
  // Refused with a message (a token on argv is visible to every local user); hidden from the help.
  .addOption(new Option('--admin-token <token>').hideHelp())
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
  adminTokenFile?: string;
  readAfterCreateDelay: number;
}>();

if (opts.adminToken !== undefined) {
  console.error(
    `selling-kit-simulator: --admin-token is refused (argv is visible to every local user): set ${ADMIN_TOKEN_ENV} or pass --admin-token-file <file>`,
  );
  process.exit(2);
}

/** The admin token: the file's, the environment's, or (non-loopback bind) a new one in a private file. */
function adminToken(): { token?: string; generatedIn?: string } {
  if (opts.adminTokenFile) {
    let token: string;
    try {
      token = readFileSync(opts.adminTokenFile, 'utf8').trim();
    } catch (e) {
      throw new Error(
        `--admin-token-file ${opts.adminTokenFile} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    if (!token) throw new Error(`--admin-token-file ${opts.adminTokenFile} is empty`);
    return { token };
  }
  const fromEnv = process.env[ADMIN_TOKEN_ENV]?.trim();
  if (fromEnv) return { token: fromEnv };
  if (isLoopbackHost(opts.host)) return {};
  // mkdtemp: a fresh 0700 folder of our own, so no other user can pre-create or read the file.
  const generatedIn = join(mkdtempSync(join(tmpdir(), 'selling-kit-simulator-')), 'admin-token');
  const token = randomBytes(32).toString('base64url');
  writeFileSync(generatedIn, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, generatedIn };
}

try {
  const admin = adminToken();
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
      adminToken: admin.token,
      readAfterCreateDelayMs: opts.readAfterCreateDelay,
    },
  });
  const lines = ['selling-kit simulator is running', `  API:    ${sim.url}`, `  Admin:  ${sim.adminUrl}`];
  if (admin.generatedIn)
    lines.push(`  Admin token: generated, in ${admin.generatedIn} (send "Authorization: Bearer <token>")`);
  else if (admin.token) lines.push('  Admin token: required (the one you set)');
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
