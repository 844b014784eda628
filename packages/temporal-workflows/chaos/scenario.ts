// The chaos scenario of issue 10 §4, on a stack of its own: a Temporal dev server with a data file, the
// simulator (time-scaled) with seeded faults, two worker processes; bulk create jobs for several shops
// while workers are SIGKILLed, the server is killed and restarted, a 429 storm passes, one poison item
// is refused on every try and a fourth job is cancelled during a run hand-off. It then compares every
// shop's feed, listings and report (audit.ts) and says what went wrong. `pnpm chaos` (scripts/chaos.ts)
// runs it at full size; test/chaos.test.ts runs a small one.
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import type { FaultRuleInput, RunningSimulator } from '@selling-kit/simulator';
import { bulkWorkflowId, startBulkJob } from '../src/client/client.ts';
import { cancelUpdate } from '../src/workflows/index.ts';
import type { Allowance, BulkProgress, ItemResult } from '../src/types.ts';
import { auditFailures, auditShop, type FeedLine, type ShopAudit } from './audit.ts';
import { logToStderr, openChaosRun, type ChaosEvent, type FaultedRunOptions } from './run-log.ts';
import { devStack, killAll, sleep, type WorkerProcess } from './processes.ts';
import { createShop, listingsOf, startFaultedSimulator, writeFeed } from './fixtures.ts';
import { readStoreReport } from './store-report.ts';

/** `items` are creates per shop (the poison item comes on top, in the first shop). */
export interface ChaosOptions extends FaultedRunOptions {
  shops: number;
  /** The jobs' allowance in simulated time (default: the spec's create_update, 200 per 10 s). */
  allowance: Allowance;
  /** Fault probabilities on creates (of all create requests). */
  faults: { error500: number; timeoutAfterCommit: number; resetAfterCommit: number };
  /** One 429 storm on creates, this long in simulated ms (0: none). */
  stormMs: number;
  /** One SIGKILL of a worker per number, kept down that long (real ms); the longest is the long outage. */
  kills: number[];
  /** The long outage takes every worker down, not one. */
  fullOutage: boolean;
  /**
   * Kill the Temporal dev server once and start it again (same data file, same port) after this long
   * (real ms); 0: no restart.
   */
  restartDownMs: number;
  poison: boolean;
  /** A fourth job (its own shop) cancelled during its first run hand-off. */
  cancel: boolean;
  /** Windows per run of the cancelled job (small: its hand-off comes early). */
  cancelWindowsPerRun: number;
  workers: number;
}

export const DEFAULT_OPTIONS: ChaosOptions = {
  items: 2000,
  shops: 3,
  scale: 1,
  allowance: { limit: 200, windowMs: 10_000 },
  faults: { error500: 0.05, timeoutAfterCommit: 0.03, resetAfterCommit: 0.02 },
  readAfterCreateMs: 2000,
  stormMs: 15_000,
  kills: [5_000, 10_000, 40_000],
  fullOutage: false,
  restartDownMs: 3_000,
  poison: true,
  cancel: true,
  cancelWindowsPerRun: 2,
  workers: 2,
  seed: 10,
  timeoutMs: 30 * 60_000,
  stallMs: 5 * 60_000,
  log: logToStderr,
};

export interface ShopFigures extends ShopAudit {
  shopId: string;
  jobId: string;
  /** How the job ended: finished, cancelled, failed (with why), or running (timed out). */
  state: string;
  reason?: string;
  /** Listings the goal asks for (undefined for the cancelled job). */
  expected?: number;
  /** 429s the gateway's rate limiter answered this shop (the storm's are counted apart). */
  rateLimited: number;
  /** Create requests that reached the API (past the gateway's faults) per feed item. */
  sendsPerItem: number;
  wallMs: number;
  runs: number;
  historyBytes: number;
  historyEvents: number;
  historyBytesPerItem: number;
  eventsPerItem: number;
}

export interface ChaosResult {
  options: Omit<ChaosOptions, 'log'>;
  dir: string;
  shops: ShopFigures[];
  cancel?: {
    shop: ShopFigures;
    /** How the cancel was timed. */
    trigger: string;
    acknowledgedAt?: number;
    /** Create requests for the cancelled shop that reached the API after the cancel update returned. */
    sentAfterAck: number;
    /** Which run accepted the cancel and how that run ended. */
    landed?: string;
    error?: string;
  };
  poison?: {
    sku: string;
    status: string;
    code?: string;
    /** Requests for the poison SKU the simulator refused. */
    sends: number;
    /** Seconds from the jobs' start to the first and the last refused request. */
    firstAt?: number;
    lastAt?: number;
  };
  storm: { requests: number };
  faultsFired: Record<string, number>;
  events: ChaosEvent[];
  workers: { name: string; crashes: string[] }[];
  wallMs: number;
  failures: string[];
}

