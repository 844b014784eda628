// Following one bulk job from the harness, as an operator would: its progress (the `progress` query:
// state and the reason of a pause) sampled while it runs, and its end (polled with describe: a long poll
// on the result does not survive a server restart). Neither changes the job.
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { bulkWorkflowId, getProgress } from '../src/client/client.ts';
import type { BulkProgress } from '../src/types.ts';
import { sleep } from './processes.ts';

/** A state or reason the job showed, first seen this many seconds after `t0`. */
export interface Sighting {
  at: number;
  state: string;
  reason?: string;
}

/**
 * Samples the job's progress every `everyMs` until `stop()`: `latest` is the last answer, `pauses` every
 * distinct (state, reason) of a paused job, in order. A query that fails (no worker up, the server
 * restarting) is skipped.
 */
export function followProgress(client: Client, jobId: string, t0: number, everyMs = 500) {
  let running = true;
  const seen = new Set<string>();
  const out = {
    latest: undefined as BulkProgress | undefined,
    pauses: [] as Sighting[],
    /** Resolves with the first sample that matches, or undefined when `timeoutMs` passes first. */
    async until(match: (p: BulkProgress) => boolean, timeoutMs: number): Promise<BulkProgress | undefined> {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (out.latest && match(out.latest)) return out.latest;
        await sleep(Math.min(everyMs, 250));
      }
      return undefined;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
  const loop = (async () => {
    while (running) {
      const p = await getProgress(client, jobId).catch(() => undefined);
      if (p) {
        out.latest = p;
        const key = `${p.state}\n${p.reason ?? ''}`;
        if (p.state === 'paused' && !seen.has(key)) {
          seen.add(key);
          out.pauses.push({
            at: Number(((Date.now() - t0) / 1000).toFixed(1)),
            state: p.state,
            reason: p.reason,
          });
        }
      }
      await sleep(everyMs);
    }
  })();
  return out;
}

export interface JobEnd {
  /** finished, cancelled, failed (the workflow's status), or `running` when the harness gave up. */
  state: string;
  reason?: string;
  endedAt: number;
  /** The workflow's result, when it completed. */
  progress?: BulkProgress;
}

/**
 * Waits for the job's workflow to close; gives up (and terminates it) after `timeoutMs` or when `stall()`
 * answers a reason.
 */
export async function waitForEnd(
  client: Client,
  jobId: string,
  timeoutMs: number,
  stall: () => string | undefined = () => undefined,
): Promise<JobEnd> {
  const handle = client.workflow.getHandle(bulkWorkflowId(jobId));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await handle.describe().catch(() => undefined);
    if (d && d.status.name !== 'RUNNING') {
      const endedAt = d.closeTime?.getTime() ?? Date.now();
      try {
        const progress = (await handle.result()) as BulkProgress;
        return { state: progress.state, reason: progress.reason, endedAt, progress };
      } catch (e) {
        const cause = e instanceof WorkflowFailedError ? e.cause : e;
        return {
          state: d.status.name.toLowerCase(),
          reason: cause instanceof Error ? cause.message : String(cause),
          endedAt,
        };
      }
    }
    const stalled = stall();
    if (stalled || Date.now() > deadline) {
      await handle.terminate('chaos harness gave up').catch(() => undefined);
      return {
        state: 'running',
        reason: stalled ?? `still running after ${timeoutMs / 1000} s`,
        endedAt: Date.now(),
      };
    }
    await sleep(1000);
  }
}
