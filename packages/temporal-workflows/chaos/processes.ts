// The chaos harness's own stack of child processes: a Temporal dev server with a data file (killed and
// restarted on the same file and port) and worker processes (src/worker/worker-main.ts, SIGKILLed and started
// again, optionally on a host of their own with a private disk: private-disk.ts). Every child is registered once
// and killed when the harness ends, however it ends; other resources (a PostgreSQL cluster) register a
// clean-up that a signal runs too. A dev-server stack (devStack) keeps its server's data and its
// workers' files in the run folder.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, createWriteStream, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@selling-kit/simulator/testing';
import { devServerArgs, namespaceAnswers, stopChild, temporalCliPath } from '../src/testing.ts';
import type { PrivateHost } from './private-disk.ts';

const WORKER_MAIN = fileURLToPath(new URL('../src/worker/worker-main.ts', import.meta.url));

/** Children alive now: killed (SIGKILL) on any exit of this process. */
const alive = new Set<ChildProcess>();
/** Clean-ups of what is not a child (a PostgreSQL daemon): run by a signal, before the process exits. */
const cleanups = new Set<() => Promise<unknown>>();
let hooked = false;

function hookExit() {
  if (hooked) return;
  hooked = true;
  process.once('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.once(sig, () => {
      killAll();
      // Bounded: a clean-up that hangs must not keep an interrupted harness alive.
      const done = Promise.allSettled([...cleanups].map((c) => c()));
      void Promise.race([done, sleep(30_000)]).then(() =>
        process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1)),
      );
    });
}

/** Runs `cleanup` if a signal ends the harness before `release()` is called (the normal path's own stop). */
export function onSignal(cleanup: () => Promise<unknown>): { release(): void } {
  hookExit();
  cleanups.add(cleanup);
  return { release: () => cleanups.delete(cleanup) };
}

/** Kills every child this harness started and that is still running (idempotent). */
export function killAll(): void {
  for (const child of alive) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  alive.clear();
}