interface JobRun {
  shopId: string;
  sellerId: number;
  jobId: string;
  feed: FeedLine[];
  startedAt: number;
  endedAt?: number;
  state?: string;
  reason?: string;
  expected?: number;
}

/** Faults on creates with the given shares of ALL create requests (rules are tried in order). */
function faultRules(f: ChaosOptions['faults']): FaultRuleInput[] {
  const rules: FaultRuleInput[] = [];
  let left = 1;
  const add = (type: FaultRuleInput['type'], share: number) => {
    if (share <= 0) return;
    rules.push({ type, operationId: 'products.create', probability: Math.min(1, share / left) });
    left -= share;
  };
  add('error_500', f.error500);
  add('timeout_after_commit', f.timeoutAfterCommit);
  add('reset_after_commit', f.resetAfterCommit);
  return rules;
}

export async function runChaos(over: Partial<ChaosOptions> = {}): Promise<ChaosResult> {
  const o: ChaosOptions = { ...DEFAULT_OPTIONS, ...over };
  const { log, ...shown } = o;
  const run = openChaosRun('chaos', 'sk-chaos-', log);
  const { dir, tag, events, failures, since, note } = run;

  const stack = await devStack(dir);
  const { server } = stack;
  let sim: RunningSimulator | undefined;
  let connection: Connection | undefined;
  const workers: WorkerProcess[] = [];
  const down = new Set<WorkerProcess>();
  let finished = false;
  try {
    log(`[chaos] stack in ${dir}; simulator time scale ×${o.scale}`);
    await server.start();

    // Every create that reaches the API (past the gateway's faults), with when and for whom.
    const logged = await startFaultedSimulator(o);
    sim = logged.sim;
    const { sends } = logged;
    const world = sim.world;
    const credentials: Record<string, { baseUrl: string; apiKey: string }> = {};
    const newShop = (name: string) => {
      const shop = createShop(sim!, `chaos-${name}-${tag}`, `partner-${name}`);
      credentials[name] = shop.credential;
      return { sellerId: shop.sellerId, shopId: `chaos-${tag}-${name}`, ref: name };
    };
    const feedFor = (name: string, prefix: string, n: number, poisonAt?: number) =>
      writeFeed(dir, name, prefix, n, poisonAt);

    const realAllowance: Allowance = { limit: o.allowance.limit, windowMs: o.allowance.windowMs / o.scale };
    const taskQueue = `chaos-${tag}`;
    const jobs: JobRun[] = [];
    const planned: { job: JobRun; path: string; shop: ReturnType<typeof newShop>; extra?: object }[] = [];
    for (let k = 0; k < o.shops; k++) {
      const name = `shop${k + 1}`;
      const shop = newShop(name);
      const prefix = `C${tag}-S${k + 1}`;
      const poisonAt = o.poison && k === 0 ? Math.floor(o.items / 3) : undefined;
      const { path, lines } = feedFor(name, prefix, o.items, poisonAt);
      const job: JobRun = {
        shopId: shop.shopId,
        sellerId: shop.sellerId,
        jobId: `chaos-${tag}-${name}`,
        feed: lines,
        startedAt: 0,
        expected: o.items,
      };
      planned.push({ job, path, shop });
    }
    const poisonSku = o.poison ? planned[0]?.job.feed.find((f) => f.poison)?.sku : undefined;
    let cancelJob: JobRun | undefined;
    if (o.cancel) {
      const shop = newShop('cancel');
      // Long enough for several hand-offs: the cancel comes at the first.
      const n = Math.max(Math.ceil(o.items / 2), 4 * o.cancelWindowsPerRun * o.allowance.limit);
      const { path, lines } = feedFor('cancel', `C${tag}-X`, n);
      cancelJob = {
        shopId: shop.shopId,
        sellerId: shop.sellerId,
        jobId: `chaos-${tag}-cancel`,
        feed: lines,
        startedAt: 0,
      };
      planned.push({ job: cancelJob, path, shop, extra: { windowsPerRun: o.cancelWindowsPerRun } });
    }
    // One host: both workers share the run's job store folder (the embedded backend).
    const { jobStore } = stack;
    stack.writeCredentials(credentials);

    // Faults: the poison SKU first (always refused), then the seeded shares of all creates.
    if (poisonSku) sim.faults.add({ type: 'error_500', operationId: 'products.create', sku: poisonSku });
    for (const rule of faultRules(o.faults)) sim.faults.add(rule);

    for (let i = 0; i < o.workers; i++) workers.push(stack.worker(`worker-${i + 1}`, taskQueue));
    await Promise.all(workers.map((w) => w.start()));
    log(`[chaos] ${o.workers} workers ready (bundling took ${workers.map((w) => w.startMs).join(', ')} ms)`);

    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection });
    // Events and the wall time count from the jobs' start, not the stack's.
    run.restartClock();
    for (const p of planned) {
      p.job.startedAt = Date.now();
      await startBulkJob(
        client,
        {
          jobId: p.job.jobId,
          shop: { shopId: p.shop.shopId, credentialRef: p.shop.ref },
          feed: { path: p.path, format: 'csv' },
          operation: 'create',
          allowance: realAllowance,
          // The read-after-create delay is simulated time: the verification rounds scale with it.
          verifyDelaysMs: [1_000, 2_000, 4_000].map((ms) => ms / o.scale),
          ...p.extra,
        },
        taskQueue,
      );
      jobs.push(p.job);
    }
    const main = jobs.filter((j) => j !== cancelJob);
    note(
      `started ${main.length} jobs × ${o.items} creates${cancelJob ? ` and a job of ${cancelJob.feed.length} to cancel` : ''} (allowance ${o.allowance.limit} per ${o.allowance.windowMs / 1000} s simulated)`,
    );

    const listed = (j: JobRun) => world.sellers.get(j.sellerId)!.products.size;
    const fraction = () => main.reduce((n, j) => n + listed(j), 0) / Math.max(1, main.length * o.items);

    // Poison: when the simulator refused it first and last.
    const poison = {
      sends: 0,
      firstAt: undefined as number | undefined,
      lastAt: undefined as number | undefined,
    };
    const poisonRule = () => [...sim!.faults.list(), ...sim!.faults.counters().spent].find((r) => r.sku);

    // The watchdog restarts a worker that died on its own; a progress line every 10 s.
    let lastLine = 0;
    const lastListing = { count: 0, at: Date.now() };
    const monitor = (async () => {
      while (!finished) {
        const count = jobs.reduce((n, j) => n + listed(j), 0);
        if (count !== lastListing.count) Object.assign(lastListing, { count, at: Date.now() });
        const fired = poisonRule()?.fired ?? 0;
        if (fired > poison.sends) {
          poison.firstAt ??= since();
          poison.lastAt = since();
          poison.sends = fired;
        }
        for (const w of workers)
          if (!w.running && !down.has(w)) {
            note(`${w.name} exited on its own (${w.crashes.at(-1) ?? '?'}): starting it again`);
            down.add(w);
            w.start().then(
              () => down.delete(w),
              (e: Error) => {
                note(`${w.name} did not start again: ${e.message.split('\n')[0]}`);
                setTimeout(() => down.delete(w), 2000);
              },
            );
          }
        if (Date.now() - lastLine > 10_000) {
          lastLine = Date.now();
          log(
            `[chaos ${since().toFixed(1).padStart(6)} s] listed ${jobs.map((j) => `${j.shopId.split('-').at(-1)} ${listed(j)}/${j.feed.length}`).join(', ')}; workers up ${workers.filter((w) => w.running).length}/${workers.length}`,
          );
        }
        await sleep(250);
      }
    })();

    // Every job's end (polled: the client's long poll does not survive the server's restart).
    const ends = Promise.all(
      jobs.map(async (j) => {
        const handle = client.workflow.getHandle(bulkWorkflowId(j.jobId));
        while (run.elapsedMs() < o.timeoutMs && Date.now() - lastListing.at < o.stallMs) {
          const d = await handle.describe().catch(() => undefined);
          if (d && d.status.name !== 'RUNNING') {
            j.endedAt = d.closeTime?.getTime() ?? Date.now();
            try {
              const r = (await handle.result()) as BulkProgress;
              j.state = r.state;
            } catch (e) {
              j.state = d.status.name.toLowerCase();
              const cause = e instanceof WorkflowFailedError ? e.cause : e;
              j.reason = cause instanceof Error ? cause.message : String(cause);
            }
            note(`job ${j.jobId} ended ${j.state}${j.reason ? ` (${j.reason})` : ''}`);
            return;
          }
          await sleep(1000);
        }
        j.state = 'running';
        j.reason =
          run.elapsedMs() >= o.timeoutMs
            ? `still running after ${o.timeoutMs / 1000} s`
            : `still running; no new listing for ${o.stallMs / 1000} s`;
        await handle.terminate('chaos harness timeout').catch(() => undefined);
      }),
    );

    // The cancel, timed for the hand-off: as soon as the current run has completed `windowsPerRun`
    // sendBatch activities it is about to continue as new (history polled every 100 ms).
    const cancelResult: NonNullable<ChaosResult['cancel']> | undefined = cancelJob
      ? { shop: undefined as unknown as ShopFigures, trigger: '', sentAfterAck: 0 }
      : undefined;
    const cancelling = cancelJob ? cancelAtHandOff(client, cancelJob, o, cancelResult!, note) : undefined;

    // The chaos, spread over 10 %…70 % of the main jobs' listings: the short kills, the storm, the
    // server restart, and the long outage last.
    const steps: { what: string; act: () => Promise<void> }[] = [];
    const longest = o.kills.length ? o.kills.indexOf(Math.max(...o.kills)) : -1;
    const kill = (downMs: number, n: number, all: boolean) => async () => {
      const targets = all ? workers : [workers[0]!];
      for (const w of targets) down.add(w);
      await Promise.all(targets.map((w) => w.kill('SIGKILL')));
      note(
        `SIGKILL ${targets.map((w) => w.name).join(' and ')} (kill ${n} of ${o.kills.length}), down ${downMs / 1000} s`,
      );
      await sleep(downMs);
      await Promise.all(targets.map((w) => w.start().finally(() => down.delete(w))));
      note(
        `${targets.map((w) => w.name).join(' and ')} ready again (bundling ${targets.map((w) => w.startMs).join(', ')} ms)`,
      );
    };
    o.kills.forEach((ms, i) => {
      if (i !== longest) steps.push({ what: `kill ${i + 1}`, act: kill(ms, i + 1, false) });
    });
    if (o.stormMs > 0)
      steps.splice(Math.min(1, steps.length), 0, {
        what: 'storm',
        act: async () => {
          sim!.faults.add({
            type: 'rate_limit_storm',
            operationId: 'products.create',
            durationMs: o.stormMs,
          });
          note(`429 storm on creates for ${o.stormMs / 1000} s simulated`);
        },
      });
    if (o.restartDownMs > 0)
      steps.push({
        what: 'restart',
        act: async () => {
          await server.kill();
          note(`Temporal dev server SIGKILLed; starting it again in ${o.restartDownMs / 1000} s`);
          await sleep(o.restartDownMs);
          const t = Date.now();
          await server.start();
          note(`Temporal dev server up again (same data file and port) after ${(Date.now() - t) / 1000} s`);
        },
      });
    if (longest >= 0)
      steps.push({ what: `kill ${longest + 1}`, act: kill(o.kills[longest]!, longest + 1, o.fullOutage) });
    const mainDone = () => main.every((j) => j.endedAt !== undefined);
    const chaos = (async () => {
      for (const [i, step] of steps.entries()) {
        const at = steps.length === 1 ? 0.3 : 0.1 + (0.6 * i) / (steps.length - 1);
        while (!mainDone() && fraction() < at) await sleep(200);
        if (mainDone()) {
          note(`${step.what} skipped: the jobs ended first`);
          continue;
        }
        await step.act().catch((e: Error) => {
          note(`${step.what} failed: ${e.message}`);
          failures.push(`harness: ${step.what} failed (${e.message})`);
        });
      }
    })();

    await Promise.all([chaos, ends, cancelling]);
    const wallMs = run.elapsedMs();
    finished = true;
    await monitor;
    // A last look at the poison counter (the monitor polls every 250 ms).
    const fired = poisonRule()?.fired ?? 0;
    if (fired > poison.sends) {
      poison.sends = fired;
      poison.lastAt = since();
    }
    await Promise.all(workers.map((w) => w.kill('SIGTERM')));

    // Figures.
    const limiter = sim.rateLimiter.snapshot();
    const reportOf = (jobId: string) =>
      readStoreReport(jobStore, jobId).then(
        (r) => r.lines,
        (e: Error) => {
          failures.push(`harness: the report of ${jobId} could not be read from ${jobStore} (${e.message})`);
          return [] as ItemResult[];
        },
      );
    const figures = async (j: JobRun): Promise<ShopFigures> => {
      const report: ItemResult[] = await reportOf(j.jobId);
      const listings = listingsOf(sim!, j.sellerId);
      const audit = auditShop(j.feed, listings, report);
      const history = await historyOf(client, bulkWorkflowId(j.jobId));
      const items = j.feed.length;
      return {
        shopId: j.shopId,
        jobId: j.jobId,
        state: j.state ?? 'unknown',
        reason: j.reason,
        expected: j.expected,
        ...audit,
        rateLimited: limiter[`shop:${j.sellerId}`]?.create_update?.limited ?? 0,
        sendsPerItem: sends.filter((s) => s.sellerId === j.sellerId).length / items,
        wallMs: (j.endedAt ?? Date.now()) - j.startedAt,
        runs: history.runs,
        historyBytes: history.bytes,
        historyEvents: history.events,
        historyBytesPerItem: history.bytes / items,
        eventsPerItem: history.events / items,
      };
    };
    const shops = await Promise.all(main.map(figures));
    for (const s of shops) {
      const why = `${s.shopId}:`;
      if (s.state !== 'finished')
        failures.push(`${why} job ended ${s.state}${s.reason ? ` (${s.reason})` : ''}`);
      if (s.listings !== s.expected)
        failures.push(`${why} ${s.listings} listings, expected exactly ${s.expected}`);
      auditFailures(why, s, failures);
    }
    let poisonFigures: ChaosResult['poison'];
    if (poisonSku) {
      const line = (await reportOf(main[0]!.jobId)).filter((r) => r.sku === poisonSku).at(-1);
      poisonFigures = {
        sku: poisonSku,
        status: line?.status ?? 'not reported',
        code: line?.code,
        sends: poison.sends,
        firstAt: poison.firstAt,
        lastAt: poison.lastAt,
      };
      if (line?.status !== 'failed')
        failures.push(`poison item ${poisonSku}: ${line?.status ?? 'not reported'}, expected failed`);
    }
    if (cancelJob && cancelResult) {
      cancelResult.shop = await figures(cancelJob);
      cancelResult.landed = await cancelLanding(client, bulkWorkflowId(cancelJob.jobId)).catch(
        (e: Error) => `unknown (${e.message})`,
      );
      const ack = cancelResult.acknowledgedAt;
      const late =
        ack === undefined ? [] : sends.filter((s) => s.sellerId === cancelJob.sellerId && s.at > ack);
      cancelResult.sentAfterAck = late.length;
      const c = cancelResult.shop;
      const why = 'cancelled job:';
      if (cancelResult.error) failures.push(`${why} the cancel could not be sent (${cancelResult.error})`);
      if (c.state !== 'cancelled') failures.push(`${why} ended ${c.state}, expected cancelled`);
      if (cancelResult.sentAfterAck)
        failures.push(
          `${why} ${late.length} create(s) sent after the cancel was acknowledged (${late
            .slice(0, 3)
            .map((s) => `${s.sku} at +${((s.at - ack!) / 1000).toFixed(1)} s`)
            .join(', ')}${late.length > 3 ? ', …' : ''})`,
        );
      auditFailures(why, c, failures);
    }
    const counters = sim.faults.counters();
    const storm = [...counters.rules, ...counters.spent].find((r) => r.type === 'rate_limit_storm');
    return {
      options: shown,
      dir,
      shops,
      cancel: cancelResult,
      poison: poisonFigures,
      storm: { requests: storm?.fired ?? 0 },
      faultsFired: counters.byType,
      events,
      workers: workers.map((w) => ({ name: w.name, crashes: w.crashes })),
      wallMs,
      failures,
    };
  } finally {
    finished = true;
    for (const w of workers) await w.kill('SIGKILL').catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await server.stop().catch(() => undefined);
    await sim?.close().catch(() => undefined);
    killAll();
  }
}

