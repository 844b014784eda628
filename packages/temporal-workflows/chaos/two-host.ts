// The two-host scenario of issue 21 §1 (`pnpm chaos --two-host`): the production topology run natively
// (test/topology: PostgreSQL, the full Temporal server on it, compose's worker settings), two worker
// processes each on a host of its own (private-disk.ts: a mount namespace with a tmpfs over the same
// path, and its own host name), the simulator in this process with 504-after-commit faults on creates.
// Two phases on one stack:
//   1. postgres — the job store in the same PostgreSQL (its own database): one create job; the worker
//      running a window is SIGKILLed with its host, and started again on a fresh host (an empty disk).
//      The report, read from the store, must have exactly one line per item, matching the listings.
//   2. local — each worker on a local folder store on its own disk (the same configured path, as an
//      operator who forgot SELLING_KIT_JOB_STORE would have). Activities retry a few times by themselves
//      and a retry may land on the worker whose disk holds the job's data, so while both answer the job
//      can limp on without saying why. That worker is stopped (SIGTERM: it ends the activity in hand and
//      takes no more; its host and disk stay): every activity lands on the other one, and the job must
//      pause with the plain reason "job storage is not shared between workers: set
//      SELLING_KIT_JOB_STORE". The worker starts again on its host, the job is cancelled and must end
//      cleanly: every item reported, nothing sent after the cancel, its data on that one disk only.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { RunningSimulator } from '@selling-kit/simulator';
import { bulkWorkflowId, cancelJob, readReport, startBulkJob } from '../src/client/client.ts';
import { AesGcmCodec, loadCodecKey } from '../src/codec/codec.ts';
import { dataConverter } from '../src/codec/data-converter.ts';
import { JOB_STORE_ENV } from '../src/stores/job-store.ts';
import { describeJobStore } from '../src/stores/open-job-store.ts';
import type { Allowance, ItemResult } from '../src/types.ts';
import { workerServiceEnv } from '../test/topology/native-run.ts';
import { startTemporalCluster, type TemporalCluster } from '../test/topology/temporal-cluster.ts';
import { auditFailures, auditShop, type FeedLine, type ShopAudit } from './audit.ts';
import { createShop, listingsOf, startFaultedSimulator, writeFeed, type Send } from './fixtures.ts';
import { followProgress, waitForEnd, type JobEnd, type Sighting } from './job-watch.ts';
import { isolationProblems, isolationUnavailable, privateDisk, PrivateHost, seenBy } from './private-disk.ts';
import { onSignal, sleep, track, WorkerProcess } from './processes.ts';
import { logToStderr, openChaosRun, type ChaosEvent, type FaultedRunOptions } from './run-log.ts';
import { readStoreReport, snapshotTaken, type StoreReport } from './store-report.ts';

/** The reason the issue asks a job on unshared storage to pause with (the message starts with it). */
export const NOT_SHARED_REASON = `job storage is not shared between workers: set ${JOB_STORE_ENV}`;

/**
 * `items`: creates in each phase's job; `scale` divides the jobs' allowance (the spec's 200 per 10 s) too;
 * `timeoutMs` counts per phase.
 */
export interface TwoHostOptions extends FaultedRunOptions {
  /** Share of create requests answered 504 after the listing was created. */
  timeoutAfterCommit: number;
  /**
   * The kill comes when this share of the items is listed (0.4: inside the second window of 200, so the
   * worker killed is in the middle of sending).
   */
  killAt: number;
  /** The killed worker stays down this long (real ms) before it starts on a fresh disk. */
  killDownMs: number;
  /** Run phase 2 (each worker on its own local folder store). */
  local: boolean;
  /** Phase 2: the pause must show within this long (real ms). */
  pauseTimeoutMs: number;
}

export const DEFAULT_TWO_HOST: TwoHostOptions = {
  items: 600,
  timeoutAfterCommit: 0.05,
  readAfterCreateMs: 2000,
  scale: 1,
  killAt: 0.4,
  killDownMs: 10_000,
  local: true,
  pauseTimeoutMs: 3 * 60_000,
  seed: 21,
  timeoutMs: 10 * 60_000,
  stallMs: 3 * 60_000,
  log: logToStderr,
};

