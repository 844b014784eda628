// What the native topology tests share: the worker service's environment (compose's files with this
// machine's paths), a seller whose API key is in that worker's credentials file, a feed of valid
// listings, the CLI's detached create job, and processes (the CLI, a worker) run with an environment of
// their own.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addAddress, createApiKey, createSeller, type RunningSimulator } from '@selling-kit/simulator';
import { HEADER, row } from '../helpers.ts';
import { nativeEnv } from './deploy-env.ts';

/**
 * The worker service's environment (temporal-client.env + worker.env) with this machine's address and
 * paths under `dir`, its token store and job store (compose: the selling_kit database; a folder under
 * `dir` unless given), and the secrets compose takes from .env.
 */
export const workerServiceEnv = (
  dir: string,
  address: string,
  tokenStore: string,
  jobStore: string = join(dir, 'jobs'),
) =>
  nativeEnv(
    ['temporal-client.env', 'worker.env'],
    {
      TEMPORAL_ADDRESS: address,
      SELLING_KIT_CREDENTIALS: join(dir, 'credentials.json'),
      SELLING_KIT_CLIENT_KEYS: join(dir, 'client-keys.json'),
      SELLING_KIT_TOKEN_STORE: tokenStore,
      SELLING_KIT_JOB_STORE: jobStore,
      SELLING_KIT_KEY_FILE: join(dir, 'codec.key'),
    },
    {
      SELLING_KIT_CODEC_KEY: randomBytes(32).toString('base64'),
      SELLING_KIT_TOKEN_STORE_KEY: randomBytes(32).toString('base64'),
      SELLING_KIT_HOME: dir,
      // The tests' feeds are files in the run folder (compose sets no root: n8n sends inline feeds).
      SELLING_KIT_FEED_ROOTS: dir,
    },
  );

/** A seller with an address and an API key of `partnerId`, the key written as `shop` to `credentialsPath`. */
export function sellerWithKey(
  sim: RunningSimulator,
  seller: { username: string; partnerId: string },
  shop: string,
  credentialsPath: string,
) {
  const created = createSeller(sim.world, { username: seller.username });
  addAddress(sim.world, created);
  const apiKey = createApiKey(sim.world, seller.partnerId, created.id).key;
  writeFileSync(credentialsPath, JSON.stringify({ [shop]: { baseUrl: sim.url, apiKey } }), { mode: 0o600 });
  return { seller: created, apiKey };
}

/** `<dir>/feed.csv`: `items` valid listings `<prefix>-1…items` → its path and SKUs. */
export function writeTopologyFeed(dir: string, prefix: string, items: number) {
  const feed = join(dir, 'feed.csv');
  const skus = Array.from({ length: items }, (_, i) => `${prefix}-${i + 1}`);
  writeFileSync(feed, [HEADER, ...skus.map((s, i) => row(s, i))].join('\n') + '\n');
  return { feed, skus };
}

/**
 * The CLI's arguments for a create job of `feed` on `shop`, started as `jobId` and left running
 * (`--detach`): how the compose and native deployment tests start the job they then watch.
 */
export const detachedCreateArgs = (feed: string, shop: string, jobId: string): string[] => [
  '--json',
  'bulk',
  feed,
  '--shop',
  shop,
  '--op',
  'create',
  '--job-id',
  jobId,
  '--detach',
];

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Where a process runs: its environment besides PATH, and HOME (as a shell gives them). */
export interface NodeEnv {
  env: Record<string, string>;
  home: string | undefined;
}

const spawnNode = (argv: string[], { env, home }: NodeEnv) =>
  spawn(process.execPath, argv, {
    env: { PATH: process.env.PATH, HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** Node with `argv` run to its end; fails after `timeoutMs`, naming the run as `label`. */
export function runNode(
  argv: string[],
  where: NodeEnv,
  timeoutMs = 60_000,
  label = argv.join(' '),
): Promise<Ran> {
  return runToEnd(spawnNode(argv, where), timeoutMs, label);
}

/**
 * A spawned process (stdout and stderr piped) run to its end, its output collected; killed and failed
 * after `timeoutMs`, naming it as `label`. Every topology test's run-and-wait of a command.
 */
export function runToEnd(child: ChildProcess, timeoutMs: number, label: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label} did not end in ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A long-running node process (kept in `children`), resolved once `ready` is in its output (stdout + stderr). */
export async function startNode(
  argv: string[],
  where: NodeEnv,
  ready: string,
  children: ChildProcess[],
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawnNode(argv, where);
  children.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 90_000);
    const on = (d: Buffer) => {
      output += d.toString();
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}):\n${output}`));
    });
  });
  return { child, output: () => output };
}