/** Runs, events and bytes of every run of a workflow (continue-as-new chains). */
async function historyOf(client: Client, workflowId: string) {
  let runs = 0;
  let bytes = 0;
  let events = 0;
  for await (const run of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    const d = await client.workflow.getHandle(workflowId, run.runId).describe();
    runs++;
    bytes += d.historySize ?? 0;
    events += d.historyLength;
  }
  return { runs, bytes, events };
}

interface HistoryEvent {
  eventId?: { toString(): string } | null;
  eventType?: number | string | null;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null;
  activityTaskCompletedEventAttributes?: { scheduledEventId?: { toString(): string } | null } | null;
  workflowExecutionUpdateAcceptedEventAttributes?: {
    acceptedRequest?: { input?: { name?: string | null } | null } | null;
  } | null;
  workflowExecutionSignaledEventAttributes?: { signalName?: string | null } | null;
  workflowExecutionContinuedAsNewEventAttributes?: unknown;
  workflowExecutionCompletedEventAttributes?: unknown;
  workflowTaskCompletedEventAttributes?: unknown;
}

/**
 * True once the run has completed `windows` sendBatch activities AND a workflow task has handled the
 * last of them: the run has decided to continue as new and is handing off (or will at its next turn).
 */
function handingOff(events: HistoryEvent[], windows: number): boolean {
  const sendIds = new Set(
    events
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendBatch')
      .map((e) => String(e.eventId)),
  );
  const done = events.filter(
    (e) =>
      e.activityTaskCompletedEventAttributes &&
      sendIds.has(String(e.activityTaskCompletedEventAttributes.scheduledEventId)),
  );
  const last = done[windows - 1];
  if (!last) return false;
  const after = events.slice(events.indexOf(last) + 1);
  return after.some((e) => e.workflowTaskCompletedEventAttributes);
}