export interface PhaseFigures extends ShopAudit {
  phase: 'postgres' | 'local';
  jobId: string;
  /** Where the workers' store was (no password). */
  jobStore: string;
  state: string;
  reason?: string;
  /** Lines in the store's report, and distinct line numbers among them. */
  reportLines: number;
  distinctLines: number;
  /**
   * Phase 1: the report as a client reads it through Temporal (a report workflow on any worker):
   * its lines, and how many differ from the store's (absent, or another status or product id).
   */
  viaTemporal?: { lines: number; differing: number };
  /** Creates that reached the API per item, and how many of them were answered 504 after commit. */
  sendsPerItem: number;
  timeouts: number;
  wallMs: number;
  /** Every distinct pause the progress showed, with when (s since the job started) and why. */
  pauses: Sighting[];
  /** Phase 2: seconds from the start to the not-shared pause; creates after the cancel was acknowledged. */
  pausedAfter?: number;
  /** Phase 2: the worker stopped (its disk held the job's data), and seconds from the stop to the pause. */
  stopped?: { worker: string; pausedAfter?: number };
  /** Phase 2: whether the not-shared pause showed while both workers still answered. */
  pausedWhileBothUp?: boolean;
  sentAfterCancel?: number;
  /** Phase 2: the worker whose disk holds the job's data, and whether any other disk does too. */
  heldBy?: string[];
}

export interface TwoHostResult {
  options: Omit<TwoHostOptions, 'log'>;
  dir: string;
  /** Seconds to start PostgreSQL, the schema, the server and the namespace; and the workers' first start. */
  clusterStartS: number;
  /** Each proof that the workers' disks are their own, when it was made and what did not hold. */
  isolation: { when: string; workers: string[]; problems: string[] }[];
  phases: PhaseFigures[];
  events: ChaosEvent[];
  workers: { name: string; crashes: string[] }[];
  wallMs: number;
  failures: string[];
}

