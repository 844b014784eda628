// Activities of the feed: take the job's snapshot, read a chunk of items by offset (checked with the
// client core's rules), and report the lines a cancelled job never read. Item bodies and report lines
// stay on the worker's storage; the workflow gets lines, keys and counts.
import { Context } from '@temporalio/activity';
import type { BulkOperation, FeedChunk, FeedRef, FeedSnapshot, ItemResult } from '../types.ts';
import type { ActivityContext } from './context.ts';
import { readChunk } from './feed.ts';
import { jobFile, writeReportPart, type ReportPart } from './report.ts';
import { takeSnapshot } from './snapshot.ts';

/** Heartbeat period while a snapshot downloads (a slow URL sends no records to count). */
const BEAT_MS = 1_000;
/** Records read at a time by `reportUnread`, and report lines per part it writes. */
const UNREAD_CHUNK = 1_000;
const UNREAD_PART_LINES = 2_000;

/** Where `reportUnread` is: the next record and part, the counts so far (its heartbeat details). */
export interface UnreadProgress {
  next: number;
  part: number;
  cancelled: number;
  invalid: number;
}

/**
 * Reports every record from `from` to the end: invalid ones as `invalid` (with their rule), the others
 * as `cancelled`. Streams chunk by chunk (memory stays flat for any feed) into parts
 * `<at.part>-<n>`; a retried attempt resumes from `resume` and rewrites the same parts.
 */
export async function reportUnreadLines(
  s: FeedSnapshot,
  from: number,
  operation: BulkOperation,
  at: ReportPart,
  beat: (progress: UnreadProgress) => void = () => {},
  resume?: UnreadProgress,
): Promise<{ cancelled: number; invalid: number }> {
  const progress: UnreadProgress = resume ?? { next: from, part: 0, cancelled: 0, invalid: 0 };
  const digits = String(Math.ceil(Math.max(s.total - from, 1) / UNREAD_PART_LINES)).length;
  while (progress.next < s.total) {
    const end = Math.min(progress.next + UNREAD_PART_LINES, s.total);
    const lines: ItemResult[] = [];
    for (let offset = progress.next; offset < end; offset += UNREAD_CHUNK) {
      const chunk = await readChunk(s, offset, Math.min(UNREAD_CHUNK, end - offset), operation);
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
    const name = `${at.part}-${String(progress.part).padStart(Math.max(digits, 4), '0')}`;
    await writeReportPart({ ...at, part: name }, lines);
    Object.assign(progress, {
      next: end,
      part: progress.part + 1,
      cancelled: progress.cancelled + cancelled,
      invalid: progress.invalid + lines.length - cancelled,
    });
    beat({ ...progress });
  }
  return { cancelled: progress.cancelled, invalid: progress.invalid };
}

export function createFeedActivities(_ctx: ActivityContext) {
  return {
    /**
     * The job's snapshot beside its report, taken once: a retry returns the one its run already took
     * (the workflow carries it across continue-as-new), never one an earlier job of the id left.
     */
    async snapshotFeed(feed: FeedRef, reportDir: string, jobId: string): Promise<FeedSnapshot> {
      const ctx = Context.current();
      const beat = () => ctx.heartbeat();
      const timer = setInterval(beat, BEAT_MS);
      try {
        const dir = jobFile(reportDir, jobId, '.snapshot');
        return await takeSnapshot(feed, dir, beat, ctx.info.workflowExecution?.runId);
      } finally {
        clearInterval(timer);
      }
    },

    /** A chunk's items (without bodies); its invalid items go to the report part `at`. */
    async readFeedChunk(
      s: FeedSnapshot,
      offset: number,
      size: number,
      operation: BulkOperation,
      at: ReportPart,
    ): Promise<FeedChunk> {
      const chunk = await readChunk(s, offset, size, operation);
      await writeReportPart(at, chunk.invalid);
      return { ...chunk, invalid: chunk.invalid.length };
    },

    /** A cancelled job's unread lines, reported on the worker (B4: never through history). */
    async reportUnread(
      s: FeedSnapshot,
      from: number,
      operation: BulkOperation,
      at: ReportPart,
    ): Promise<{ cancelled: number; invalid: number }> {
      const ctx = Context.current();
      return reportUnreadLines(
        s,
        from,
        operation,
        at,
        (p) => ctx.heartbeat(p),
        ctx.info.heartbeatDetails as UnreadProgress | undefined,
      );
    },
  };
}
