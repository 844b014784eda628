// A job's feed snapshot without a Temporal server, in a local job store: taken once per job (idempotent),
// immutable while the live feed changes, refused when replaced, never left half-written, stopped by a
// cancel; URL feeds with redacted messages and retryable or final failures; a worker whose store is
// another fails retryably; and the lines of a cancelled job reported in the store, not in history.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { readChunk } from '../src/activities/feed.ts';
import { createFeedActivities, reportUnreadLines } from '../src/activities/feed-activities.ts';
import type { ActivityContext } from '../src/activities/context.ts';
import { readSnapshotRecords, takeSnapshot } from '../src/activities/snapshot.ts';
import { JOB_STORE_NOT_SHARED, type JobRef, type JobStore, type PartRef } from '../src/stores/job-store.ts';
import { jobFolderName } from '../src/stores/job-store-local.ts';
import type { FeedSnapshot } from '../src/types.ts';
import {
  BASIC_HEADER,
  basicCsv,
  failure,
  feedFile,
  inActivity,
  newJob,
  tempStore,
  testFeed,
  TEST_FEED_POLICY,
} from './feed-files.ts';

const rows = (from: number, to: number, tag = '') =>
  Array.from({ length: to - from + 1 }, (_, i) => `S-${from + i},Item ${from + i}${tag},10.00,GBP,1`);

const csvFile = (lines: string[]) => feedFile(basicCsv(lines));

/** What the store's folder holds for a job (the job's record, its snapshot, parts; never a temporary). */
const jobFolder = (store: { dir: string }, job: Omit<JobRef, 'storeId'>) =>
  readdirSync(join(store.dir, 'jobs', jobFolderName(job))).sort();

/** A part of `s`'s job as the workflow names it. */
const partOf = (s: FeedSnapshot, job: Omit<JobRef, 'storeId'>, seq: number, kind: string): PartRef => ({
  job: { ...job, storeId: s.storeId },
  seq,
  kind,
});

/** The activities of a worker whose job store is `store`. */
const activities = (store: JobStore) =>
  createFeedActivities({ deps: { jobStore: store, feedPolicy: TEST_FEED_POLICY } } as ActivityContext);

