// Spawns the real `selling-kit` CLI (node src/main.ts) against the test Temporal server and simulators on
// 127.0.0.1, each test file with its own home folder and task queue; and the bulk feeds and `auth login`
// arguments several test files share.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';

export const CLI = fileURLToPath(new URL('../src/main.ts', import.meta.url));
export const EXAMPLE_FEED = fileURLToPath(new URL('../examples/listings.csv', import.meta.url));

/**
 * Writes `<home>/<prefix>.csv`: the example feed's header, `n` valid creates with SKUs `<prefix>-<i>`, then
 * `extraRows` as given; returns its path. One writer for the CLI tests' bulk feeds, so their rows stay alike.
 */
export function writeCreatesFeed(home: string, prefix: string, n: number, extraRows: string[] = []): string {
  const path = join(home, `${prefix}.csv`);
  const header = readFileSync(EXAMPLE_FEED, 'utf8').split('\n')[0];
  const rows = Array.from(
    { length: n },
    (_, i) =>
      `${prefix}-${i},"Vintage tee ${i} #nike",20.00,GBP,1,3.50,https://img.example/${i}.png,menswear,tshirts,used_good,Nike,GB,black,,,`,
  );
  writeFileSync(path, [header, ...rows, ...extraRows].join('\n') + '\n');
  return path;
}

export interface CliEnv {
  home: string;
  taskQueue: string;
  address: string;
  env: NodeJS.ProcessEnv;
}

export function cliEnv(extra: NodeJS.ProcessEnv = {}): CliEnv {
  const address = process.env.TEMPORAL_TEST_ADDRESS;
  if (!address) throw new Error('TEMPORAL_TEST_ADDRESS is not set (the jest global set-up starts Temporal)');
  const home = mkdtempSync(join(tmpdir(), 'sk-cli-'));
  const taskQueue = `cli-${randomUUID().slice(0, 8)}`;
  return {
    home,
    taskQueue,
    address,
    env: {
      ...process.env,
      SELLING_KIT_HOME: home,
      TEMPORAL_ADDRESS: address,
      SELLING_KIT_TASK_QUEUE: taskQueue,
      // The worker's key, as a real deployment gives it (only `selling-kit dev` mints one).
      SELLING_KIT_CODEC_KEY: randomBytes(32).toString('base64'),
      // Where `selling-kit worker` may read job feeds: the tests' temporary files and the examples.
      SELLING_KIT_FEED_ROOTS: [tmpdir(), dirname(EXAMPLE_FEED)].join(delimiter),
      // and URL feeds served by the tests on 127.0.0.1 over plain http (a local worker only).
      SELLING_KIT_FEED_LOOPBACK_HTTP: '1',
      ...extra,
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (undefined when it is not JSON). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export function runCli(
  ctx: CliEnv,
  args: string[],
  opts: {
    input?: string;
    env?: NodeJS.ProcessEnv;
    /** The folder the command runs in (default: the test's). */
    cwd?: string;
    timeoutMs?: number;
    onStderr?: (text: string, child: ChildProcess) => void;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...ctx.env, ...opts.env },
      cwd: opts.cwd,
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      opts.onStderr?.(stderr, child);
    });
    child.stdin.end(opts.input ?? '');
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `selling-kit ${args.join(' ')} did not end within ${opts.timeoutMs ?? 120_000} ms\n${stderr}`,
        ),
      );
    }, opts.timeoutMs ?? 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
    child.on('error', reject);
  });
}

/** `selling-kit worker` as a child process, ready when it says so. */
export async function startCliWorker(ctx: CliEnv): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, [CLI, 'worker'], {
    env: ctx.env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${stderr}`)), 60_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('Ctrl-C stops it')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}:\n${stderr}`)));
  });
  return {
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    },
  };
}

/**
 * The set-up of the end-to-end files: the demo simulator, a CLI home (`extra` in its environment) with
 * `shops add <name> --api-key-env <variable>` for each of `shops` (name → variable), and its worker.
 */
export async function startCliStack(
  extra: NodeJS.ProcessEnv,
  shops: Record<string, string>,
): Promise<{ sim: RunningSimulator; ctx: CliEnv; worker: { stop(): Promise<void> } }> {
  const sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
  const ctx = cliEnv(extra);
  for (const [name, variable] of Object.entries(shops))
    expect(
      (await runCli(ctx, ['--json', 'shops', 'add', name, '--api-key-env', variable, '--base-url', sim.url]))
        .code,
    ).toBe(0);
  return { sim, ctx, worker: await startCliWorker(ctx) };
}

/** What `cliStackPerFile` starts: filled in when the file starts, so read it inside tests and hooks. */
export interface CliStack {
  sim: RunningSimulator;
  ctx: CliEnv;
  /** `runCli` in this stack's CLI home. */
  cli(args: string[], opts?: Parameters<typeof runCli>[2]): Promise<CliResult>;
}

/**
 * `startCliStack` for a whole test file: started before its first test, the worker stopped and the
 * simulator closed after its last.
 */
export function cliStackPerFile(extra: NodeJS.ProcessEnv, shops: Record<string, string>): CliStack {
  const stack = {} as CliStack;
  let worker: { stop(): Promise<void> } | undefined;
  beforeAll(async () => {
    const started = await startCliStack(extra, shops);
    Object.assign(stack, {
      sim: started.sim,
      ctx: started.ctx,
      cli: (args: string[], opts?: Parameters<typeof runCli>[2]) => runCli(started.ctx, args, opts),
    });
    worker = started.worker;
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    await stack.sim?.close();
  }, 120_000);
  return stack;
}

/**
 * Asserts that a `--json` run failed with exit code `exit` and the error `error`: its code, or fields
 * its error object must match.
 */
export function expectFailure(r: CliResult, exit: number, error: string | Record<string, unknown>): void {
  expect(r.code).toBe(exit);
  if (typeof error === 'string') expect(r.json.error.code).toBe(error);
  else expect(r.json.error).toMatchObject(error);
}

/**
 * `--json auth login` for the simulator's seller 1001 (shop `seller-1001`) with the OAuth app `clientId`,
 * its secret read from $SECRET; `extra` is appended. Shared by the tests that connect a seller by OAuth.
 */
export const authLoginArgs = (clientId: string, baseUrl: string, extra: string[] = []): string[] => [
  '--json',
  'auth',
  'login',
  '--shop',
  'seller-1001',
  '--client-id',
  clientId,
  '--client-secret-env',
  'SECRET',
  '--base-url',
  baseUrl,
  '--seller-id',
  '1001',
  ...extra,
];

export const readLines = (text: string) => text.split('\n').filter(Boolean);