async function cancelAtHandOff(
  client: Client,
  job: JobRun,
  o: ChaosOptions,
  out: NonNullable<ChaosResult['cancel']>,
  note: (what: string) => void,
): Promise<void> {
  const handle = client.workflow.getHandle(bulkWorkflowId(job.jobId));
  out.trigger = `cancel update sent as soon as a workflow task had handled the run's sendBatch number ${Math.max(1, o.cancelWindowsPerRun - 1)} (windowsPerRun ${o.cancelWindowsPerRun}, turns that read or verify count too: the run is handing off or about to; history polled every 50 ms)`;
  for (;;) {
    if (job.endedAt !== undefined) {
      out.error = 'the job ended before its first hand-off';
      return;
    }
    const history = await handle.fetchHistory().catch(() => undefined);
    // A run's turns that only read or verify count towards windowsPerRun too: the hand-off can come
    // right after the run's (windowsPerRun − 1)th window.
    const windows = Math.max(1, o.cancelWindowsPerRun - 1);
    if (history && handingOff((history.events ?? []) as HistoryEvent[], windows)) break;
    await sleep(50);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const p = await handle.executeUpdate(cancelUpdate, { args: [{ shopIds: [job.shopId] }] });
      out.acknowledgedAt = Date.now();
      note(`cancel acknowledged (job ${p.state}, run ${p.runs})`);
      return;
    } catch (e) {
      if (attempt >= 5) {
        out.error = (e as Error).message;
        return;
      }
      await sleep(200);
    }
  }
}

/** Which run accepted the cancel (update or signal) and how that run ended. */
async function cancelLanding(client: Client, workflowId: string): Promise<string> {
  const runs: { runId: string; start: number }[] = [];
  for await (const r of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
    runs.push({ runId: r.runId, start: r.startTime.getTime() });
  runs.sort((a, b) => a.start - b.start);
  for (const [i, r] of runs.entries()) {
    const events = ((await client.workflow.getHandle(workflowId, r.runId).fetchHistory()).events ??
      []) as HistoryEvent[];
    const accepted = events.some(
      (e) =>
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'cancelJob' ||
        e.workflowExecutionSignaledEventAttributes?.signalName === 'cancel',
    );
    if (!accepted) continue;
    const last = events.at(-1);
    const ended = last?.workflowExecutionContinuedAsNewEventAttributes
      ? 'continued as new'
      : last?.workflowExecutionCompletedEventAttributes
        ? 'completed'
        : 'ended otherwise';
    return `run ${i + 1} of ${runs.length}, which then ${ended}`;
  }
  return `no run of ${runs.length} recorded it`;
}