/** Registers a child of the harness: SIGKILLed when the harness ends, however it ends. */
export function track(child: ChildProcess): ChildProcess {
  hookExit();
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  return child;
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((r) => child.once('exit', () => r()));

export { freePort };

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A dev server on a fixed port and data file: `kill()` then `start()` is a restart with its data. */
export class TemporalServer {
  readonly address: string;
  readonly dbFile: string;
  private child?: ChildProcess;
  private readonly args: string[];
  private readonly bin: string;
  private readonly log: string;

  constructor(opts: { bin: string; dir: string; port: number; uiPort: number }) {
    this.bin = opts.bin;
    this.address = `127.0.0.1:${opts.port}`;
    this.dbFile = join(opts.dir, 'temporal.db');
    this.log = join(opts.dir, 'temporal.log');
    // The tests' server flags (update-with-start on: the lanes' acquire needs multi-operations).
    this.args = devServerArgs({ dbFile: this.dbFile, port: opts.port, uiPort: opts.uiPort });
  }

  /** Starts the server and waits until the default namespace answers. */
  async start(timeoutMs = 90_000): Promise<void> {
    const fd = openSync(this.log, 'a');
    const child = track(spawn(this.bin, this.args, { stdio: ['ignore', fd, fd] }));
    closeSync(fd);
    this.child = child;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the Temporal dev server exited (see ${this.log})`);
      if (await this.answers()) return;
      if (Date.now() > deadline) throw new Error(`the Temporal dev server did not start (see ${this.log})`);
      await sleep(250);
    }
  }

  answers(): Promise<boolean> {
    return namespaceAnswers(this.bin, this.address);
  }

  /** SIGKILL: a crash, no clean shutdown. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGKILL');
    await exited(child);
  }

  async stop(): Promise<void> {
    if (this.child) await stopChild(this.child, 10_000);
  }
}

/**
 * A dev-server stack on one host, all in the run folder `dir`: a Temporal dev server (not started yet)
 * with its data file there, and what its workers read: the shops' credentials (SELLING_KIT_CREDENTIALS;
 * a worker reads it again when it changes), the embedded job store's folder that every worker shares
 * (SELLING_KIT_JOB_STORE), and the feeds, which the scenario writes in `dir` itself.
 */
export async function devStack(dir: string) {
  const server = new TemporalServer({
    bin: temporalCliPath(),
    dir,
    port: await freePort(),
    uiPort: await freePort(),
  });
  const credentials = join(dir, 'credentials.json');
  const jobStore = join(dir, 'jobs');
  return {
    server,
    jobStore,
    /** Writes (or rewrites) the credentials, owner-only: they hold API keys. */
    writeCredentials: (byShop: Record<string, { baseUrl: string; apiKey: string }>) =>
      writeFileSync(credentials, JSON.stringify(byShop), { mode: 0o600 }),
    /** A worker on this stack's server, polling `taskQueue`, with this process's environment under it. */
    worker: (name: string, taskQueue: string) =>
      new WorkerProcess({
        name,
        dir,
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: server.address,
          SELLING_KIT_TASK_QUEUE: taskQueue,
          SELLING_KIT_CREDENTIALS: credentials,
          SELLING_KIT_JOB_STORE: jobStore,
          SELLING_KIT_FEED_ROOTS: dir, // the worker reads no feed from anywhere else
          SELLING_KIT_CODEC: '0', // the harness's client does not encrypt
        },
      }),
  };
}

/** One worker process (src/worker/worker-main.ts), configured by its environment. */
export class WorkerProcess {
  readonly name: string;
  private child?: ChildProcess;
  private readonly env: NodeJS.ProcessEnv;
  /** The host it runs on (private-disk.ts), read at every start: set another to move the worker. */
  host?: PrivateHost;
  private readonly log: string;
  /** Unexpected exits (not killed by the harness), with their code or signal. */
  readonly crashes: string[] = [];
  private killing = false;
  private startedAt = 0;
  /** Set when the process printed that it is ready. */
  readyAt?: number;

  /** `env` is the process's whole environment; with `host`, it runs on that host (private-disk.ts). */
  constructor(opts: { name: string; dir: string; env: NodeJS.ProcessEnv; host?: PrivateHost }) {
    this.name = opts.name;
    this.log = join(opts.dir, `${opts.name}.log`);
    this.env = opts.env;
    this.host = opts.host;
  }

  /** The worker's pid while it runs (on a host too: nsenter execs the worker). */
  get pid(): number | undefined {
    return this.running ? this.child!.pid : undefined;
  }

  get running(): boolean {
    const c = this.child;
    return !!c && c.exitCode === null && c.signalCode === null;
  }

  /** Starts the process; resolves when it says it is ready (workflow code bundled, polling). */
  start(): Promise<void> {
    const log = createWriteStream(this.log, { flags: 'a' });
    const node = { command: process.execPath, args: ['--no-warnings', WORKER_MAIN] };
    const { command, args } = this.host ? this.host.wrap(node.command, node.args) : node;
    const child = track(spawn(command, args, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] }));
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    child.once('exit', () => setTimeout(() => log.end(), 100));
    this.child = child;
    this.killing = false;
    this.startedAt = Date.now();
    this.readyAt = undefined;
    child.once('exit', (code, signal) => {
      if (!this.killing) this.crashes.push(`${new Date().toISOString()} ${signal ?? `exit ${code}`}`);
    });
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (b: Buffer) => {
        if (this.readyAt !== undefined) return;
        out += b.toString();
        if (out.includes('worker ready')) {
          this.readyAt = Date.now();
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        if (this.readyAt === undefined)
          reject(new Error(`${this.name} exited before it was ready (${signal ?? code}); see ${this.log}`));
      });
    });
  }

  /** How long the last start took to be ready (bundling the workflow code), ms. */
  get startMs(): number | undefined {
    return this.readyAt === undefined ? undefined : this.readyAt - this.startedAt;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    this.killing = true;
    child.kill(signal);
    await exited(child);
  }
}
