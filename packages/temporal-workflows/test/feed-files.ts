// Feed files for the tests that read feeds without a server (feed.test.ts, snapshot.test.ts): CSV text
// of the five basic columns, a feed file in a directory of its own, the failure a read ends with, a local
// job store in a temporary directory with job keys of their own, and an activity context to run an
// activity function in without a worker.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncLocalStorage, Context, type Info } from '@temporalio/activity';
import type { ApplicationFailure } from '@temporalio/common';
import type { JobRef, JobStore } from '../src/stores/job-store.ts';
import { feedPolicy } from '../src/activities/feed-policy.ts';
import { createLocalJobStore } from '../src/stores/job-store-local.ts';

/**
 * The feed policy of these tests' reads: feeds are files in the system's temporary folder (feedFile) or
 * on a local test server (plain http on 127.0.0.1, as a dev worker allows).
 */
export const TEST_FEED_POLICY = feedPolicy({ roots: [tmpdir()], allowLoopbackHttp: true });
/** Snapshot options with that policy. */
export const testFeed = { policy: TEST_FEED_POLICY };

/** The header of a CSV feed of the five basic columns. */
export const BASIC_HEADER = 'sku,description,price_amount,price_currency,quantity';
/** CSV text: that header, then `lines`. */
export const basicCsv = (lines: string[]) => [BASIC_HEADER, ...lines].join('\n') + '\n';

/** A feed file `name` holding `content`, in a new directory of its own. */
export function feedFile(content: string | Buffer, name = 'feed.csv'): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sk-feed-'));
  const path = join(dir, name);
  writeFileSync(path, content);
  return { dir, path };
}

/** The rejection of `promise` (it must reject). */
export async function failure(promise: Promise<unknown>): Promise<ApplicationFailure> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: ApplicationFailure) => e,
  );
}

/** A local job store in a new temporary directory (`dir`). */
export function tempStore(): JobStore & { dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sk-store-'));
  return Object.assign(createLocalJobStore(dir), { dir });
}

/** A job of its own (a new first run id each call), as the workflow names it to `snapshotFeed`. */
export const newJob = (jobId = 'job-1'): Omit<JobRef, 'storeId'> => ({
  workflowId: `bulk:${jobId}`,
  firstRunId: randomUUID(),
  jobId,
});

/**
 * Runs `fn` as an activity attempt would (Context.current() answers): its attempt, heartbeat details
 * from an earlier attempt, a cancellation signal; heartbeats go to `beat`.
 */
export function inActivity<T>(
  fn: () => Promise<T>,
  opts: { attempt?: number; details?: unknown; signal?: AbortSignal; beat?: (details: unknown) => void } = {},
): Promise<T> {
  const info = { attempt: opts.attempt ?? 1, heartbeatDetails: opts.details } as unknown as Info;
  const never = new Promise<never>(() => {});
  const ctx = new (Context as unknown as new (...args: unknown[]) => Context)(
    info,
    never,
    opts.signal ?? new AbortController().signal,
    opts.beat ?? (() => {}),
    undefined,
    console,
    undefined,
  );
  return asyncLocalStorage.run(ctx, fn);
}