export async function runTwoHost(over: Partial<TwoHostOptions> = {}): Promise<TwoHostResult> {
  const o: TwoHostOptions = { ...DEFAULT_TWO_HOST, ...over };
  const { log, ...shown } = o;
  const why = isolationUnavailable();
  if (why) throw new Error(`the two-host scenario cannot run here: ${why}`);
  const run = openChaosRun('two-host', 'sk-chaos-2host-', log);
  const { dir, tag, events, failures, note } = run;
  const disk = privateDisk(join(dir, 'host'));
  mkdirSync(disk.root);
  const isolation: TwoHostResult['isolation'] = [];
  const phases: PhaseFigures[] = [];
  const allWorkers: WorkerProcess[] = [];
  const hosts: PrivateHost[] = [];
  /** A new host with a fresh disk: host-1, host-2, … */
  const newHost = async () => {
    const host = await PrivateHost.start(disk, `host-${hosts.length + 1}`, track);
    hosts.push(host);
    return host;
  };
  let cluster: TemporalCluster | undefined;
  let sim: RunningSimulator | undefined;
  let connection: Connection | undefined;
  const signal = onSignal(async () => cluster?.stop());
  let clusterStartS = 0;
  try {
    log(`[two-host] run folder ${dir}; private disks at ${disk.root}`);
    const started = Date.now();
    cluster = await startTemporalCluster();
    clusterStartS = (Date.now() - started) / 1000;
    note(`PostgreSQL, Temporal server ${cluster.address} and namespace up in ${clusterStartS.toFixed(1)} s`);
    // Workers on several hosts share PostgreSQL: the token store (compose's setting) and the job store.
    // Both in the selling_kit database, as its own role (made by the cluster's set-up,
    // deploy/postgres/init-roles.sh, as compose's worker uses it): never the superuser.
    const pgJobStore = cluster.roles.stores.url();

    const logged = await startFaultedSimulator(o);
    sim = logged.sim;
    const { sends } = logged;
    if (o.timeoutAfterCommit > 0)
      sim.faults.add({
        type: 'timeout_after_commit',
        operationId: 'products.create',
        probability: o.timeoutAfterCommit,
      });

    // The worker service's environment (compose's deploy/env files with this machine's addresses), the
    // same for both hosts; what differs per host is the disk under HOME, TMPDIR and a local store.
    // The credentials file and the feeds stay in the shared run folder: read-only inputs, as a
    // deployment mounts its secrets and serves its feeds.
    const service = workerServiceEnv(dir, cluster.address, cluster.roles.stores.url());
    const workerEnv = (jobStore: string): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH,
      HOME: disk.home,
      TMPDIR: disk.tmp,
      ...service,
      SELLING_KIT_HOME: join(disk.home, '.selling-kit'),
      [JOB_STORE_ENV]: jobStore,
      // The scenario's feed files (written in the run folder).
      SELLING_KIT_FEED_ROOTS: dir,
    });
    const taskQueue = service.SELLING_KIT_TASK_QUEUE!;
    const credentials: Record<string, { baseUrl: string; apiKey: string }> = {};
    const shops = (['postgres', 'local'] as const).map((phase) => {
      const shop = createShop(sim!, `two-host-${phase}-${tag}`, `partner-2host-${phase}`);
      credentials[phase] = shop.credential;
      return { phase, sellerId: shop.sellerId };
    });
    writeFileSync(service.SELLING_KIT_CREDENTIALS!, JSON.stringify(credentials), { mode: 0o600 });

    // The harness's client, as an operator's: compose's namespace and payload key.
    connection = await Connection.connect({ address: cluster.address });
    const client = new Client({
      connection,
      namespace: cluster.clientEnv.TEMPORAL_NAMESPACE,
      dataConverter: dataConverter(new AesGcmCodec(loadCodecKey('', { env: service.SELLING_KIT_CODEC_KEY }))),
    });

    const startWorkers = async (names: string[], jobStore: string) => {
      const workers: WorkerProcess[] = [];
      for (const name of names)
        workers.push(new WorkerProcess({ name, dir, env: workerEnv(jobStore), host: await newHost() }));
      allWorkers.push(...workers);
      await Promise.all(workers.map((w) => w.start()));
      note(
        `${workers.map((w) => `${w.name} on ${w.host!.name}`).join(' and ')} ready (start ${workers.map((w) => w.startMs).join(', ')} ms)`,
      );
      prove(`${names.join(', ')} started`, workers);
      return workers;
    };
    const prove = (when: string, workers: WorkerProcess[]) => {
      const running = workers.flatMap((w) =>
        w.pid ? [{ name: w.name, host: w.host!.name, pid: w.pid }] : [],
      );
      const problems = isolationProblems(disk, running);
      isolation.push({
        when,
        workers: running.map((w) => `${w.name} on ${w.host} (pid ${w.pid})`),
        problems,
      });
      if (problems.length) failures.push(...problems.map((p) => `isolation (${when}): ${p}`));
      else note(`isolation proven (${when}): each worker sees only its own disk at ${disk.root}`);
    };
    const jobInput = (phase: 'postgres' | 'local', feed: string) => {
      const allowance: Allowance = { limit: 200, windowMs: 10_000 / o.scale };
      return {
        jobId: `two-host-${tag}-${phase}`,
        shop: { shopId: `two-host-${tag}-${phase}`, credentialRef: phase },
        feed: { path: feed, format: 'csv' as const },
        operation: 'create' as const,
        allowance,
        // The read-after-create delay is simulated time: the verification rounds scale with it.
        verifyDelaysMs: [1_000, 2_000, 4_000].map((ms) => ms / o.scale),
      };
    };
    // The simulator's fault counters are global: a phase's 504s are the growth over the phase.
    const timeoutsSoFar = () => sim!.faults.counters().byType.timeout_after_commit ?? 0;
    const figures = (f: {
      phase: 'postgres' | 'local';
      jobId: string;
      feed: FeedLine[];
      jobStore: string;
      report: StoreReport;
      end: JobEnd;
      startedAt: number;
      timeouts: number;
      pauses: Sighting[];
    }): PhaseFigures => {
      const sellerId = shops.find((s) => s.phase === f.phase)!.sellerId;
      const mine = sends.filter((s: Send) => s.sellerId === sellerId);
      return {
        phase: f.phase,
        jobId: f.jobId,
        jobStore: describeJobStore(f.jobStore),
        state: f.end.state,
        reason: f.end.reason,
        ...auditShop(f.feed, listingsOf(sim!, sellerId), f.report.lines),
        reportLines: f.report.lines.length,
        distinctLines: new Set(f.report.lines.map((l) => l.line)).size,
        sendsPerItem: mine.length / f.feed.length,
        timeouts: f.timeouts,
        wallMs: f.end.endedAt - f.startedAt,
        pauses: f.pauses,
      };
    };

    // --- Phase 1: the job store in PostgreSQL, a worker killed mid-window. ---
    {
      const workers = await startWorkers(['worker-1', 'worker-2'], pgJobStore);
      const { path, lines } = writeFeed(dir, 'postgres', `H${tag}-P`, o.items);
      const input = jobInput('postgres', path);
      const sellerId = shops[0]!.sellerId;
      const listed = () => sim!.world.sellers.get(sellerId)!.products.size;
      const jobStart = Date.now();
      const timeouts0 = timeoutsSoFar();
      await startBulkJob(client, input, taskQueue);
      note(
        `job ${input.jobId} started: ${o.items} creates, ${o.timeoutAfterCommit * 100} % answered 504 after commit`,
      );
      const progress = followProgress(client, input.jobId, jobStart);
      const last = { count: 0, at: Date.now() };
      const watchdog = keepUp(workers, note, () => {
        if (listed() !== last.count) Object.assign(last, { count: listed(), at: Date.now() });
      });
      let killed = false;
      let ended = false;
      const chaos = (async () => {
        while (listed() < o.killAt * o.items && !ended) await sleep(100);
        if (ended) return note('the kill was skipped: the job ended first');
        // The worker running the batch: its window is in flight, with creates in doubt.
        const busy = await busyHost(client, input.jobId);
        const victim = workers.find((w) => w.host!.name === busy) ?? workers[0]!;
        watchdog.hold(victim);
        await victim.kill('SIGKILL');
        victim.host!.stop(); // the host goes with it: its disk too
        killed = true;
        note(
          `SIGKILL ${victim.name} and its host ${victim.host!.name}${busy === victim.host!.name ? ' (it was running the batch)' : ''} at ${listed()} listings; down ${o.killDownMs / 1000} s`,
        );
        await sleep(o.killDownMs);
        victim.host = await newHost();
        await victim.start();
        watchdog.release(victim);
        note(
          `${victim.name} started again on a fresh host, ${victim.host.name} (start ${victim.startMs} ms)`,
        );
        prove(`${victim.name} restarted`, workers);
      })().catch((e: Error) => {
        failures.push(`postgres: harness: the kill failed (${e.message.split('\n')[0]})`);
      });
      const end = await waitForEnd(client, input.jobId, o.timeoutMs, () =>
        Date.now() - last.at > o.stallMs ? `no new listing for ${o.stallMs / 1000} s` : undefined,
      );
      ended = true;
      await chaos;
      await watchdog.stop();
      await progress.stop();
      note(`job ${input.jobId} ended ${end.state}${end.reason ? ` (${end.reason})` : ''}`);
      const report = await readStoreReport(pgJobStore, input.jobId).catch((e: Error) => {
        failures.push(`postgres: the report could not be read from the store (${e.message})`);
        return { lines: [] };
      });
      // The same report as any client host reads it: through Temporal, from a worker's store.
      const viaTemporal = await readReport(client, input.jobId, { taskQueue }).then(
        (read) => ({ lines: read.length, differing: differences(report.lines, read) }),
        (e: Error) => {
          failures.push(`postgres: the report could not be read through Temporal (${e.message})`);
          return undefined;
        },
      );
      const f = figures({
        phase: 'postgres',
        jobId: input.jobId,
        feed: lines,
        jobStore: pgJobStore,
        report,
        end,
        startedAt: jobStart,
        timeouts: timeoutsSoFar() - timeouts0,
        pauses: progress.pauses,
      });
      f.viaTemporal = viaTemporal;
      phases.push(f);
      const at = 'postgres:';
      if (viaTemporal?.differing)
        failures.push(`${at} ${viaTemporal.differing} line(s) read through Temporal differ from the store's`);
      if (f.state !== 'finished')
        failures.push(`${at} job ended ${f.state}${f.reason ? ` (${f.reason})` : ''}`);
      if (!killed) failures.push(`${at} no worker was killed mid-job`);
      if (f.timeouts === 0)
        failures.push(`${at} no create was answered 504 after commit: the faults proved nothing`);
      if (f.reportLines !== o.items || f.distinctLines !== o.items)
        failures.push(
          `${at} the report has ${f.reportLines} lines (${f.distinctLines} distinct), expected ${o.items}`,
        );
      if (f.listings !== o.items) failures.push(`${at} ${f.listings} listings, expected exactly ${o.items}`);
      for (const p of f.pauses.filter((p) => p.reason?.includes(NOT_SHARED_REASON)))
        failures.push(
          `${at} paused as not shared at ${p.at} s, though every worker opened PostgreSQL: ${p.reason}`,
        );
      auditFailures(at, f, failures);
      await Promise.all(workers.map((w) => w.kill('SIGTERM')));
    }

    // --- Phase 2: each worker on its own local folder store (the same path, different disks). ---
    if (o.local) {
      const workers = await startWorkers(['worker-3', 'worker-4'], disk.jobs);
      const { path, lines } = writeFeed(dir, 'local', `H${tag}-L`, o.items);
      const input = jobInput('local', path);
      const sellerId = shops[1]!.sellerId;
      const jobStart = Date.now();
      const timeouts0 = timeoutsSoFar();
      await startBulkJob(client, input, taskQueue);
      note(`job ${input.jobId} started: ${o.items} creates, each worker on a local store at ${disk.jobs}`);
      const progress = followProgress(client, input.jobId, jobStart);
      const watchdog = keepUp(workers, note);
      const at = 'local:';
      const holder = await holderOf(workers, disk.jobs, input.jobId, o.pauseTimeoutMs);
      const pausedBefore = progress.pauses.some((p) => p.reason?.includes(NOT_SHARED_REASON));
      const stoppedAt = Date.now();
      if (holder) {
        watchdog.hold(holder);
        await holder.kill('SIGTERM');
        note(
          `the snapshot is on ${holder.host!.name}'s disk: ${holder.name} stopped (SIGTERM; its host and disk stay), the other worker takes every activity${pausedBefore ? ' (the job had already paused as not shared)' : ''}`,
        );
      } else
        failures.push(`${at} no worker's disk held the job's snapshot after ${o.pauseTimeoutMs / 1000} s`);
      const paused = await progress.until(
        (p) => p.state === 'paused' && !!p.reason?.includes(NOT_SHARED_REASON),
        holder ? o.pauseTimeoutMs : 0,
      );
      const pausedAt = paused ? Date.now() : undefined;
      const pausedAfter = paused ? (pausedAt! - jobStart) / 1000 : undefined;
      if (paused) note(`job paused after ${pausedAfter!.toFixed(1)} s: ${paused.reason}`);
      let ackAt: number | undefined;
      if (holder) {
        await holder.start();
        watchdog.release(holder);
        note(`${holder.name} started again on ${holder.host!.name} (the same disk)`);
      }
      if (paused) {
        for (let attempt = 1; ackAt === undefined; attempt++) {
          try {
            const p = await cancelJob(client, input.jobId);
            ackAt = Date.now();
            note(`cancel acknowledged (job ${p.state})`);
          } catch (e) {
            if (attempt >= 5) {
              failures.push(`${at} the cancel could not be sent (${(e as Error).message})`);
              break;
            }
            await sleep(1000);
          }
        }
      } else if (holder) {
        failures.push(
          `${at} no pause with "${NOT_SHARED_REASON}" within ${o.pauseTimeoutMs / 1000} s of stopping ${holder.name} (last: ${progress.latest?.state ?? '?'}${progress.latest?.reason ? `, ${progress.latest.reason}` : ''})`,
        );
      }
      const end = await waitForEnd(client, input.jobId, ackAt ? o.timeoutMs : 0);
      await watchdog.stop();
      await progress.stop();
      note(`job ${input.jobId} ended ${end.state}${end.reason ? ` (${end.reason})` : ''}`);
      // The job's data is on the disk of the worker that took the snapshot: read through its view.
      const held: { name: string; report: StoreReport }[] = [];
      for (const w of workers) {
        const report = await readStoreReport(seenBy(w.host!.pid, disk.jobs), input.jobId).catch(
          () => undefined,
        );
        if (report?.record) held.push({ name: `${w.name} on ${w.host!.name}`, report });
      }
      const f = figures({
        phase: 'local',
        jobId: input.jobId,
        feed: lines,
        jobStore: disk.jobs,
        report: held[0]?.report ?? { lines: [] },
        end,
        startedAt: jobStart,
        timeouts: timeoutsSoFar() - timeouts0,
        pauses: progress.pauses,
      });
      f.pausedAfter = pausedAfter;
      // Seen by the progress samples before the holder was stopped (sampled late, so counted at the end).
      f.pausedWhileBothUp = progress.pauses.some(
        (p) => p.reason?.includes(NOT_SHARED_REASON) && jobStart + p.at * 1000 < stoppedAt,
      );
      if (holder)
        f.stopped = { worker: holder.name, pausedAfter: paused ? (pausedAt! - stoppedAt) / 1000 : undefined };
      f.heldBy = held.map((h) => h.name);
      f.sentAfterCancel =
        ackAt === undefined ? 0 : sends.filter((s) => s.sellerId === sellerId && s.at > ackAt!).length;
      phases.push(f);
      if (paused && f.state !== 'cancelled')
        failures.push(`${at} job ended ${f.state}${f.reason ? ` (${f.reason})` : ''}, expected cancelled`);
      if (held.length !== 1)
        failures.push(
          `${at} the job's data is on ${held.length} disks (${f.heldBy.join(', ') || 'none'}), expected exactly one`,
        );
      if (f.sentAfterCancel)
        failures.push(`${at} ${f.sentAfterCancel} create(s) sent after the cancel was acknowledged`);
      if (f.reportLines !== o.items || f.distinctLines !== o.items)
        failures.push(
          `${at} the report has ${f.reportLines} lines (${f.distinctLines} distinct), expected ${o.items}`,
        );
      auditFailures(at, f, failures);
      await Promise.all(workers.map((w) => w.kill('SIGTERM')));
    }
    return {
      options: shown,
      dir,
      clusterStartS,
      isolation,
      phases,
      events,
      workers: allWorkers.map((w) => ({ name: w.name, crashes: w.crashes })),
      wallMs: run.elapsedMs(),
      failures,
    };
  } finally {
    for (const w of allWorkers) await w.kill('SIGKILL').catch(() => undefined);
    for (const h of hosts) h.stop();
    await connection?.close().catch(() => undefined);
    await sim?.close().catch(() => undefined);
    await cluster?.stop().catch(() => undefined);
    signal.release();
  }
}