describe('snapshots', () => {
  it('are taken once: a retry returns the same snapshot, and the job keeps reading it while the feed is rewritten', async () => {
    const store = tempStore();
    const job = newJob();
    const { path } = csvFile(rows(1, 500));
    const s = await takeSnapshot({ path, format: 'csv' }, store, job, testFeed);
    expect(s).toMatchObject({
      job: { workflowId: job.workflowId, firstRunId: job.firstRunId },
      storeId: await store.id(),
      source: path,
      format: 'csv',
      total: 500,
    });
    expect(s.sha256).toMatch(/^[0-9a-f]{64}$/);

    // The exporter rewrites the feed (other items, other order) and the activity is retried.
    writeFileSync(path, basicCsv(rows(1, 800, ' (new)').reverse()));
    expect(await takeSnapshot({ path, format: 'csv' }, store, job, testFeed)).toEqual(s);
    const chunk = await readChunk(store, s, 450, 100, 'patch');
    expect(chunk).toMatchObject({ total: 500, nextOffset: 500, done: true });
    expect(chunk.items[0]).toMatchObject({ line: 451, sku: 'S-451' });
    expect(await readSnapshotRecords(store, s, 499, 500)).toEqual([
      { sku: 'S-500', description: 'Item 500', price_amount: '10.00', price_currency: 'GBP', quantity: 1 },
    ]);

    // Even without the live feed.
    rmSync(path);
    expect((await readChunk(store, s, 0, 10, 'patch')).items).toHaveLength(10);
  });

  it('a new job of the same id (another first run) does not adopt the snapshot an earlier job left behind', async () => {
    const store = tempStore();
    const { path } = csvFile(rows(1, 10));
    const run1 = newJob('weekly');
    const earlier = await takeSnapshot({ path, format: 'csv' }, store, run1, testFeed);
    writeFileSync(path, basicCsv(rows(1, 30)));
    expect(await takeSnapshot({ path, format: 'csv' }, store, run1, testFeed)).toEqual(earlier);
    const run2 = newJob('weekly');
    const next = await takeSnapshot({ path, format: 'csv' }, store, run2, testFeed);
    expect(next.total).toBe(30);
    // Each keeps its own: the earlier job's snapshot still reads as it was.
    expect((await readChunk(store, earlier, 0, 100, 'patch')).total).toBe(10);
    expect((await readChunk(store, next, 0, 100, 'patch')).items).toHaveLength(30);
  });

  it('a replaced or removed snapshot fails the read instead of serving other items', async () => {
    const store = tempStore();
    const job = newJob();
    const { path } = csvFile(rows(1, 50));
    const first = await takeSnapshot({ path, format: 'csv' }, store, job, testFeed);
    await store.deleteSnapshot(first.job);
    writeFileSync(path, basicCsv(rows(1, 50, ' (new)')));
    const second = await takeSnapshot({ path, format: 'csv' }, store, job, testFeed);
    expect(second.sha256).not.toBe(first.sha256);

    const replaced = await failure(readChunk(store, first, 0, 10, 'patch'));
    expect(replaced.type).toBe('FeedUnreadable');
    expect(replaced.nonRetryable).toBe(true);
    expect(replaced.message).toMatch(/snapshot of the feed .* was replaced/);
    expect((await readChunk(store, second, 0, 10, 'patch')).items).toHaveLength(10);

    await store.deleteSnapshot(second.job);
    const gone = await failure(readChunk(store, second, 0, 10, 'patch'));
    expect(gone.message).toMatch(/is gone/);
    expect(gone.nonRetryable).toBe(true);
  });

  it('a feed that cannot be read leaves no snapshot and no temporary files', async () => {
    const store = tempStore();
    const job = newJob();
    const { dir, path } = csvFile(['S-1,"unclosed,10.00,GBP,1', ...rows(2, 500)]);
    const e = await failure(takeSnapshot({ path, format: 'csv' }, store, job, testFeed));
    expect(e.type).toBe('FeedUnreadable');
    expect(await store.getSnapshot({ ...job, storeId: await store.id() })).toBeUndefined();
    expect(jobFolder(store, job)).toEqual(['job.json']);
    const missing = await failure(
      takeSnapshot({ path: join(dir, 'nope.csv'), format: 'csv' }, store, job, testFeed),
    );
    expect(missing.message).toMatch(/nope\.csv cannot be read: no such file/);
    expect(missing.nonRetryable).toBe(true);
    expect(jobFolder(store, job)).toEqual(['job.json']);
  });

  it('reports progress while it reads (the activity heartbeats from it)', async () => {
    const { path } = csvFile(rows(1, 3000));
    let calls = 0;
    await takeSnapshot({ path, format: 'csv' }, tempStore(), newJob(), {
      ...testFeed,
      onProgress: () => calls++,
    });
    expect(calls).toBeGreaterThanOrEqual(5);
  });

  it('a worker whose job store is another fails retryably with JobStoreNotShared, never "snapshot gone"', async () => {
    const [hostA, hostB] = [tempStore(), tempStore()];
    const job = newJob();
    const { path } = csvFile(['S-1,Item 1,10.00,GBP,1', 'S-2,Item 2', 'S-3,Item 3,10.00,GBP,1']);
    const s = await inActivity(() => activities(hostA).snapshotFeed({ path, format: 'csv' }, job));
    expect(s.storeId).toBe(await hostA.id());
    expect(await hostB.id()).not.toBe(s.storeId);

    const at = partOf(s, job, 1, 'feed');
    for (const attempt of [
      (): Promise<unknown> => activities(hostB).readFeedChunk(s, 0, 10, 'patch', at),
      () => activities(hostB).reportUnread(s, 0, 'patch', partOf(s, job, 2, 'unread')),
    ]) {
      const e = await failure(inActivity(attempt));
      expect(e.type).toBe(JOB_STORE_NOT_SHARED);
      expect(e.nonRetryable).toBe(false);
      expect(e.message).toMatch(/^job storage is not shared between workers: set SELLING_KIT_JOB_STORE/);
      expect(e.message).toContain(s.storeId);
    }
    // Nothing was written into B's store; A's serves the same call.
    expect(await hostB.getJob(job)).toBeUndefined();
    const chunk = await inActivity(() => activities(hostA).readFeedChunk(s, 0, 10, 'patch', at));
    expect(chunk.invalid).toBe(1);
  });
});

