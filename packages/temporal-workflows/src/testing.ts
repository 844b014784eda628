// Test fixtures of the job side (`@selling-kit/temporal-workflows/testing`): the one way tests, benches
// and the chaos harness start a Temporal dev server (the CLI built by scripts/setup.sh), and the CSV feed
// rows they list. No Temporal SDK import: jest's global set-up loads this file into jest's own process,
// which a loaded SDK runtime would keep from exiting (readiness is asked through the CLI instead).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@selling-kit/simulator/testing';
import { SEARCH_ATTRIBUTE_FLAGS } from './search-attributes.ts';

const run = promisify(execFile);

/**
 * Stops a child process: `signal` (SIGTERM: a clean shutdown), then SIGKILL when it has not exited after
 * `graceMs` (a stop that hangs becomes a crash). Resolves once it has exited, at once if it already had.
 */
export async function stopChild(
  child: ChildProcess,
  graceMs: number,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Update-with-start (the lanes and the app budget); on by default in recent servers, explicit here. */
export const MULTI_OPERATION_CONFIG = 'frontend.enableExecuteMultiOperation=true';

/** The Temporal CLI scripts/setup.sh built (TEMPORAL_CLI_PATH, set by scripts/env.sh). */
export function temporalCliPath(): string {
  const bin = process.env.TEMPORAL_CLI_PATH;
  if (!bin)
    throw new Error(
      'TEMPORAL_CLI_PATH is not set: run `source scripts/env.sh` (scripts/setup.sh builds the Temporal CLI)',
    );
  return bin;
}

export interface DevServerFlags {
  dbFile: string;
  port: number;
  uiPort: number;
  /** The HTTP API (the n8n Bulk Job node's way in); none when absent. */
  httpPort?: number;
  /** `key=value` server settings, after the multi-operation one. */
  dynamicConfig?: string[];
}

/** `temporal server start-dev` on 127.0.0.1, headless, quiet, with the jobs' search attributes. */
export function devServerArgs(flags: DevServerFlags): string[] {
  return [
    'server',
    'start-dev',
    ...['--db-filename', flags.dbFile, '--ip', '127.0.0.1', '--port', String(flags.port)],
    ...(flags.httpPort === undefined ? [] : ['--http-port', String(flags.httpPort)]),
    ...['--ui-port', String(flags.uiPort), '--headless', '--log-level', 'error'],
    ...[MULTI_OPERATION_CONFIG, ...(flags.dynamicConfig ?? [])].flatMap((kv) => [
      '--dynamic-config-value',
      kv,
    ]),
    // The search attributes jobs carry (src/search-attributes.ts).
    ...SEARCH_ATTRIBUTE_FLAGS,
  ];
}

/** Whether the server at `address` answers and its default namespace exists (asked through the CLI). */
export async function namespaceAnswers(bin: string, address: string): Promise<boolean> {
  try {
    await run(bin, ['operator', 'namespace', 'describe', '--namespace', 'default', '--address', address], {
      timeout: 5000,
    });
    return true;
  } catch {
    return false;
  }
}

export interface DevServer {
  /** gRPC `host:port`. */
  address: string;
  /** Set when started with `http: true`. */
  httpUrl?: string;
  dir: string;
  process: ChildProcess;
  /** SIGTERM, SIGKILL after 10 s; resolves once the server has exited. */
  stop(): Promise<void>;
}

/**
 * A dev server on free loopback ports with its data file in `dir` (a new temp folder by default);
 * resolves once the default namespace answers (60 s at most).
 */
export async function startDevServer(
  options: { dir?: string; http?: boolean; dynamicConfig?: string[]; timeoutMs?: number } = {},
): Promise<DevServer> {
  const bin = temporalCliPath();
  const [port, uiPort] = [await freePort(), await freePort()];
  const httpPort = options.http ? await freePort() : undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'sk-temporal-'));
  const server = spawn(
    bin,
    devServerArgs({
      dbFile: join(dir, 'temporal.db'),
      port,
      uiPort,
      ...(httpPort === undefined ? {} : { httpPort }),
      ...(options.dynamicConfig ? { dynamicConfig: options.dynamicConfig } : {}),
    }),
    { stdio: 'ignore' },
  );
  const address = `127.0.0.1:${port}`;
  const stop = () => stopChild(server, 10_000);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const httpUrl = httpPort === undefined ? undefined : `http://127.0.0.1:${httpPort}`;
  // Ready: the default namespace answers over gRPC (and over the HTTP API, when it is on).
  const httpAnswers = () =>
    httpUrl === undefined
      ? Promise.resolve(true)
      : fetch(`${httpUrl}/api/v1/namespaces/default`).then(
          (r) => r.ok,
          () => false,
        );
  while (!(await namespaceAnswers(bin, address)) || !(await httpAnswers())) {
    if (Date.now() > deadline || server.exitCode !== null) {
      await stop();
      throw new Error(`Temporal dev server did not start on ${address}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return {
    address,
    ...(httpUrl === undefined ? {} : { httpUrl }),
    dir,
    process: server,
    stop,
  };
}

/** The columns of a CSV feed (src/activities/feed.ts), in the order the examples use. */
export const FEED_HEADER =
  'sku,description,price_amount,price_currency,quantity,national_shipping_cost,pictures,department,product_type,condition,brand_name,country_code';

/** One valid feed row (the values of the simulator's `validListing()`), with any of its varying cells. */
export const feedRow = (
  sku: string,
  cells: { description?: string; price?: string; picture?: string } = {},
) =>
  [
    sku,
    cells.description ?? 'Vintage tee #nike',
    cells.price ?? '20.00',
    'GBP',
    1,
    '3.50',
    cells.picture ?? 'https://img.example/x.jpg',
    'menswear',
    'tshirts',
    'used_good',
    'Nike',
    'GB',
  ].join(',');
