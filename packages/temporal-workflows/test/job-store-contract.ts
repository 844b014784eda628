// The JobStore contract (src/stores/job-store.ts), one jest suite every backend runs: the local folder
// (job-store-local.test.ts) and PostgreSQL (job-store-pg.test.ts). A backend passes by opening a fresh,
// empty store per test; `reopen` opens the same store again (another worker: another pool or another
// handle on the folder), `other` a different store (another folder, another database schema).
import { randomUUID } from 'node:crypto';
import type { JobKey, JobRef, JobStore, SnapshotMeta } from '../src/stores/job-store.ts';
import type { ItemResult } from '../src/types.ts';

export interface OpenedJobStore {
  store: JobStore;
  /** The same store, opened again (a second worker). */
  reopen(): Promise<JobStore>;
  /** A different store of the same kind. */
  other(): Promise<JobStore>;
  /** Removes the store's data (the suite closes every store it opened first). */
  cleanup(): Promise<void>;
}

const T = 30_000;
/** Lets the store's clock move on: records made after it are strictly newer. */
const tick = () => new Promise((r) => setTimeout(r, 5));

export function describeJobStore(name: string, open: () => Promise<OpenedJobStore>) {
  describe(`JobStore contract: ${name}`, () => {
    let opened: OpenedJobStore;
    let store: JobStore;
    let storeId: string;
    let extra: JobStore[];
    const reopen = async () => {
      const s = await opened.reopen();
      extra.push(s);
      return s;
    };
    const other = async () => {
      const s = await opened.other();
      extra.push(s);
      return s;
    };

    beforeEach(async () => {
      extra = [];
      opened = await open();
      store = opened.store;
      await store.migrate();
      storeId = await store.id();
    }, T);
    afterEach(async () => {
      for (const s of [store, ...extra]) await s.close().catch(() => {});
      await opened.cleanup();
    }, T);

    let n = 0;
    const ref = (over: Partial<JobRef> = {}): JobRef => {
      const i = ++n;
      return { workflowId: `bulk:job-${i}`, firstRunId: randomUUID(), jobId: `job-${i}`, storeId, ...over };
    };
    const meta = (total: number, over: Partial<SnapshotMeta> = {}): SnapshotMeta => ({
      source: 'https://feeds.example/f.csv',
      format: 'csv',
      sha256: 'ab'.repeat(32),
      total,
      ...over,
    });
    const result = (line: number, status: ItemResult['status'] = 'ok', over: Partial<ItemResult> = {}) =>
      ({ line, sku: `SKU-${line}`, status, ...over }) satisfies ItemResult;
    const lines = (from: number, to: number, status: ItemResult['status'] = 'ok') =>
      Array.from({ length: to - from + 1 }, (_, i) => result(from + i, status));
    const snapshot = async (
      s: JobStore,
      job: JobRef,
      records: string[],
      over: Partial<SnapshotMeta> = {},
    ) => {
      const w = await s.createSnapshot(job);
      await w.append(records);
      return w.commit(meta(records.length, over));
    };
    /** The whole merged report, page by page. */
    const report = async (s: JobStore, job: JobKey, rule = {}) => (await s.readOutcomes(job, rule)).lines;
    const statuses = async (s: JobStore, job: JobKey, rule = {}) =>
      Object.fromEntries((await report(s, job, rule)).map((r) => [r.line, r.status]));

    describe('identity', () => {
      it(
        'keeps its id across reopening; another store has another id; migrate is idempotent',
        async () => {
          expect(storeId).toMatch(/\S{8,}/);
          await store.migrate();
          expect(await store.id()).toBe(storeId);
          const again = await reopen();
          await again.migrate();
          expect(await again.id()).toBe(storeId);
          const elsewhere = await other();
          await elsewhere.migrate();
          const otherId = await elsewhere.id();
          expect(otherId).not.toBe(storeId);
          expect(elsewhere.kind).toBe(store.kind);
          expect(['local', 'postgres']).toContain(store.kind);
          expect(store.location).not.toBe('');
        },
        T,
      );
    });

    describe('snapshots', () => {
      it(
        'shows nothing before commit, then every record as written (escaped newlines, unicode)',
        async () => {
          const job = ref({ parentJobId: 'parent-1', shopId: 'shop-1' });
          const records = [
            JSON.stringify({ sku: 'A', description: 'two\nlines\r\nand a tab\t' }),
            JSON.stringify({ sku: 'Ü', description: 'Ünïcødé 🎉 日本語 \u2028 \u2029 \u0000 end' }),
            JSON.stringify({ __malformed_row: 'a,"b\nc' }),
            '{}',
          ];
          const w = await store.createSnapshot(job);
          await w.append(records.slice(0, 2));
          await w.append(records.slice(2));
          expect(await store.getSnapshot(job)).toBeUndefined();
          expect(await store.readRecords(job, 0, 10)).toEqual([]);
          // The record of the job exists from the first write on, with its ids.
          const record = await store.getJob(job);
          expect(record).toMatchObject({
            key: { workflowId: job.workflowId, firstRunId: job.firstRunId },
            jobId: job.jobId,
            parentJobId: 'parent-1',
            shopId: 'shop-1',
          });
          expect(Number.isNaN(Date.parse(record!.createdAt))).toBe(false);
          expect(record!.state).toBeUndefined();

          const m = meta(records.length, { format: 'ndjson' });
          expect(await w.commit(m)).toEqual(m);
          expect(await store.getSnapshot(job)).toEqual(m);
          expect(await store.readRecords(job, 0, records.length)).toEqual(records);
          expect(records.map((r) => JSON.parse(r) as unknown)).toEqual(
            (await store.readRecords(job, 0, 4)).map((r) => JSON.parse(r) as unknown),
          );
          // Another worker of the same store sees it.
          expect(await (await reopen()).readRecords(job, 1, 2)).toEqual([records[1]]);
        },
        T,
      );

      it(
        'the first commit wins: a later writer gets the first meta and its records are dropped',
        async () => {
          const job = ref();
          const first = await store.createSnapshot(job);
          const second = await (await reopen()).createSnapshot(job);
          await second.append(['{"w":2,"i":0}', '{"w":2,"i":1}', '{"w":2,"i":2}']);
          await first.append(['{"w":1,"i":0}', '{"w":1,"i":1}']);
          const m1 = meta(2, { sha256: '11'.repeat(32) });
          expect(await first.commit(m1)).toEqual(m1);
          expect(await second.commit(meta(3, { sha256: '22'.repeat(32) }))).toEqual(m1);
          expect(await store.getSnapshot(job)).toEqual(m1);
          expect(await store.readRecords(job, 0, 10)).toEqual(['{"w":1,"i":0}', '{"w":1,"i":1}']);
          // A third attempt, long after: still the first.
          expect(await snapshot(store, job, ['{"w":3}'])).toEqual(m1);
          expect(await store.readRecords(job, 0, 10)).toHaveLength(2);
        },
        T,
      );

      it(
        'abort drops what was written; a new attempt then commits its own',
        async () => {
          const job = ref();
          const w = await store.createSnapshot(job);
          await w.append(['{"aborted":true}']);
          await w.abort();
          expect(await store.getSnapshot(job)).toBeUndefined();
          expect(await store.readRecords(job, 0, 5)).toEqual([]);
          const m = await snapshot(store, job, ['{"kept":1}', '{"kept":2}']);
          expect(m.total).toBe(2);
          expect(await store.readRecords(job, 0, 5)).toEqual(['{"kept":1}', '{"kept":2}']);
        },
        T,
      );

      it(
        'reads any range, clamped to the snapshot',
        async () => {
          const job = ref();
          const records = Array.from({ length: 10 }, (_, i) => JSON.stringify({ i, text: `row ${i} ✓` }));
          await snapshot(store, job, records);
          expect(await store.readRecords(job, 3, 7)).toEqual(records.slice(3, 7));
          expect(await store.readRecords(job, -5, 2)).toEqual(records.slice(0, 2));
          expect(await store.readRecords(job, 8, 100)).toEqual(records.slice(8));
          expect(await store.readRecords(job, 0, 10)).toEqual(records);
          expect(await store.readRecords(job, 10, 20)).toEqual([]);
          expect(await store.readRecords(job, 5, 5)).toEqual([]);
          expect(await store.readRecords(job, 7, 3)).toEqual([]);
          expect(await store.readRecords(ref(), 0, 10)).toEqual([]); // no such job
        },
        T,
      );

      it(
        'deleteSnapshot removes the snapshot and keeps the outcomes and the record',
        async () => {
          const job = ref();
          await snapshot(store, job, ['{"a":1}', '{"a":2}']);
          await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 2));
          await store.deleteSnapshot(job);
          expect(await store.getSnapshot(job)).toBeUndefined();
          expect(await store.readRecords(job, 0, 2)).toEqual([]);
          expect(await report(store, job)).toEqual(lines(1, 2));
          expect(await store.getJob(job)).toMatchObject({ jobId: job.jobId });
          await store.deleteSnapshot(job); // again: nothing to do, no error
        },
        T,
      );
    });

    describe('outcomes', () => {
      it(
        'writePart creates the job record and replaces its piece whole; an empty write clears it',
        async () => {
          const job = ref({ parentJobId: 'p', shopId: 's' });
          await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 3, 'failed'));
          expect(await store.getJob(job)).toMatchObject({ jobId: job.jobId, parentJobId: 'p', shopId: 's' });
          expect(await statuses(store, job)).toEqual({ 1: 'failed', 2: 'failed', 3: 'failed' });
          // Rewritten: what the new write holds, nothing of the old one (line 3 is gone).
          await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 2, 'ok'));
          expect(await statuses(store, job)).toEqual({ 1: 'ok', 2: 'ok' });
          await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, []);
          expect(await store.countOutcomes(job)).toBe(0);
          expect(await report(store, job)).toEqual([]);
        },
        T,
      );

      it(
        'every piece of a part counts; each piece is rewritten on its own',
        async () => {
          const job = ref();
          await store.writePart(
            job,
            { seq: 4, attempt: 1, piece: 0, kind: 'unread' },
            lines(1, 2, 'cancelled'),
          );
          await store.writePart(
            job,
            { seq: 4, attempt: 1, piece: 1, kind: 'unread' },
            lines(3, 4, 'cancelled'),
          );
          await store.writePart(
            job,
            { seq: 4, attempt: 1, piece: 2, kind: 'unread' },
            lines(5, 5, 'cancelled'),
          );
          expect(await store.countOutcomes(job)).toBe(5);
          await store.writePart(job, { seq: 4, attempt: 1, piece: 1, kind: 'unread' }, [
            result(3, 'cancelled'),
          ]);
          expect((await report(store, job)).map((r) => r.line)).toEqual([1, 2, 3, 5]);
          // piece 0 is the default piece
          await store.writePart(job, { seq: 4, attempt: 1, kind: 'unread' }, []);
          expect((await report(store, job)).map((r) => r.line)).toEqual([3, 5]);
        },
        T,
      );

      it(
        'keeps each result as written (unicode, newlines, every field)',
        async () => {
          const job = ref();
          const full: ItemResult = {
            line: 7,
            sku: 'Ü-🎉-日本',
            status: 'failed',
            productId: 123,
            slug: 'a-slug',
            code: 'validation_error',
            message: 'price must be\n> 0 — "quoted" \\ back\u2028slash',
            errorId: 'err_1',
            field: 'price',
            rule: 'min',
          };
          await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, [
            full,
            result(8, 'ok', { sku: null }),
          ]);
          expect(await report(store, job)).toEqual([full, { line: 8, sku: null, status: 'ok' }]);
        },
        T,
      );

      it(
        'merges per line: the highest seq wins, whatever the order the parts were written in',
        async () => {
          const job = ref();
          await store.writePart(job, { seq: 3, attempt: 1, kind: 'verify' }, [
            result(2, 'ok', { productId: 9 }),
          ]);
          await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 3, 'unknown'));
          await store.writePart(job, { seq: 2, attempt: 1, kind: 'send' }, [result(3, 'failed')]);
          expect(await report(store, job)).toEqual([
            result(1, 'unknown'),
            result(2, 'ok', { productId: 9 }),
            result(3, 'failed'),
          ]);
          expect(await store.countOutcomes(job)).toBe(3);
        },
        T,
      );

      it(
        'counts the accepted attempt of each seq (default 1); a zombie attempt written late does not',
        async () => {
          const job = ref();
          await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 2, 'unknown'));
          await store.writePart(job, { seq: 2, attempt: 1, kind: 'verify' }, [
            result(1, 'failed'),
            result(9, 'ok'),
          ]);
          await store.writePart(job, { seq: 2, attempt: 2, kind: 'verify' }, [result(1, 'ok')]);
          // Nothing said: attempt 1 of every seq.
          expect(await statuses(store, job)).toEqual({ 1: 'failed', 2: 'unknown', 9: 'ok' });
          const rule = { accepted: { 2: 2 } };
          expect(await statuses(store, job, rule)).toEqual({ 1: 'ok', 2: 'unknown' });
          // Attempt 1 of seq 2 was not dead: it rewrites its part after attempt 2 was accepted.
          await store.writePart(job, { seq: 2, attempt: 1, kind: 'verify' }, lines(1, 5, 'failed'));
          expect(await statuses(store, job, rule)).toEqual({ 1: 'ok', 2: 'unknown' });
          expect(await store.countOutcomes(job, rule)).toBe(2);
          // An accepted attempt that wrote nothing: that seq has no lines.
          expect(await statuses(store, job, { accepted: { 2: 3 } })).toEqual({ 1: 'unknown', 2: 'unknown' });
        },
        T,
      );

      it(
        'ignores seqs above upToSeq (an abandoned run after a reset)',
        async () => {
          const job = ref();
          await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 3, 'ok'));
          await store.writePart(job, { seq: 5, attempt: 1, kind: 'wf' }, [
            result(2, 'failed'),
            result(4, 'failed'),
          ]);
          expect(await statuses(store, job)).toEqual({ 1: 'ok', 2: 'failed', 3: 'ok', 4: 'failed' });
          expect(await statuses(store, job, { upToSeq: 4 })).toEqual({ 1: 'ok', 2: 'ok', 3: 'ok' });
          expect(await store.countOutcomes(job, { upToSeq: 4 })).toBe(3);
          expect(await store.countOutcomes(job, { upToSeq: 5 })).toBe(4);
          expect(await store.countOutcomes(job, { upToSeq: 0 })).toBe(0);
        },
        T,
      );

      it(
        'pages the report by afterLine / limit; the last page has no nextAfterLine',
        async () => {
          const job = ref();
          await store.writePart(
            job,
            { seq: 1, attempt: 1, kind: 'send' },
            [5, 1, 4, 2, 3].map((l) => result(l)),
          );
          const p1 = await store.readOutcomes(job, { limit: 2 });
          expect(p1.lines.map((r) => r.line)).toEqual([1, 2]);
          expect(p1.nextAfterLine).toBe(2);
          const p2 = await store.readOutcomes(job, { limit: 2, afterLine: p1.nextAfterLine });
          expect(p2.lines.map((r) => r.line)).toEqual([3, 4]);
          expect(p2.nextAfterLine).toBe(4);
          const p3 = await store.readOutcomes(job, { limit: 2, afterLine: p2.nextAfterLine });
          expect(p3.lines.map((r) => r.line)).toEqual([5]);
          expect(p3.nextAfterLine).toBeUndefined();
          // A last page that is exactly full.
          const exact = await store.readOutcomes(job, { limit: 2, afterLine: 3 });
          expect(exact.lines.map((r) => r.line)).toEqual([4, 5]);
          expect(exact.nextAfterLine).toBeUndefined();
          // No limit: everything; after the last line: nothing.
          expect((await store.readOutcomes(job)).lines.map((r) => r.line)).toEqual([1, 2, 3, 4, 5]);
          expect(await store.readOutcomes(job, { afterLine: 5, limit: 10 })).toEqual({ lines: [] });
          // Pages merge like the whole report.
          await store.writePart(job, { seq: 2, attempt: 1, kind: 'verify' }, [result(2, 'failed')]);
          expect((await store.readOutcomes(job, { limit: 1, afterLine: 1 })).lines).toEqual([
            result(2, 'failed'),
          ]);
        },
        T,
      );

      it(
        'an unknown job has no outcomes',
        async () => {
          const job = ref();
          expect(await store.readOutcomes(job)).toEqual({ lines: [] });
          expect(await store.countOutcomes(job)).toBe(0);
          expect(await store.getJob(job)).toBeUndefined();
          expect(await store.getSnapshot(job)).toBeUndefined();
        },
        T,
      );
    });

    describe('finalize', () => {
      it(
        'stores the state and the rule, answers the line count, and answers the same when retried',
        async () => {
          const job = ref();
          await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 4, 'unknown'));
          await store.writePart(job, { seq: 2, attempt: 2, kind: 'verify' }, lines(1, 2, 'ok'));
          await store.writePart(job, { seq: 3, attempt: 1, kind: 'wf' }, lines(5, 6, 'failed'));
          const end = { state: 'finished' as const, accepted: { 2: 2 }, upToSeq: 2 };
          expect(await store.finalize(job, end)).toEqual({ lines: 4 });
          const record = await store.getJob(job);
          expect(record).toMatchObject({ state: 'finished', accepted: { 2: 2 }, upToSeq: 2 });
          expect(Number.isNaN(Date.parse(record!.endedAt!))).toBe(false);
          await tick();
          expect(await (await reopen()).finalize(job, end)).toEqual({ lines: 4 });
          expect((await store.getJob(job))!.endedAt).toBe(record!.endedAt);

          // Later reads merge by the stored rule, whatever rule they pass.
          expect(await statuses(store, job)).toEqual({ 1: 'ok', 2: 'ok', 3: 'unknown', 4: 'unknown' });
          expect(await statuses(store, job, { upToSeq: 10, accepted: {} })).toEqual({
            1: 'ok',
            2: 'ok',
            3: 'unknown',
            4: 'unknown',
          });
          expect(await store.countOutcomes(job)).toBe(4);
          expect(await store.countOutcomes(job, { upToSeq: 10 })).toBe(4);
          const page = await store.readOutcomes(job, { limit: 3, upToSeq: 10 });
          expect(page.lines.map((r) => [r.line, r.status])).toEqual([
            [1, 'ok'],
            [2, 'ok'],
            [3, 'unknown'],
          ]);
        },
        T,
      );

      it(
        'finalizes a job it has no part of (0 lines) and a cancelled job',
        async () => {
          const empty = ref();
          expect(await store.finalize(empty, { state: 'failed' })).toEqual({ lines: 0 });
          expect(await store.getJob(empty)).toMatchObject({ jobId: empty.jobId, state: 'failed' });
          const cancelled = ref();
          await store.writePart(cancelled, { seq: 1, attempt: 1, kind: 'unread' }, lines(1, 3, 'cancelled'));
          expect(await store.finalize(cancelled, { state: 'cancelled' })).toEqual({ lines: 3 });
          expect(await store.getJob(cancelled)).toMatchObject({ state: 'cancelled' });
        },
        T,
      );
    });

    describe('job identity', () => {
      it(
        'never mixes jobs whose keys differ only in the first run id (a reused job id)',
        async () => {
          const week1 = ref({ workflowId: 'bulk:weekly-sync', jobId: 'weekly-sync' });
          await snapshot(store, week1, ['{"week":1}', '{"week":1}', '{"week":1}']);
          await store.writePart(week1, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 3, 'ok'));
          await store.finalize(week1, { state: 'finished' });
          await tick();
          const week2 = { ...week1, firstRunId: randomUUID() };
          expect(await store.getSnapshot(week2)).toBeUndefined();
          expect(await store.countOutcomes(week2)).toBe(0);
          await snapshot(store, week2, ['{"week":2}', '{"week":2}']);
          await store.writePart(week2, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 2, 'failed'));
          expect(await store.readRecords(week2, 0, 10)).toEqual(['{"week":2}', '{"week":2}']);
          expect(await store.readRecords(week1, 0, 10)).toHaveLength(3);
          expect(await statuses(store, week2)).toEqual({ 1: 'failed', 2: 'failed' });
          expect(await statuses(store, week1)).toEqual({ 1: 'ok', 2: 'ok', 3: 'ok' });
          expect((await store.getJob(week2))!.state).toBeUndefined();
          const found = await store.findJobs('weekly-sync');
          expect(found.map((r) => r.key.firstRunId)).toEqual([week2.firstRunId, week1.firstRunId]);
        },
        T,
      );

      it(
        'never mixes workflow ids or shop ids that a sanitised file name would merge',
        async () => {
          const run = randomUUID();
          const jobs = [
            ref({ workflowId: 'bulk:a:b', jobId: 'a:b', firstRunId: run }),
            ref({ workflowId: 'bulk:a_b', jobId: 'a_b', firstRunId: run }),
            ref({ workflowId: 'bulk:a/b', jobId: 'a/b', firstRunId: run }),
            ref({
              workflowId: 'bulk:m/x/y',
              jobId: 'm/x/y',
              parentJobId: 'm',
              shopId: 'x/y',
              firstRunId: run,
            }),
            ref({
              workflowId: 'bulk:m/x_y',
              jobId: 'm/x_y',
              parentJobId: 'm',
              shopId: 'x_y',
              firstRunId: run,
            }),
          ];
          for (const [i, job] of jobs.entries()) {
            await snapshot(
              store,
              job,
              Array.from({ length: i + 1 }, () => JSON.stringify({ job: i })),
            );
            await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, lines(1, i + 1, 'ok'));
          }
          for (const [i, job] of jobs.entries()) {
            expect(await store.readRecords(job, 0, 10)).toEqual(
              Array.from({ length: i + 1 }, () => JSON.stringify({ job: i })),
            );
            expect(await store.countOutcomes(job)).toBe(i + 1);
            expect((await store.getJob(job))!.jobId).toBe(job.jobId);
          }
          expect((await store.findJobs('m')).map((r) => r.shopId).sort()).toEqual(['x/y', 'x_y']);
          expect((await store.findJobs('a:b')).map((r) => r.key.workflowId)).toEqual(['bulk:a:b']);
        },
        T,
      );

      it(
        'findJobs: the job and its shops’ jobs, newest first; nothing of other jobs',
        async () => {
          const parent = ref({ workflowId: 'bulk:multi', jobId: 'multi' });
          await store.writePart(parent, { seq: 1, attempt: 1, kind: 'wf' }, []);
          await tick();
          const shop1 = ref({
            workflowId: 'bulk:multi/s1',
            jobId: 'multi/s1',
            parentJobId: 'multi',
            shopId: 's1',
          });
          await snapshot(store, shop1, ['{}']);
          await tick();
          const shop2 = ref({
            workflowId: 'bulk:multi/s2',
            jobId: 'multi/s2',
            parentJobId: 'multi',
            shopId: 's2',
          });
          await store.writePart(shop2, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 1));
          await tick();
          const unrelated = ref({ workflowId: 'bulk:multi2', jobId: 'multi2' });
          await store.writePart(unrelated, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 1));
          await store.writePart(
            ref({ workflowId: 'bulk:multi2/s1', jobId: 'multi2/s1', parentJobId: 'multi2', shopId: 's1' }),
            { seq: 1, attempt: 1, kind: 'send' },
            lines(1, 1),
          );

          const found = await store.findJobs('multi');
          expect(found.map((r) => r.jobId)).toEqual(['multi/s2', 'multi/s1', 'multi']);
          expect(found.map((r) => r.key.firstRunId)).toEqual([
            shop2.firstRunId,
            shop1.firstRunId,
            parent.firstRunId,
          ]);
          const times = found.map((r) => Date.parse(r.createdAt));
          expect([...times].sort((a, b) => b - a)).toEqual(times);
          expect(found[0]).toMatchObject({ parentJobId: 'multi', shopId: 's2' });
          expect((await store.findJobs('multi/s1')).map((r) => r.jobId)).toEqual(['multi/s1']);
          expect(await store.findJobs('nothing-like-it')).toEqual([]);
          // Another worker finds the same.
          expect((await (await reopen()).findJobs('multi')).map((r) => r.jobId)).toEqual([
            'multi/s2',
            'multi/s1',
            'multi',
          ]);
        },
        T,
      );
    });

    describe('expire', () => {
      it(
        'removes every job created before the date (record, snapshot, outcomes) and nothing newer',
        async () => {
          const old1 = ref();
          await snapshot(store, old1, ['{"old":1}', '{"old":2}']);
          await store.writePart(old1, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 2));
          await store.finalize(old1, { state: 'failed' });
          const old2 = ref();
          await store.writePart(old2, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 1));
          await tick();
          const young = ref();
          await snapshot(store, young, ['{"young":1}']);
          await store.writePart(young, { seq: 1, attempt: 1, kind: 'send' }, lines(1, 1));
          const cut = new Date((await store.getJob(young))!.createdAt);

          expect(await store.expire(new Date(0))).toEqual({ jobs: 0 });
          expect(await store.expire(cut)).toEqual({ jobs: 2 });
          for (const job of [old1, old2]) {
            expect(await store.getJob(job)).toBeUndefined();
            expect(await store.getSnapshot(job)).toBeUndefined();
            expect(await store.readRecords(job, 0, 10)).toEqual([]);
            expect(await store.countOutcomes(job)).toBe(0);
            expect(await store.readOutcomes(job)).toEqual({ lines: [] });
          }
          expect(await store.readRecords(young, 0, 10)).toEqual(['{"young":1}']);
          expect(await store.countOutcomes(young)).toBe(1);
          expect(await store.findJobs(young.jobId)).toHaveLength(1);
          expect(await store.expire(cut)).toEqual({ jobs: 0 });
          expect(await store.expire(new Date(Date.now() + 60_000))).toEqual({ jobs: 1 });
          expect(await store.getJob(young)).toBeUndefined();
        },
        T,
      );
    });

    describe('start claims', () => {
      it(
        'the first job to claim a start id keeps it (a retry gets it again, another job learns whose it is); expire frees it',
        async () => {
          const [a, b] = [ref(), ref()];
          const key = (r: JobRef): JobKey => ({ workflowId: r.workflowId, firstRunId: r.firstRunId });
          expect(await store.claimStart('start-1', key(a))).toEqual(key(a));
          expect(await store.claimStart('start-1', key(a))).toEqual(key(a));
          expect(await (await reopen()).claimStart('start-1', key(b))).toEqual(key(a));
          const both = await Promise.all([
            store.claimStart('start-2', key(a)),
            store.claimStart('start-2', key(b)),
          ]);
          expect(both[0]).toEqual(both[1]);
          await snapshot(store, a, ['{"a":1}']);
          await tick();
          expect(await store.expire(new Date(Date.now() + 60_000))).toEqual({ jobs: 1 });
          expect(await store.claimStart('start-1', key(b))).toEqual(key(b));
        },
        T,
      );
    });

    describe('two workers at once', () => {
      it(
        'writing the same part concurrently leaves one whole part, never a mix',
        async () => {
          const job = ref();
          const second = await reopen();
          const part = { seq: 7, attempt: 1, kind: 'send' };
          for (let round = 0; round < 5; round++) {
            await Promise.all([
              store.writePart(job, part, lines(1, 300, 'ok')),
              second.writePart(job, part, lines(1, 200, 'failed')),
              store.writePart(job, part, lines(1, 250, 'invalid')),
            ]);
            const merged = await report(second, job);
            const kinds = new Set(merged.map((r) => r.status));
            expect(kinds.size).toBe(1);
            const expected = { ok: 300, failed: 200, invalid: 250 }[
              [...kinds][0] as 'ok' | 'failed' | 'invalid'
            ];
            expect(merged).toHaveLength(expected);
            expect(merged.map((r) => r.line)).toEqual(Array.from({ length: expected }, (_, i) => i + 1));
          }
        },
        T,
      );

      it(
        'two workers snapshotting one job at once agree on one snapshot',
        async () => {
          const job = ref();
          const second = await reopen();
          const [a, b] = await Promise.all([
            snapshot(store, job, ['{"by":"a"}', '{"by":"a"}'], { sha256: 'aa'.repeat(32) }),
            snapshot(second, job, ['{"by":"b"}', '{"by":"b"}'], { sha256: 'bb'.repeat(32) }),
          ]);
          expect(a).toEqual(b);
          const by = a.sha256 === 'aa'.repeat(32) ? 'a' : 'b';
          expect(await second.readRecords(job, 0, 5)).toEqual([`{"by":"${by}"}`, `{"by":"${by}"}`]);
        },
        T,
      );
    });
  });
}