describe('stopping a snapshot', () => {
  let server: Server;
  let base: string;
  /** Responses the server holds open: it sends the header and a few rows, then nothing. */
  const held: ServerResponse[] = [];
  let closedByClient = 0;
  let requested: () => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.on('close', () => {
        if (!res.writableEnded) closedByClient++;
      });
      held.push(res);
      if (req.url === '/silent.csv') {
        requested();
        return; // no headers at all
      }
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.write([BASIC_HEADER, ...rows(1, 3)].join('\n') + '\n', () => requested());
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await new Promise<void>((ok) => server.close(() => ok()));
  });

  it.each(['/slow.csv', '/silent.csv'])(
    'a cancel stops the download of %s at once, aborts the store writer and leaves nothing',
    async (url) => {
      const store = tempStore();
      const job = newJob();
      const cancel = new AbortController();
      const arrived = new Promise<void>((ok) => (requested = ok));
      const closedBefore = closedByClient;
      const taking = inActivity(
        () => activities(store).snapshotFeed({ path: `${base}${url}`, format: 'csv' }, job),
        { signal: cancel.signal },
      );
      await arrived;
      const reason = new Error('activity cancelled');
      cancel.abort(reason);
      // Without the cancel this would wait for the feed (its idle timeout is longer than the test's).
      await expect(taking).rejects.toBe(reason);
      expect(await store.getSnapshot({ ...job, storeId: await store.id() })).toBeUndefined();
      expect(jobFolder(store, job)).toEqual(['job.json']);
      await new Promise<void>((ok) => setImmediate(ok));
      expect(closedByClient).toBe(closedBefore + 1);
    },
  );
});

describe('URL feeds', () => {
  let server: Server;
  let base: string;
  const seen: { url?: string; authorization?: string }[] = [];
  const csvBody = [BASIC_HEADER, ...rows(1, 20)].join('\r\n') + '\r\n';

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization });
      const status = Number(/^\/status\/(\d+)/.exec(req.url ?? '')?.[1] ?? 200);
      if (req.headers.authorization !== `Basic ${Buffer.from('user:pass').toString('base64')}`)
        res.writeHead(401).end();
      else if (status !== 200) res.writeHead(status).end();
      else res.writeHead(200, { 'content-type': 'text/csv' }).end(csvBody);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  const secretUrl = (path: string) => `http://user:pass@${base}${path}?X-Amz-Signature=secret`;
  const take = (path: string) => takeSnapshot({ path, format: 'csv' }, tempStore(), newJob(), testFeed);

  it('downloads once, with the userinfo as Basic authorization, and names the feed without secrets', async () => {
    seen.length = 0;
    const s = await take(secretUrl('/f.csv'));
    expect(s.total).toBe(20);
    expect(s.source).toBe(`http://${base}/f.csv?…`);
    expect(seen).toEqual([
      {
        url: '/f.csv?X-Amz-Signature=secret',
        authorization: `Basic ${Buffer.from('user:pass').toString('base64')}`,
      },
    ]);
    expect(JSON.stringify(s)).not.toMatch(/pass|secret/);
  });

  it('a 404 is final, a 503 and a network error are retried; no message holds the password or signature', async () => {
    const notFound = await failure(take(secretUrl('/status/404/f.csv')));
    expect(notFound.type).toBe('FeedUnreadable');
    expect(notFound.nonRetryable).toBe(true);
    expect(notFound.message).toBe(
      `the csv feed http://${base}/status/404/f.csv?… cannot be read: GET http://${base}/status/404/f.csv?… answered 404`,
    );

    const down = await failure(take(secretUrl('/status/503/f.csv')));
    expect(down.type).toBe('FeedUnavailable');
    expect(down.nonRetryable).toBe(false);
    expect(down.message).toMatch(/answered 503/);

    const closed = await new Promise<number>((ok) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => ok(port));
      });
    });
    const refused = await failure(take(`http://user:pass@127.0.0.1:${closed}/f.csv?X-Amz-Signature=secret`));
    expect(refused.type).toBe('FeedUnavailable');
    expect(refused.nonRetryable).toBe(false);
    expect(refused.message).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/f\.csv\?… failed: .*ECONNREFUSED/);

    for (const e of [notFound, down, refused]) {
      expect(e.message).not.toMatch(/pass|secret/);
      expect(JSON.stringify(e.details ?? [])).not.toMatch(/pass|secret/);
    }
  });
});

