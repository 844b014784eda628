// Reading a job's report on any host: jobs run by this file's worker ("A") on the job store S; the report
// is read by a client whose only path to it is Temporal — the report workflow on another task queue,
// served by worker "B" with its own handle on S and a payload codec (pages sealed on the way). Nothing
// else is shared: no report folder, no path in the job input. A many-shop job's lines carry their
// shop; an unknown id answers "no such job"; pages stay under their byte limit and cursor across
// shops; the NDJSON export writes the files the README documents. The reader names each job's shops
// (it cannot open worker A's answers to the `jobShops` query: A has no codec).
// @needs temporal
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import {
  exportReport,
  JobReportError,
  readReport,
  readReportPages,
  readReportSummary,
  startBulkJob,
} from '../src/client/client.ts';
import { AesGcmCodec } from '../src/codec/codec.ts';
import { dataConverter } from '../src/codec/data-converter.ts';
import { JOB_REPORT_PAGE_MAX_BYTES, type ReportLine } from '../src/contract.ts';
import { readJobReportPage, reportRecords } from '../src/activities/job-report.ts';
import { createLocalJobStore } from '../src/stores/job-store-local.ts';
import type { JobRecord } from '../src/stores/job-store.ts';
import { csvFeed, job, useTestEnv } from './helpers.ts';
import { shopsWithFeeds, startShopsJob } from './many-shop-jobs.ts';

const env = useTestEnv('job-report');
const codec = new AesGcmCodec(randomBytes(32));
/** Worker B's task queue: the report reads go there, so B (not A) answers them. */
let readerQueue: string;
/** A client on its own connection, with B's codec: what a CLI on another host has. */
let reader: Client;

beforeAll(async () => {
  readerQueue = `${env.taskQueue}-reader`;
  await env.worker({
    taskQueue: readerQueue,
    // Another handle on the same store (a folder here; PostgreSQL in production), nothing else shared.
    jobStore: createLocalJobStore(env.storeDir),
    codec,
  });
  reader = new Client({ connection: env.connection, dataConverter: dataConverter(codec) });
}, 120_000);

const bytes = (line: ReportLine) => Buffer.byteLength(JSON.stringify(line)) + 1;

let single: { jobId: string; lines: number; shopId: string; runId: string };
let many: { jobId: string; shops: string[]; perShop: number };

