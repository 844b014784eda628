// Activities of the feed: take the job's snapshot, read a chunk of items by offset (checked with the
// client core's rules), and report the lines a cancelled job never read. Item bodies and report lines
// stay in the job store (stores/job-store.ts) every worker opens; the workflow gets lines, keys and
// counts. Each one checks first that this worker's store is the one holding the job's data (`storeOf`):
// a worker on another host fails retryably (the job pauses with the reason), never with a non-retryable
// "snapshot is gone".
import { Context } from '@temporalio/activity';
import type { BulkOperation, FeedChunk, FeedRef, FeedSnapshot, ItemResult } from '../types.ts';
import type { JobRef, JobStore, PartRef } from '../stores/job-store.ts';
import type { ActivityContext } from './context.ts';
import { readChunk } from './feed.ts';
import { storeOf } from './job-data.ts';
import { writeOutcomes } from './report.ts';
import { takeSnapshot } from './snapshot.ts';
import { feedPolicy } from './feed-policy.ts';

/** Heartbeat period while a snapshot downloads (a slow URL sends no records to count). */
const BEAT_MS = 1_000;
/** Records read at a time by `reportUnread`, and report lines per piece it writes. */
const UNREAD_CHUNK = 1_000;
const UNREAD_PIECE_LINES = 2_000;
/**
 * The attempt `reportUnread` writes its part as, whichever attempt runs: the lines are the same for every
 * attempt (read from the immutable snapshot), so a retry resumes the same part from its heartbeat
 * instead of starting a part of its own.
 */
const UNREAD_ATTEMPT = 1;

/** Where `reportUnread` is: the next record and piece, the counts so far (its heartbeat details). */
export interface UnreadProgress {
  next: number;
  piece: number;
  cancelled: number;
  invalid: number;
}

/**
 * The store holding the snapshot `s`, checked: `s.storeId` names it and `job` (the job reading it, which
 * may be a many-shop job's shop reading its parent's snapshot) is named in the message when this
 * worker's store is another.
 */
export async function snapshotStore(store: JobStore, s: FeedSnapshot, job: JobRef): Promise<JobStore> {
  await storeOf(store, { ...job, storeId: s.storeId });
  if (job.storeId !== s.storeId) await storeOf(store, job);
  return store;
}

/**
 * Reports every record from `from` to the end: invalid ones as `invalid` (with their rule), the others
 * as `cancelled`. Streams chunk by chunk (memory stays flat for any feed) into pieces of the one part
 * `at` (attempt UNREAD_ATTEMPT); a retried attempt resumes from `resume` and rewrites the same pieces.
 */
export async function reportUnreadLines(
  store: JobStore,
  s: FeedSnapshot,
  from: number,
  operation: BulkOperation,
  at: PartRef,
  beat: (progress: UnreadProgress) => void = () => {},
  resume?: UnreadProgress,
): Promise<{ cancelled: number; invalid: number; attempt: number }> {
  const progress: UnreadProgress = resume ?? { next: from, piece: 0, cancelled: 0, invalid: 0 };
  while (progress.next < s.total) {
    const end = Math.min(progress.next + UNREAD_PIECE_LINES, s.total);
    const lines: ItemResult[] = [];
    for (let offset = progress.next; offset < end; offset += UNREAD_CHUNK) {
      const chunk = await readChunk(store, s, offset, Math.min(UNREAD_CHUNK, end - offset), operation);
      for (const item of chunk.items)
        lines.push({
          line: item.line,
          sku: item.sku,
          status: 'cancelled',
          message: 'job cancelled before this item was sent',
        });
      lines.push(...chunk.invalid);
      beat({ ...progress });
    }
    const cancelled = lines.filter((l) => l.status === 'cancelled').length;
    await writeOutcomes(store, at, lines, UNREAD_ATTEMPT, progress.piece);
    Object.assign(progress, {
      next: end,
      piece: progress.piece + 1,
      cancelled: progress.cancelled + cancelled,
      invalid: progress.invalid + lines.length - cancelled,
    });
    beat({ ...progress });
  }
  return { cancelled: progress.cancelled, invalid: progress.invalid, attempt: UNREAD_ATTEMPT };
}

export function createFeedActivities({ deps }: ActivityContext) {
  return {
    /**
     * The job's snapshot, taken once into the worker's job store: a retry returns the one the job
     * already has (keyed by its workflow id and first run id, never one an earlier job of the id left).
     * The feed is read under this worker's feed policy (no policy given: path feeds off, public https
     * only, default limits). Heartbeats while it reads; stops when cancelled.
     */
    async snapshotFeed(feed: FeedRef, job: Omit<JobRef, 'storeId'>): Promise<FeedSnapshot> {
      const ctx = Context.current();
      const beat = () => ctx.heartbeat();
      const timer = setInterval(beat, BEAT_MS);
      try {
        return await takeSnapshot(feed, deps.jobStore, job, {
          policy: deps.feedPolicy ?? feedPolicy(),
          onProgress: beat,
          signal: ctx.cancellationSignal,
        });
      } finally {
        clearInterval(timer);
      }
    },

    /**
     * A chunk's items (without bodies); its invalid items go to the part `at`, written by this attempt
     * (even when empty: it clears what an abandoned run left under the same seq). Answers the attempt,
     * whose part the workflow accepts.
     */
    async readFeedChunk(
      s: FeedSnapshot,
      offset: number,
      size: number,
      operation: BulkOperation,
      at: PartRef,
    ): Promise<FeedChunk> {
      const store = await snapshotStore(deps.jobStore, s, at.job);
      const attempt = Context.current().info.attempt;
      const chunk = await readChunk(store, s, offset, size, operation);
      await writeOutcomes(store, at, chunk.invalid, attempt);
      return { ...chunk, invalid: chunk.invalid.length, attempt };
    },

    /**
     * A cancelled job's unread lines, reported on the worker (B4: never through history), as pieces of
     * one part; a retried attempt resumes from its heartbeat.
     */
    async reportUnread(
      s: FeedSnapshot,
      from: number,
      operation: BulkOperation,
      at: PartRef,
    ): Promise<{ cancelled: number; invalid: number; attempt: number }> {
      const ctx = Context.current();
      const store = await snapshotStore(deps.jobStore, s, at.job);
      const resume = ctx.info.heartbeatDetails as UnreadProgress | undefined;
      return reportUnreadLines(
        store,
        s,
        from,
        operation,
        at,
        (p) => ctx.heartbeat(p),
        resume && typeof resume.piece === 'number' ? resume : undefined,
      );
    },
  };
}
