// The unreachable-API scenario of issue 21 §2 (`pnpm chaos --unreachable`): a shop whose credential's
// base URL is http://127.0.0.1:9 (nothing listens: every request is refused before it leaves). The job
// must pause with the plain reason ("cannot reach http://127.0.0.1:9…") within 2 minutes, having listed
// nothing and failed nothing; the operator then fixes the credential (credentials.json rewritten: the
// worker reads it again when it changes, worker-env.ts) and resumes the job, which must finish with one
// report line per item, every item listed once. Stack: a Temporal dev server, the simulator in this
// process, one worker with the embedded job store (a folder of the run).
import { Client, Connection } from '@temporalio/client';
import type { RunningSimulator } from '@selling-kit/simulator';
import { resumeJob, startBulkJob } from '../src/client/client.ts';
import type { BulkProgress } from '../src/types.ts';
import { auditFailures, auditShop, type ShopAudit } from './audit.ts';
import { createShop, listingsOf, startLoggedSimulator, writeFeed } from './fixtures.ts';
import { followProgress, waitForEnd, type Sighting } from './job-watch.ts';
import { devStack, killAll, sleep, type WorkerProcess } from './processes.ts';
import { logToStderr, openChaosRun, type ChaosEvent, type ChaosRunOptions } from './run-log.ts';
import { readStoreReport } from './store-report.ts';

/** A port nothing listens on (discard): connections are refused at once. */
export const UNREACHABLE_URL = 'http://127.0.0.1:9';

/** `scale` divides the job's allowance (the spec's 200 per 10 s) too; `timeoutMs` counts from the resume. */
export interface UnreachableOptions extends ChaosRunOptions {
  /** The pause must show within this long after the job starts (real ms): the issue's 2 minutes. */
  pauseWithinMs: number;
}

export const DEFAULT_UNREACHABLE: UnreachableOptions = {
  items: 200,
  pauseWithinMs: 2 * 60_000,
  scale: 1,
  timeoutMs: 5 * 60_000,
  log: logToStderr,
};

export interface UnreachableResult extends ShopAudit {
  options: Omit<UnreachableOptions, 'log'>;
  dir: string;
  jobId: string;
  /** Seconds from the start to the pause, its reason, and the progress then (nothing may have failed). */
  pausedAfter?: number;
  pauseReason?: string;
  atPause?: Pick<BulkProgress, 'done' | 'failed' | 'pending'>;
  /** Every distinct pause the progress showed. */
  pauses: Sighting[];
  /** Seconds from the resume to the end, and how the job ended. */
  finishedAfterResume?: number;
  state: string;
  reason?: string;
  reportLines: number;
  distinctLines: number;
  sendsPerItem: number;
  events: ChaosEvent[];
  wallMs: number;
  failures: string[];
}