describe('job reports through Temporal', () => {
  it('a one-shop job: every line, read by worker B from the shared store; its summary', async () => {
    const shop = env.shop('one');
    // 40 listings and two invalid rows (reported, never sent).
    const input = job(env, shop, csvFeed(env, 'JR', 40, ['JR-X,,oops', 'JR-Y,bad']));
    expect(JSON.stringify(input)).not.toMatch(/reportDir|\/reports/);
    const handle = await startBulkJob(env.client, input, env.taskQueue);
    const end = await handle.result();
    expect(end).toMatchObject({ state: 'finished', total: 42 });
    single = {
      jobId: input.jobId,
      lines: 42,
      shopId: input.shop.shopId,
      runId: (await handle.describe()).runId,
    };

    const lines = await readReport(reader, input.jobId, { taskQueue: readerQueue, shopIds: [single.shopId] });
    expect(lines.map((l) => l.line)).toEqual(Array.from({ length: 42 }, (_, i) => i + 1));
    expect(lines.filter((l) => l.status === 'ok')).toHaveLength(40);
    expect(lines.filter((l) => l.status === 'invalid')).toHaveLength(2);
    expect(lines.every((l) => l.shopId === undefined)).toBe(true);
    expect(lines[0]).toMatchObject({ line: 1, sku: 'JR-1', status: 'ok', productId: expect.any(Number) });

    const [first] = await readReportPages(reader, input.jobId, {
      taskQueue: readerQueue,
      shopIds: [single.shopId],
    })
      .next()
      .then((r) => [r.value!]);
    expect(first).toMatchObject({
      found: true,
      store: expect.stringMatching(/^local /),
      jobs: [{ jobId: input.jobId, state: 'finished', endedAt: expect.any(String), lines: 42 }],
    });
    const summary = await readReportSummary(reader, input.jobId, {
      taskQueue: readerQueue,
      shopIds: [single.shopId],
    });
    expect(summary.lines).toEqual([]);
    expect(summary.jobs![0]!.counts).toEqual({ ok: 40, failed: 0, invalid: 2, cancelled: 0, unknown: 0 });
  }, 120_000);

  it("a many-shop job: each shop's lines with its shopId, shops in order", async () => {
    const shops = [env.shop('m-a'), env.shop('m-b'), env.shop('m-c')];
    const { jobId, handle } = await startShopsJob(env, 'jr-many', shopsWithFeeds(env, shops, 'JRM', 15));
    expect(await handle.result()).toMatchObject({ state: 'finished' });
    const ids = shops.map((s) => s.shopId).sort();
    many = { jobId, shops: ids, perShop: 15 };

    const lines = await readReport(reader, jobId, { taskQueue: readerQueue, shopIds: ids });
    expect(lines).toHaveLength(45);
    expect(lines.map((l) => `${l.shopId}:${l.line}`)).toEqual(
      ids.flatMap((s) => Array.from({ length: 15 }, (_, i) => `${s}:${i + 1}`)),
    );
    expect(lines.every((l) => l.status === 'ok')).toBe(true);
    const summary = await readReportSummary(reader, jobId, { taskQueue: readerQueue, shopIds: ids });
    expect(summary.jobs!.map((j) => [j.shopId, j.state, j.lines])).toEqual(
      ids.map((s) => [s, 'finished', 15]),
    );
    // One shop's own report, by its job id `<job>/<shop>`: its lines, without shopId.
    const one = await readReport(reader, `${jobId}/${ids[1]}`, {
      taskQueue: readerQueue,
      shopIds: [ids[1]!],
    });
    expect(one.map((l) => [l.line, l.shopId])).toEqual(
      Array.from({ length: 15 }, (_, i) => [i + 1, undefined]),
    );
  }, 180_000);

  it('an unknown job id: a clear "no such job", naming the store that answered', async () => {
    const id = `nope-${randomUUID()}`;
    const error = (await readReport(reader, id, { taskQueue: readerQueue, shopIds: ['nobody'] }).catch(
      (e: unknown) => e,
    )) as JobReportError;
    expect(error).toBeInstanceOf(JobReportError);
    expect(error.reason).toBe('not_found');
    expect(error.message).toMatch(new RegExp(`^no job "${id}" in the job store \\(local .*jobs\\)`));
    const pages = [];
    for await (const page of readReportPages(reader, id, { taskQueue: readerQueue, shopIds: ['nobody'] }))
      pages.push(page);
    expect(pages).toEqual([expect.objectContaining({ found: false, lines: [] })]);
    expect(pages[0]!.nextCursor).toBeUndefined();
  }, 60_000);

  it('pages bounded in bytes, with a cursor across lines and shops: the same lines, none twice', async () => {
    const maxBytes = 700;
    for (const { jobId, total, shopIds } of [
      { jobId: single.jobId, total: single.lines, shopIds: [single.shopId] },
      { jobId: many.jobId, total: many.shops.length * many.perShop, shopIds: many.shops },
    ]) {
      const whole = await readReport(reader, jobId, { taskQueue: readerQueue, shopIds });
      const pages = [];
      for await (const page of readReportPages(reader, jobId, { taskQueue: readerQueue, maxBytes, shopIds }))
        pages.push(page);
      expect(pages.length).toBeGreaterThan(3);
      for (const page of pages) {
        const size =
          page.lines.reduce((n, l) => n + bytes(l), 0) + (page.jobs ? JSON.stringify(page.jobs).length : 0);
        expect(page.lines.length === 1 || size <= maxBytes).toBe(true);
      }
      expect(pages.slice(0, -1).every((p) => p.nextCursor !== undefined)).toBe(true);
      expect(pages.flatMap((p) => p.lines)).toEqual(whole);
      expect(whole).toHaveLength(total);
    }
    // A line limit pages too; the contract's byte limit caps what is asked.
    const byLines = [];
    for await (const page of readReportPages(reader, many.jobId, {
      taskQueue: readerQueue,
      limit: 7,
      shopIds: many.shops,
    }))
      byLines.push(page.lines.length);
    expect(byLines.slice(0, -1).every((n) => n === 7)).toBe(true);
    expect(byLines.reduce((a, b) => a + b, 0)).toBe(45);
    const capped = await readJobReportPage(env.store, {
      jobId: single.jobId,
      shopIds: [single.shopId],
      maxBytes: 10 * JOB_REPORT_PAGE_MAX_BYTES,
    });
    expect(capped.lines).toHaveLength(single.lines);
  }, 120_000);

  it('exports the NDJSON the README documents: one file, or a folder with a file per shop', async () => {
    const dir = join(env.dir, 'exports');
    const seen: ReportLine[] = [];
    const one = await exportReport(reader, single.jobId, dir, {
      taskQueue: readerQueue,
      shopIds: [single.shopId],
      maxBytes: 2000,
      onLine: (l) => seen.push(l),
    });
    expect(one).toMatchObject({ path: join(dir, `${single.jobId}.ndjson`), lines: 42 });
    expect(one.counts).toEqual({ ok: 40, failed: 0, invalid: 2, cancelled: 0, unknown: 0 });
    const text = readFileSync(one.path, 'utf8').trimEnd().split('\n');
    expect(text.map((l) => JSON.parse(l))).toEqual(seen);
    const shops = await exportReport(reader, many.jobId, dir, {
      taskQueue: readerQueue,
      shopIds: many.shops,
    });
    expect(shops.path).toBe(join(dir, many.jobId) + '/');
    expect(readdirSync(shops.path).sort()).toEqual(many.shops.map((s) => `${s}.ndjson`).sort());
    for (const shopId of many.shops) {
      const rows = readFileSync(join(shops.path, `${shopId}.ndjson`), 'utf8')
        .trimEnd()
        .split('\n');
      expect(rows.map((l) => JSON.parse(l).line)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
      expect(rows.every((l) => !l.includes('shopId'))).toBe(true);
    }
    // No temporary file is left behind.
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  }, 60_000);

  it("a reader naming other shops than the job's: refused (ReportRefused), nothing read", async () => {
    const refused = (input: Parameters<typeof readJobReportPage>[1], temporal?: Client) =>
      readJobReportPage(env.store, input, temporal).then(
        () => undefined,
        (e: ApplicationFailure) => [e.type, e.message],
      );
    expect(await refused({ jobId: single.jobId, shopIds: ['other'] })).toEqual([
      'ReportRefused',
      `this message names shops [other]; job ${single.jobId} is for shops [${single.shopId}]`,
    ]);
    expect(await refused({ jobId: single.jobId, shopIds: [single.shopId, 'other'] })).toEqual([
      'ReportRefused',
      expect.stringMatching(/^this message names shops/),
    ]);
    // A many-shop job: every shop recorded must be named (shops not started yet may be named too).
    expect(await refused({ jobId: many.jobId, shopIds: many.shops.slice(1) })).toEqual([
      'ReportRefused',
      `this message names shops [${many.shops.slice(1).join(', ')}]; job ${many.jobId} is for shops [${many.shops.join(', ')}]`,
    ]);
    expect(await refused({ jobId: many.jobId, shopIds: [...many.shops, 'not-started'] })).toBeUndefined();
    // A 0.4 reader's input (no shops).
    expect(await refused({ jobId: single.jobId } as Parameters<typeof readJobReportPage>[1])).toEqual([
      'ReportRefused',
      expect.stringMatching(/^this message names no shop/),
    ]);

    // A one-shop job recorded before 0.5 (its record names no shop): its shop is the job's search
    // attribute while Temporal holds it; without Temporal, refused.
    const old = createLocalJobStore(join(env.dir, 'old-store'));
    const ref = {
      workflowId: `bulk:${single.jobId}`,
      firstRunId: single.runId,
      jobId: single.jobId,
      storeId: await old.id(),
    };
    await old.writePart(ref, { seq: 1, attempt: 1, kind: 'wf' }, [{ line: 1, sku: 'JR-1', status: 'ok' }]);
    const read = await readJobReportPage(old, { jobId: single.jobId, shopIds: [single.shopId] }, env.client);
    expect(read.lines).toHaveLength(1);
    await expect(
      readJobReportPage(old, { jobId: single.jobId, shopIds: ['other'] }, env.client),
    ).rejects.toThrow(`job ${single.jobId} is for shops [${single.shopId}]`);
    await expect(readJobReportPage(old, { jobId: single.jobId, shopIds: [single.shopId] })).rejects.toThrow(
      /shop is not recorded/,
    );
    await old.close();
  }, 60_000);

  it('no worker on the task queue: "no worker" within the timeout, not a hang', async () => {
    const error = (await readReport(reader, single.jobId, {
      taskQueue: `nobody-${randomUUID()}`,
      shopIds: [single.shopId],
      timeout: '2s',
    }).catch((e: unknown) => e)) as JobReportError;
    expect(error).toBeInstanceOf(JobReportError);
    expect(error.reason).toBe('no_worker');
    expect(error.message).toMatch(
      /^no selling-kit worker on task queue nobody-.* read job .*'s report within 2s/,
    );
  }, 60_000);
});

describe('which records a report reads', () => {
  const rec = (jobId: string, createdAt: string, over: Partial<JobRecord> = {}): JobRecord => ({
    key: { workflowId: `bulk:${jobId}`, firstRunId: createdAt },
    jobId,
    createdAt,
    ...over,
  });

  it('the newest job of the id; a reused id never mixes in its older shops', () => {
    const newer = rec('j', '2026-11-25T10:00:00.000Z');
    const older = rec('j', '2026-11-20T10:00:00.000Z');
    const oldShop = rec('j/s1', '2026-11-20T10:00:01.000Z', { parentJobId: 'j', shopId: 's1' });
    expect(reportRecords([newer, oldShop, older], 'j')).toEqual({ shops: false, jobs: [newer] });
  });

  it("a many-shop job: each shop's newest record, by shop id", () => {
    const parent = rec('j', '2026-11-25T10:00:00.000Z');
    const b2 = rec('j/b', '2026-11-25T10:00:03.000Z', { parentJobId: 'j', shopId: 'b' });
    const a = rec('j/a', '2026-11-25T10:00:02.000Z', { parentJobId: 'j', shopId: 'a' });
    const b1 = rec('j/b', '2026-11-25T10:00:01.000Z', { parentJobId: 'j', shopId: 'b' });
    const chosen = reportRecords([b2, a, b1, parent], 'j');
    expect(chosen.shops).toBe(true);
    expect(chosen.jobs.map((j) => [j.shopId, j.createdAt])).toEqual([
      ['a', a.createdAt],
      ['b', b2.createdAt],
    ]);
    // One shop's own report, by its id.
    expect(reportRecords([b2, a, b1, parent], 'j/b').jobs).toEqual([b2]);
    // Shops whose parent kept no record of its own (each shop its own feed) are read all the same.
    expect(reportRecords([a], 'j').jobs).toHaveLength(1);
    expect(reportRecords([], 'j')).toEqual({ shops: false, jobs: [] });
  });
});
