// What the benchmarks share (not a benchmark itself: `pnpm bench` runs `*.bench.ts` only): their
// size parameters, a Temporal dev server of their own, a worker in a process of its own (so its memory
// is its own) or in the bench's own process, a once-a-second RSS sampler, the history of every run of a
// workflow, the feed rows, and the run-alone entry point.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { RunningSimulator } from '@selling-kit/simulator';
import { FEED_HEADER, feedRow, startDevServer } from '../src/testing.ts';
import { feedPolicy } from '../src/activities/feed-policy.ts';
import { createLocalJobStore } from '../src/stores/job-store-local.ts';
import { createWorker, type WorkerOptions } from '../src/worker/worker.ts';

export { freePort } from '@selling-kit/simulator/testing';

/**
 * A size parameter: `--<name> <n>` on the command line, else the environment variable `env` (so
 * `SCALE_ITEMS=5000 pnpm bench` reaches the bench through `pnpm bench`), else `fallback`.
 */
export function param(name: string, env: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const raw = i > 0 ? process.argv[i + 1] : process.env[env];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0)
    throw new Error(`--${name} / ${env} must be a non-negative number (got ${JSON.stringify(raw)})`);
  return n;
}

/**
 * Runs the bench when its module (`moduleUrl`: its `import.meta.url`) is the one `node` started, not one
 * imported; with `passed`, exits 0 or 1 by it (the bench's verdict). The one entry point of every bench.
 */