/** Lines of `a` and `b` that are not in the other one with the same status and product id. */
function differences(a: ItemResult[], b: ItemResult[]): number {
  const key = (r: ItemResult) => `${r.line} ${r.status} ${'productId' in r ? (r.productId ?? '') : ''}`;
  const left = new Set(a.map(key));
  const right = new Set(b.map(key));
  return [...left].filter((k) => !right.has(k)).length + [...right].filter((k) => !left.has(k)).length;
}

/** The worker whose local store at `jobs` (on its host's disk) holds the job's committed snapshot, polled until `timeoutMs`. */
async function holderOf(
  workers: WorkerProcess[],
  jobs: string,
  jobId: string,
  timeoutMs: number,
): Promise<WorkerProcess | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const w of workers)
      if (await snapshotTaken(seenBy(w.host!.pid, jobs), jobId).catch(() => false)) return w;
    await sleep(100);
  }
  return undefined;
}

const STARTED = proto.temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

/**
 * The host (a worker's Temporal identity is `pid@host`) running one of the job's sendBatch activities,
 * waited for up to 10 s (a window between two others); undefined if none came.
 */
async function busyHost(client: Client, jobId: string): Promise<string | undefined> {
  for (let i = 0; i < 200; i++) {
    const d = await client.workflow
      .getHandle(bulkWorkflowId(jobId))
      .describe()
      .catch(() => undefined);
    const batch = d?.raw.pendingActivities?.find(
      (a) => a.activityType?.name === 'sendBatch' && a.state === STARTED,
    );
    const identity = batch?.lastWorkerIdentity;
    if (identity) return identity.slice(identity.indexOf('@') + 1);
    await sleep(50);
  }
  return undefined;
}

/**
 * Starts again (on a fresh disk) a worker that exited on its own, unless the harness holds it down;
 * `tick` runs every 250 ms.
 */
function keepUp(workers: WorkerProcess[], note: (what: string) => void, tick: () => void = () => {}) {
  const held = new Set<WorkerProcess>();
  let running = true;
  const loop = (async () => {
    while (running) {
      tick();
      for (const w of workers)
        if (!w.running && !held.has(w)) {
          held.add(w);
          note(`${w.name} exited on its own (${w.crashes.at(-1) ?? '?'}): starting it again`);
          w.start().then(
            () => held.delete(w),
            (e: Error) => {
              note(`${w.name} did not start again: ${e.message.split('\n')[0]}`);
              setTimeout(() => held.delete(w), 2000);
            },
          );
        }
      await sleep(250);
    }
  })();
  return {
    hold: (w: WorkerProcess) => held.add(w),
    release: (w: WorkerProcess) => held.delete(w),
    async stop() {
      running = false;
      await loop;
    },
  };
}