export async function runUnreachable(over: Partial<UnreachableOptions> = {}): Promise<UnreachableResult> {
  const o: UnreachableOptions = { ...DEFAULT_UNREACHABLE, ...over };
  const { log, ...shown } = o;
  const run = openChaosRun('unreachable', 'sk-chaos-unreachable-', log);
  const { dir, tag, events, failures, note } = run;
  const stack = await devStack(dir);
  const { server } = stack;
  let sim: RunningSimulator | undefined;
  let connection: Connection | undefined;
  let worker: WorkerProcess | undefined;
  try {
    log(`[unreachable] run folder ${dir}`);
    await server.start();
    const logged = await startLoggedSimulator({ timeScale: o.scale });
    sim = logged.sim;
    const shop = createShop(sim, `unreachable-${tag}`, 'partner-unreachable');
    const writeCredential = (baseUrl: string) =>
      stack.writeCredentials({ shop: { ...shop.credential, baseUrl } });
    writeCredential(UNREACHABLE_URL);
    const { jobStore } = stack;
    const taskQueue = `chaos-unreachable-${tag}`;
    worker = stack.worker('worker', taskQueue);
    await worker.start();
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection });

    const { path, lines } = writeFeed(dir, 'feed', `U${tag}`, o.items);
    const jobId = `unreachable-${tag}`;
    const jobStart = Date.now();
    await startBulkJob(
      client,
      {
        jobId,
        shop: { shopId: `unreachable-${tag}`, credentialRef: 'shop' },
        feed: { path, format: 'csv' },
        operation: 'create',
        allowance: { limit: 200, windowMs: 10_000 / o.scale },
      },
      taskQueue,
    );
    note(`job ${jobId} started: ${o.items} creates for a shop whose base URL is ${UNREACHABLE_URL}`);
    const progress = followProgress(client, jobId, jobStart);
    const paused = await progress.until(
      (p) => p.state === 'paused' && !!p.reason?.includes('cannot reach') && p.reason.includes('127.0.0.1:9'),
      o.pauseWithinMs,
    );
    const result: Omit<UnreachableResult, keyof ShopAudit | 'state' | 'reportLines' | 'distinctLines'> = {
      options: shown,
      dir,
      jobId,
      pauses: progress.pauses,
      sendsPerItem: 0,
      events,
      wallMs: 0,
      failures,
    };
    let resumedAt: number | undefined;
    if (paused) {
      result.pausedAfter = (Date.now() - jobStart) / 1000;
      result.pauseReason = paused.reason;
      result.atPause = { done: paused.done, failed: paused.failed, pending: paused.pending };
      note(
        `paused after ${result.pausedAfter.toFixed(1)} s: ${paused.reason} (done ${paused.done}, failed ${paused.failed})`,
      );
      if (paused.failed)
        failures.push(
          `${paused.failed} item(s) failed before the pause: an unreachable API must pause, not fail items`,
        );
      writeCredential(sim.url);
      note("credential fixed: credentials.json rewritten with the simulator's URL");
      for (let attempt = 1; resumedAt === undefined; attempt++) {
        try {
          const p = await resumeJob(client, jobId);
          resumedAt = Date.now();
          note(`resumed (job ${p.state})`);
        } catch (e) {
          if (attempt >= 5) {
            failures.push(`the resume could not be sent (${(e as Error).message})`);
            break;
          }
          await sleep(1000);
        }
      }
    } else {
      const last = progress.latest;
      failures.push(
        `no pause with "cannot reach ${UNREACHABLE_URL}" within ${o.pauseWithinMs / 1000} s (last: ${last?.state ?? '?'}${last?.reason ? `, ${last.reason}` : ''}; done ${last?.done ?? '?'}, failed ${last?.failed ?? '?'})`,
      );
    }
    const end = await waitForEnd(client, jobId, resumedAt ? o.timeoutMs : 0);
    await progress.stop();
    note(`job ${jobId} ended ${end.state}${end.reason ? ` (${end.reason})` : ''}`);
    if (resumedAt) result.finishedAfterResume = (end.endedAt - resumedAt) / 1000;
    const report = await readStoreReport(jobStore, jobId).catch((e: Error) => {
      failures.push(`the report could not be read from ${jobStore} (${e.message})`);
      return { lines: [] };
    });
    const audit = auditShop(lines, listingsOf(sim, shop.sellerId), report.lines);
    const figures: UnreachableResult = {
      ...result,
      ...audit,
      state: end.state,
      reason: end.reason,
      reportLines: report.lines.length,
      distinctLines: new Set(report.lines.map((l) => l.line)).size,
      sendsPerItem: logged.sends.filter((s) => s.sellerId === shop.sellerId).length / o.items,
      wallMs: run.elapsedMs(),
    };
    if (resumedAt && figures.state !== 'finished')
      failures.push(
        `the job ended ${figures.state}${figures.reason ? ` (${figures.reason})` : ''}, expected finished`,
      );
    if (figures.reportLines !== o.items || figures.distinctLines !== o.items)
      failures.push(
        `the report has ${figures.reportLines} lines (${figures.distinctLines} distinct), expected ${o.items}`,
      );
    if (figures.listings !== o.items)
      failures.push(`${figures.listings} listings, expected exactly ${o.items}`);
    auditFailures('unreachable:', audit, failures);
    return figures;
  } finally {
    await worker?.kill('SIGKILL').catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await server.stop().catch(() => undefined);
    await sim?.close().catch(() => undefined);
    killAll();
  }
}