export async function runWhenMain<R>(
  moduleUrl: string,
  run: () => Promise<R>,
  passed?: (result: R) => boolean,
) {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  const result = await run();
  if (passed) process.exit(passed(result) ? 0 : 1);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

export const HEADER = FEED_HEADER;
/** A valid feed row of its own description and picture (the shared row of `../src/testing.ts`). */
export const row = (sku: string) =>
  feedRow(sku, { description: `Bench tee ${sku} #nike`, picture: `https://img.example/${sku}.jpg` });

/**
 * A dev server with a data file in `dir`, and a client connection to it. `BENCH_TEMPORAL_DYNAMIC_CONFIG`
 * (`key=value,key=value`) passes server settings, for diagnosis only (e.g. `history.maxInFlightUpdates=1000`):
 * figures measured with it are not the default server's, and the benches print it.
 */
export const dynamicConfig = (process.env.BENCH_TEMPORAL_DYNAMIC_CONFIG ?? '')
  .split(',')
  .map((kv) => kv.trim())
  .filter(Boolean);

/**
 * `BENCH_TEMPORAL=postgres`: the production topology's server instead of the dev server — the Temporal
 * server of docker-compose.yml on PostgreSQL, run natively (test/topology/temporal-cluster.ts; needs
 * `SELLING_KIT_TOPOLOGY=1 source scripts/setup.sh`). The dev server keeps its history in one SQLite file
 * that syncs every write to disk; an operator's server does not, so latencies are measured on both.
 */
export const benchServer = process.env.BENCH_TEMPORAL === 'postgres' ? 'postgres' : 'dev';

export async function startTemporal(dir: string) {
  const server =
    benchServer === 'postgres'
      ? await import('../test/topology/temporal-cluster.ts').then(async (m) => {
          const cluster = await m.startTemporalCluster();
          console.log('  Temporal: the production server on PostgreSQL (BENCH_TEMPORAL=postgres)');
          return { address: cluster.address, stop: () => cluster.stop() };
        })
      : await startDevServer({ dir, dynamicConfig });
  const connection = await Connection.connect({ address: server.address });
  return {
    address: server.address,
    client: new Client({ connection }),
    async stop() {
      await connection.close();
      await server.stop();
    },
  };
}

/** A bench's own folder (under the system's temp folder, named from `folderPrefix`) and its Temporal server. */
export async function openBench(folderPrefix: string) {
  const dir = mkdtempSync(join(tmpdir(), folderPrefix));
  return { dir, temporal: await startTemporal(dir) };
}

/**
 * A worker process (spawnWorker) on the bench's server, polling a task queue of its own
 * (`bench-<name>-<uuid>`), with its embedded job store in the bench's folder `dir`, where its feeds are
 * too; `env` says where its shops' credentials are, and any tuning.
 */
export async function spawnBenchWorker(
  temporal: { address: string },
  dir: string,
  name: string,
  env: Record<string, string>,
) {
  const taskQueue = `bench-${name}-${randomUUID()}`;
  const worker = await spawnWorker({
    TEMPORAL_ADDRESS: temporal.address,
    SELLING_KIT_TASK_QUEUE: taskQueue,
    SELLING_KIT_JOB_STORE: join(dir, 'jobs'),
    SELLING_KIT_FEED_ROOTS: dir,
    ...env,
  });
  return { taskQueue, worker };
}

const WORKER_MAIN = fileURLToPath(new URL('../src/worker/worker-main.ts', import.meta.url));

/**
 * `node src/worker/worker-main.ts` in a process of its own, configured as an operator would (payload
 * encryption off: the bench's client has no codec). Resolves once it is polling.
 */
export async function spawnWorker(env: Record<string, string>): Promise<{
  child: ChildProcess;
  pid: number;
  warnings(): [string, number][];
  stop(): Promise<void>;
}> {
  const child = spawn(process.execPath, [WORKER_MAIN], {
    env: { ...process.env, SELLING_KIT_CODEC: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The SDK's log: INFO lines (worker state changes) are dropped; warnings and errors are counted by
  // their message and error (the first of each kind printed in full), so a storm stays readable.
  const warnings = new Map<string, number>();
  let pending = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const entries = pending.split(/\n(?=\S)/); // an entry: a line and its indented continuation
    pending = entries.pop() ?? '';
    for (const entry of entries) {
      const level = /\[(WARN|ERROR)\]/.exec(entry)?.[1];
      if (!level) continue;
      const what = /\] ([^{\n]*)/.exec(entry)?.[1]?.trim() ?? '';
      const type = /activityType: '([^']+)'/.exec(entry)?.[1];
      const error = /error: ([^\n]*)/.exec(entry)?.[1]?.trim() ?? '';
      const key = `${level} ${what}${type ? ` (${type})` : ''}: ${error}`;
      const n = (warnings.get(key) ?? 0) + 1;
      warnings.set(key, n);
      if (n === 1) process.stderr.write(`${entry.split('\n').slice(0, 16).join('\n')}\n`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('worker ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker-main exited early (${code}): ${out}`)));
  });
  child.stdout!.resume();
  return {
    child,
    pid: child.pid!,
    /** Warnings and errors the worker logged, by kind: `[kind, count]`, most frequent first. */
    warnings: () => [...warnings].sort((a, b) => b[1] - a[1]),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A worker inside the bench's process (it shares the event loop with the simulators): its job store a
 * folder `jobs` of `dir`, its feeds the bench's files in `dir`. Resolves to the function that stops it.
 */
export async function startInlineWorker(
  address: string,
  taskQueue: string,
  credentials: WorkerOptions['credentials'],
  dir: string,
): Promise<() => Promise<void>> {
  const jobStore = createLocalJobStore(join(dir, 'jobs'));
  const { worker, close } = await createWorker({
    address,
    taskQueue,
    credentials,
    jobStore,
    feedPolicy: feedPolicy({ roots: [dir] }), // the bench's feed files
  });
  const running = worker.run();
  return async () => {
    worker.shutdown();
    await running;
    await close();
    await jobStore.close();
  };
}

/** The resident set of a process, KiB (VmRSS of /proc/<pid>/status). */
export function rssKiB(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined; // the process is gone
  }
}

/** Samples `pid`'s RSS once a second, each sample tagged with `progress()` (items done so far). */
export function sampleRss(pid: number, progress: () => number) {
  const samples: { atMs: number; kib: number; done: number }[] = [];
  const t0 = Date.now();
  const take = () => {
    const kib = rssKiB(pid);
    if (kib !== undefined) samples.push({ atMs: Date.now() - t0, kib, done: progress() });
  };
  take();
  const timer = setInterval(take, 1000);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
    },
  };
}

export interface RunHistory {
  runId: string;
  events: number;
  /** The run's history as the server hands it out (fetchHistory), serialised (protobuf). */
  bytes: number;
  /** The server's own count (visibility `HistorySizeBytes`). */
  serverBytes: number;
}

/** Every run of a workflow id (continue-as-new chain), oldest first, with its history's size. */
export async function runHistories(client: Client, workflowId: string): Promise<RunHistory[]> {
  const runs: RunHistory[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const history = await client.workflow.getHandle(workflowId, w.runId).fetchHistory();
    runs.push({
      runId: w.runId,
      events: history.events?.length ?? 0,
      bytes: proto.temporal.api.history.v1.History.encode(history).finish().length,
      serverBytes: w.historySize ?? 0,
    });
  }
  return runs.reverse();
}

/** Events of every run of every workflow matching a visibility query (from visibility, no history reads). */
export async function eventsOf(
  client: Client,
  query: string,
): Promise<{ workflows: number; events: number }> {
  const ids = new Set<string>();
  let events = 0;
  for await (const w of client.workflow.list({ query })) {
    ids.add(w.workflowId);
    events += w.historyLength ?? 0;
  }
  return { workflows: ids.size, events };
}

/** 429s the simulator's gateway answered, all keys and groups. */
export async function gateway429s(sim: RunningSimulator): Promise<number> {
  const c = await counters(sim);
  return Object.values(c.rateLimits).reduce(
    (n, groups) => n + Object.values(groups).reduce((m, g) => m + g.limited, 0),
    0,
  );
}

export async function counters(sim: RunningSimulator) {
  return (await fetch(`${sim.adminUrl}/admin/counters`).then((r) => r.json())) as {
    rateLimits: Record<string, Record<string, { allowed: number; limited: number }>>;
  };
}

/** `uptime`'s load averages (1, 5, 15 min), for the printed figures: the machine is shared. */
export const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

export const MiB = 1024 * 1024;

const eventMs = (e: proto.temporal.api.history.v1.IHistoryEvent) => {
  const s = e.eventTime?.seconds ?? 0;
  return (typeof s === 'number' ? s : s.toNumber()) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
};

/**
 * Where the time of a one-activity workflow (a sale) went, from its history's event times: waiting for
 * a worker to pick up its first workflow task, that task, the activity waiting for a worker, the
 * activity itself (the HTTP request), and the closing workflow task.
 */
export async function activityWorkflowPhases(client: Client, workflowId: string) {
  const T = proto.temporal.api.enums.v1.EventType;
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = (type: number, nth = 0) => eventMs(events.filter((e) => e.eventType === type)[nth]!);
  const started = at(T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
  const firstTask = at(T.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  const scheduled = at(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
  const activityStarted = at(T.EVENT_TYPE_ACTIVITY_TASK_STARTED);
  const activityDone = at(T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
  const closed = eventMs(events.at(-1)!);
  return {
    workflowTaskWait: firstTask - started,
    workflowTask: scheduled - firstTask,
    activityWait: activityStarted - scheduled,
    activity: activityDone - activityStarted,
    closing: closed - activityDone,
    server: closed - started,
  };
}