describe('the lines of a cancelled job', () => {
  it('reports 5,000 unread lines in the store: invalid ones with their rule, the others cancelled', async () => {
    // Every 100th row lacks two fields (malformed); every 250th has no SKU (invalid for a patch).
    const lines = Array.from({ length: 5500 }, (_, i) => {
      const n = i + 1;
      if (n % 100 === 0) return `S-${n},Item ${n},10.00`;
      if (n % 250 === 125) return `,Item ${n},10.00,GBP,1`;
      return `S-${n},Item ${n},10.00,GBP,1`;
    });
    const store = tempStore();
    const job = newJob();
    const { path } = csvFile(lines);
    const s = await takeSnapshot({ path, format: 'csv' }, store, job, testFeed);
    const at = partOf(s, job, 9, 'unread');
    const beats: number[] = [];
    const counts = await reportUnreadLines(store, s, 500, 'patch', at, (p) => beats.push(p.next));

    const report = (await store.readOutcomes(s.job)).lines;
    expect(report.map((r) => r.line)).toEqual(Array.from({ length: 5000 }, (_, i) => 501 + i));
    const invalid = report.filter((r) => r.status === 'invalid');
    expect(invalid.map((r) => r.line)).toEqual(
      Array.from({ length: 5000 }, (_, i) => 501 + i).filter((n) => n % 100 === 0 || n % 250 === 125),
    );
    expect(invalid.find((r) => r.line === 600)).toMatchObject({
      code: 'malformed_row',
      field: '(row)',
      rule: 'csv_columns',
      message: 'CSV line 601 has 3 fields, the header has 5',
    });
    expect(invalid.find((r) => r.line === 625)).toMatchObject({ code: 'validation', field: 'sku' });
    expect(report.find((r) => r.line === 501)).toEqual({
      line: 501,
      sku: 'S-501',
      status: 'cancelled',
      message: 'job cancelled before this item was sent',
    });
    expect(counts).toEqual({ cancelled: 5000 - invalid.length, invalid: invalid.length, attempt: 1 });
    expect(beats.length).toBeGreaterThanOrEqual(5);

    // Pieces of ONE part (seq 9): a retried attempt resumes from its heartbeat and rewrites the same
    // pieces, so the part stays whole whichever attempt the workflow accepts.
    const parts = () => readdirSync(join(store.dir, 'jobs', jobFolderName(job), 'parts')).sort();
    expect(parts()).toEqual(['0000000009-1-0.ndjson', '0000000009-1-1.ndjson', '0000000009-1-2.ndjson']);
    const resumed = await inActivity(() => activities(store).reportUnread(s, 500, 'patch', at), {
      attempt: 2,
      details: { next: 2500, piece: 1, cancelled: 1000, invalid: 10 },
    });
    const laterInvalid = invalid.filter((r) => r.line > 2500).length;
    expect(resumed).toEqual({
      cancelled: 1000 + 3000 - laterInvalid,
      invalid: 10 + laterInvalid,
      attempt: 1,
    });
    expect(parts()).toHaveLength(3);
    expect((await store.readOutcomes(s.job, { accepted: { 9: resumed.attempt } })).lines).toEqual(report);
  });

  it('readFeedChunk writes its invalid items as its attempt’s part, even none, and gives the workflow their count', async () => {
    const store = tempStore();
    const job = newJob();
    const { path } = csvFile(['S-1,Item 1,10.00,GBP,1', 'S-2,Item 2', 'S-3,Item 3,10.00,GBP,1']);
    const s = await takeSnapshot({ path, format: 'csv' }, store, job, testFeed);
    const at = partOf(s, job, 1, 'feed');
    const chunk = await inActivity(() => activities(store).readFeedChunk(s, 0, 10, 'patch', at), {
      attempt: 2,
    });
    expect(chunk).toEqual({
      items: [
        { line: 1, sku: 'S-1' },
        { line: 3, sku: 'S-3' },
      ],
      invalid: 1,
      nextOffset: 3,
      done: true,
      total: 3,
      attempt: 2,
    });
    expect((await store.readOutcomes(s.job, { accepted: { 1: 2 } })).lines).toEqual([
      expect.objectContaining({ line: 2, status: 'invalid', code: 'malformed_row' }),
    ]);
    // Attempt 1 is not the accepted one: its part (had it written one) never counts.
    expect(await store.countOutcomes(s.job)).toBe(0);

    // A chunk without invalid items still writes its (empty) part: it replaces what an abandoned run
    // (a reset) left under the same seq and attempt.
    await store.writePart(at.job, { seq: 5, attempt: 1, kind: 'feed' }, [
      { line: 3, sku: 'S-3', status: 'invalid', code: 'stale' },
    ]);
    await inActivity(() => activities(store).readFeedChunk(s, 2, 1, 'patch', partOf(s, job, 5, 'feed')));
    expect(await store.countOutcomes(s.job)).toBe(0);
  });
});
