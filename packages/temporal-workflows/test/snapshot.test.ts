// A job's feed snapshot without a Temporal server: taken once (idempotent), immutable while the live
// feed changes, refused when replaced, never left half-written; URL feeds with redacted messages and
// retryable or final failures; and the lines of a cancelled job reported on the worker, not in history.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readChunk } from '../src/activities/feed.ts';
import { createFeedActivities, reportUnreadLines } from '../src/activities/feed-activities.ts';
import type { ActivityContext } from '../src/activities/context.ts';
import { readReportLines } from '../src/activities/report.ts';
import { readSnapshotRecords, removeSnapshot, takeSnapshot } from '../src/activities/snapshot.ts';
import { BASIC_HEADER, basicCsv, failure, feedFile } from './feed-files.ts';

const rows = (from: number, to: number, tag = '') =>
  Array.from({ length: to - from + 1 }, (_, i) => `S-${from + i},Item ${from + i}${tag},10.00,GBP,1`);

const csvFile = (lines: string[]) => feedFile(basicCsv(lines));

describe('snapshots', () => {
  it('are taken once: a retry returns the same snapshot, and the job keeps reading it while the feed is rewritten', async () => {
    const { dir, path } = csvFile(rows(1, 500));
    const at = join(dir, 'job.snapshot');
    const s = await takeSnapshot({ path, format: 'csv' }, at);
    expect(s).toMatchObject({ dir: at, source: path, format: 'csv', total: 500 });
    expect(s.sha256).toMatch(/^[0-9a-f]{64}$/);

    // The exporter rewrites the feed (other items, other order) and the activity is retried.
    writeFileSync(path, basicCsv(rows(1, 800, ' (new)').reverse()));
    expect(await takeSnapshot({ path, format: 'csv' }, at)).toEqual(s);
    const chunk = await readChunk(s, 450, 100, 'patch');
    expect(chunk).toMatchObject({ total: 500, nextOffset: 500, done: true });
    expect(chunk.items[0]).toMatchObject({ line: 451, sku: 'S-451' });
    expect(await readSnapshotRecords(s, 499, 500)).toEqual([
      { sku: 'S-500', description: 'Item 500', price_amount: '10.00', price_currency: 'GBP', quantity: 1 },
    ]);

    // Even without the live feed.
    rmSync(path);
    expect((await readChunk(s, 0, 10, 'patch')).items).toHaveLength(10);
  });

  it('a new job of the same id does not adopt the snapshot an earlier job left behind', async () => {
    const { dir, path } = csvFile(rows(1, 10));
    const at = join(dir, 'job.snapshot');
    const earlier = await takeSnapshot({ path, format: 'csv' }, at, undefined, 'run-1');
    writeFileSync(path, basicCsv(rows(1, 30)));
    expect(await takeSnapshot({ path, format: 'csv' }, at, undefined, 'run-1')).toEqual(earlier);
    const next = await takeSnapshot({ path, format: 'csv' }, at, undefined, 'run-2');
    expect(next.total).toBe(30);
    expect(readdirSync(dir).sort()).toEqual(['feed.csv', 'job.snapshot']);
  });

  it('a replaced or removed snapshot fails the read instead of serving other items', async () => {
    const { dir, path } = csvFile(rows(1, 50));
    const at = join(dir, 'job.snapshot');
    const first = await takeSnapshot({ path, format: 'csv' }, at);
    await removeSnapshot(first);
    writeFileSync(path, basicCsv(rows(1, 50, ' (new)')));
    const second = await takeSnapshot({ path, format: 'csv' }, at);
    expect(second.sha256).not.toBe(first.sha256);

    const replaced = await failure(readChunk(first, 0, 10, 'patch'));
    expect(replaced.type).toBe('FeedUnreadable');
    expect(replaced.nonRetryable).toBe(true);
    expect(replaced.message).toMatch(/snapshot of the feed .* was replaced/);
    expect((await readChunk(second, 0, 10, 'patch')).items).toHaveLength(10);

    await removeSnapshot(second);
    expect((await failure(readChunk(second, 0, 10, 'patch'))).message).toMatch(/is gone/);
  });

  it('a feed that cannot be read leaves no snapshot and no temporary files', async () => {
    const { dir, path } = csvFile(['S-1,"unclosed,10.00,GBP,1', ...rows(2, 500)]);
    const at = join(dir, 'job.snapshot');
    const e = await failure(takeSnapshot({ path, format: 'csv' }, at));
    expect(e.type).toBe('FeedUnreadable');
    expect(readdirSync(dirname(at)).sort()).toEqual(['feed.csv']);
    const missing = await failure(takeSnapshot({ path: join(dir, 'nope.csv'), format: 'csv' }, at));
    expect(missing.message).toMatch(/nope\.csv cannot be read: no such file/);
    expect(missing.nonRetryable).toBe(true);
  });

  it('reports progress while it reads (the activity heartbeats from it)', async () => {
    const { dir, path } = csvFile(rows(1, 3000));
    let calls = 0;
    await takeSnapshot({ path, format: 'csv' }, join(dir, 'job.snapshot'), () => calls++);
    expect(calls).toBeGreaterThanOrEqual(5);
  });
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

  const dir = () => join(mkdtempSync(join(tmpdir(), 'sk-url-')), 'job.snapshot');
  const secretUrl = (path: string) => `http://user:pass@${base}${path}?X-Amz-Signature=secret`;

  it('downloads once, with the userinfo as Basic authorization, and names the feed without secrets', async () => {
    seen.length = 0;
    const s = await takeSnapshot({ path: secretUrl('/f.csv'), format: 'csv' }, dir());
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
    const notFound = await failure(
      takeSnapshot({ path: secretUrl('/status/404/f.csv'), format: 'csv' }, dir()),
    );
    expect(notFound.type).toBe('FeedUnreadable');
    expect(notFound.nonRetryable).toBe(true);
    expect(notFound.message).toBe(
      `the csv feed http://${base}/status/404/f.csv?… cannot be read: GET http://${base}/status/404/f.csv?… answered 404`,
    );

    const down = await failure(takeSnapshot({ path: secretUrl('/status/503/f.csv'), format: 'csv' }, dir()));
    expect(down.type).toBe('FeedUnavailable');
    expect(down.nonRetryable).toBe(false);
    expect(down.message).toMatch(/answered 503/);

    const closed = await new Promise<number>((ok) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => ok(port));
      });
    });
    const refused = await failure(
      takeSnapshot(
        { path: `http://user:pass@127.0.0.1:${closed}/f.csv?X-Amz-Signature=secret`, format: 'csv' },
        dir(),
      ),
    );
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
  it('reports 5,000 unread lines on the worker: invalid ones with their rule, the others cancelled', async () => {
    // Every 100th row lacks two fields (malformed); every 250th has no SKU (invalid for a patch).
    const lines = Array.from({ length: 5500 }, (_, i) => {
      const n = i + 1;
      if (n % 100 === 0) return `S-${n},Item ${n},10.00`;
      if (n % 250 === 125) return `,Item ${n},10.00,GBP,1`;
      return `S-${n},Item ${n},10.00,GBP,1`;
    });
    const { dir, path } = csvFile(lines);
    const s = await takeSnapshot({ path, format: 'csv' }, join(dir, 'job.snapshot'));
    const at = { reportDir: join(dir, 'reports'), jobId: 'job-1', part: '0001-000009-unread' };
    const beats: number[] = [];
    const counts = await reportUnreadLines(s, 500, 'patch', at, (p) => beats.push(p.next));

    const report = await readReportLines(at.reportDir, at.jobId);
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
    expect(counts).toEqual({ cancelled: 5000 - invalid.length, invalid: invalid.length });
    expect(beats.length).toBeGreaterThanOrEqual(5);

    // Several small parts, named after the workflow's part; a retried attempt rewrites the same ones.
    const parts = () => readdirSync(join(at.reportDir, 'job-1.parts')).sort();
    expect(parts()).toEqual([
      '0001-000009-unread-0000.ndjson',
      '0001-000009-unread-0001.ndjson',
      '0001-000009-unread-0002.ndjson',
    ]);
    const resumed = await reportUnreadLines(s, 500, 'patch', at, () => {}, {
      next: 2500,
      part: 1,
      cancelled: 1000,
      invalid: 10,
    });
    const laterInvalid = invalid.filter((r) => r.line > 2500).length;
    expect(resumed).toEqual({ cancelled: 1000 + 3000 - laterInvalid, invalid: 10 + laterInvalid });
    expect(parts()).toHaveLength(3);
    expect(await readReportLines(at.reportDir, at.jobId)).toEqual(report);
  });

  it('readFeedChunk writes its invalid items to the report and gives the workflow their count', async () => {
    const { dir, path } = csvFile(['S-1,Item 1,10.00,GBP,1', 'S-2,Item 2', 'S-3,Item 3,10.00,GBP,1']);
    const s = await takeSnapshot({ path, format: 'csv' }, join(dir, 'job.snapshot'));
    const at = { reportDir: join(dir, 'reports'), jobId: 'job-2', part: '0001-000001-feed' };
    const { readFeedChunk } = createFeedActivities({} as ActivityContext);
    const chunk = await readFeedChunk(s, 0, 10, 'patch', at);
    expect(chunk).toEqual({
      items: [
        { line: 1, sku: 'S-1' },
        { line: 3, sku: 'S-3' },
      ],
      invalid: 1,
      nextOffset: 3,
      done: true,
      total: 3,
    });
    expect(await readReportLines(at.reportDir, at.jobId)).toEqual([
      expect.objectContaining({ line: 2, status: 'invalid', code: 'malformed_row' }),
    ]);
    expect(existsSync(join(dir, 'job.snapshot', 'meta.json'))).toBe(true);
  });
});
