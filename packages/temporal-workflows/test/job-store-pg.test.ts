// The PostgreSQL job store (src/stores/job-store-pg.ts) on a real, throw-away PostgreSQL
// (test/topology/postgres.ts; the binaries come from scripts/setup-temporal-server.sh): the shared JobStore
// contract (job-store-contract.ts) with a fresh schema per test, then what only this backend has —
// migration from several workers at once, a role without CREATE rights once migrated, errors that name the
// database without its password, snapshot reads as one index range scan, expiry in batches.
// @needs topology
import { randomBytes, randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import pg from 'pg';
import { JOB_STORE_UNAVAILABLE, type JobRef } from '../src/stores/job-store.ts';
import { createPgJobStore } from '../src/stores/job-store-pg.ts';
import { describeJobStore as describeStoreSpec, openJobStore } from '../src/stores/open-job-store.ts';
import { describeJobStore } from './job-store-contract.ts';
import { freePort, usePostgresDatabase } from './topology/postgres.ts';

const DB = 'jobs';
const db = usePostgresDatabase(DB);

const newSchema = () => `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
const dropSchemas = async (schemas: string[]) => {
  for (const s of schemas) await db.server.query(DB, `DROP SCHEMA IF EXISTS ${s} CASCADE`);
};

describeJobStore('postgres', async () => {
  const schemas = [newSchema()];
  return {
    store: createPgJobStore({ url: db.url, schema: schemas[0] }),
    reopen: async () => createPgJobStore({ url: db.url, schema: schemas[0] }),
    other: async () => {
      schemas.push(newSchema());
      return createPgJobStore({ url: db.url, schema: schemas.at(-1) });
    },
    cleanup: () => dropSchemas(schemas),
  };
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

describe('PostgreSQL job store', () => {
  const job = (storeId: string, over: Partial<JobRef> = {}): JobRef => ({
    workflowId: `bulk:pg-${randomUUID()}`,
    firstRunId: randomUUID(),
    jobId: `pg-${randomUUID()}`,
    storeId,
    ...over,
  });

  it('is opened by a postgres:// or postgresql:// URL; anything else is a local folder; no password in logs', () => {
    const store = openJobStore(db.url);
    expect(store.kind).toBe('postgres');
    expect(store.location).toBe(`postgres://${db.server.user}@127.0.0.1:${db.server.port}/${DB}`);
    expect(openJobStore(db.url.replace(/^postgres:/, 'postgresql:')).kind).toBe('postgres');
    expect(openJobStore('/tmp/sk-jobs-somewhere').kind).toBe('local');
    expect(describeStoreSpec(db.url)).toBe(
      `postgres postgres://${db.server.user}@127.0.0.1:${db.server.port}/${DB}`,
    );
    expect(describeStoreSpec(db.url)).not.toContain(db.server.password);
    expect(describeStoreSpec('/srv/jobs')).toBe('local folder /srv/jobs');
    expect(describeStoreSpec(undefined)).toMatch(/^local folder .*\.selling-kit\/jobs$/);
    return store.close();
  });

  it('migrate() from 3 workers at once on an empty database: all succeed, one store id', async () => {
    const schema = newSchema();
    const stores = [1, 2, 3].map(() => createPgJobStore({ url: db.url, schema }));
    try {
      await Promise.all(stores.map((s) => s.migrate()));
      const ids = await Promise.all(stores.map((s) => s.id()));
      expect(new Set(ids).size).toBe(1);
      const { rows } = await db.server.query(
        DB,
        `SELECT count(*)::int AS n FROM ${schema}.selling_kit_job_store`,
      );
      expect(rows[0]).toEqual({ n: 1 });
      // Without an explicit migrate: the first use migrates.
      const lazy = createPgJobStore({ url: db.url, schema: newSchema() });
      stores.push(lazy);
      expect(await lazy.id()).toMatch(/^[0-9a-f-]{36}$/);
      expect(await lazy.id()).not.toBe(ids[0]);
    } finally {
      for (const s of stores) await s.close();
      await dropSchemas([schema]);
    }
  }, 60_000);

  it('runs as a role without CREATE rights once migrated; an unmigrated store tells that role why', async () => {
    const schema = newSchema();
    const role = `sk_app_${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    const owner = createPgJobStore({ url: db.url, schema });
    await owner.migrate();
    await db.server.query(DB, `CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await db.server.query(DB, `GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await db.server.query(
      DB,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role}`,
    );
    const roleUrl = `postgres://${role}:${password}@127.0.0.1:${db.server.port}/${DB}`;
    const { rows } = await db.server.query(
      DB,
      `SELECT has_schema_privilege('${role}', '${schema}', 'CREATE') AS s,
              has_database_privilege('${role}', '${DB}', 'CREATE') AS d`,
    );
    expect(rows[0]).toEqual({ s: false, d: false });

    const app = createPgJobStore({ url: roleUrl, schema });
    const unmigrated = createPgJobStore({ url: roleUrl, schema: newSchema() });
    try {
      await app.migrate();
      const id = await app.id();
      expect(id).toBe(await owner.id());
      const ref = job(id);
      const w = await app.createSnapshot(ref);
      await w.append(['{"a":1}']);
      await w.commit({ source: 'f.csv', format: 'csv', sha256: '00'.repeat(32), total: 1 });
      await app.writePart(ref, { seq: 1, attempt: 1, kind: 'send' }, [{ line: 1, sku: 'A', status: 'ok' }]);
      expect(await app.finalize(ref, { state: 'finished' })).toEqual({ lines: 1 });
      expect(await owner.readRecords(ref, 0, 1)).toEqual(['{"a":1}']);
      expect(await app.expire(new Date(Date.now() + 60_000))).toEqual({ jobs: 1 });

      const error = (await unmigrated.migrate().catch((e: unknown) => e)) as Error;
      expect(error.message).toContain(`postgres://${role}@127.0.0.1:${db.server.port}/${DB}`);
      expect(error.message).toMatch(/permission denied/);
      expect(error.message).not.toContain(password);
    } finally {
      for (const s of [owner, app, unmigrated]) await s.close();
      await dropSchemas([schema]);
      await db.server.query(DB, `DROP OWNED BY ${role}`);
      await db.server.query(DB, `DROP ROLE ${role}`);
    }
  }, 60_000);

  it('a database it cannot reach or log in to: a retryable JobStoreUnavailable naming host:port/db, never the password', async () => {
    const wrongPassword = 'not-the-password-' + randomBytes(4).toString('hex');
    const port = await freePort();
    for (const [target, where] of [
      [db.url.replace(db.server.password, wrongPassword), `127.0.0.1:${db.server.port}/${DB}`],
      [`postgres://${db.server.user}:${wrongPassword}@127.0.0.1:${port}/${DB}`, `127.0.0.1:${port}/${DB}`],
    ] as const) {
      const store = createPgJobStore({ url: target, schema: newSchema() });
      try {
        for (const call of [
          () => store.id(),
          () => store.readOutcomes({ workflowId: 'w', firstRunId: 'r' }),
        ]) {
          const error = (await call().catch((e: unknown) => e)) as ApplicationFailure;
          expect(error).toBeInstanceOf(ApplicationFailure);
          expect(error.type).toBe(JOB_STORE_UNAVAILABLE);
          expect(error.nonRetryable).toBe(false);
          expect(error.message).toContain(where);
          expect(error.message).not.toContain(wrongPassword);
        }
      } finally {
        await store.close();
      }
    }
  }, 60_000);

  it('a result holding U+0000 is stored (jsonb refuses it: it becomes U+FFFD), an escaped backslash is kept', async () => {
    const store = createPgJobStore({ url: db.url, schema: newSchema() });
    try {
      const ref = job(await store.id());
      await store.writePart(ref, { seq: 1, attempt: 1, kind: 'send' }, [
        { line: 1, sku: 'A\u0000B', status: 'failed', message: 'x\\u0000y' },
      ]);
      expect((await store.readOutcomes(ref)).lines).toEqual([
        { line: 1, sku: 'A\ufffdB', status: 'failed', message: 'x\\u0000y' },
      ]);
    } finally {
      await store.close();
    }
  }, 30_000);

  it('reads 1,000 records of a 10,000-record snapshot with one statement, an index range scan', async () => {
    const schema = newSchema();
    const seen: { text: string; values: unknown[] }[] = [];
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    const query = pool.query.bind(pool) as (text: string, values: unknown[]) => Promise<pg.QueryResult>;
    (pool as unknown as { query: typeof query }).query = (text, values) => {
      seen.push({ text, values });
      return query(text, values);
    };
    const store = createPgJobStore({ pool, schema });
    try {
      const storeId = await store.id();
      const refs = [job(storeId), job(storeId)];
      const records = Array.from({ length: 10_000 }, (_, i) =>
        JSON.stringify({ i, sku: `SKU-${i}`, d: 'x'.repeat(100) }),
      );
      for (const ref of refs) {
        const w = await store.createSnapshot(ref);
        await w.append(records);
        await w.commit({ source: 'f', format: 'ndjson', sha256: '00'.repeat(32), total: records.length });
      }
      await db.server.query(
        DB,
        `ANALYZE ${schema}.selling_kit_job_records; ANALYZE ${schema}.selling_kit_jobs`,
      );
      seen.length = 0;
      const read = await store.readRecords(refs[1]!, 4000, 5000);
      expect(read).toEqual(records.slice(4000, 5000));
      expect(seen).toHaveLength(1);
      const { text, values } = seen[0]!;
      // The plan's nodes that touch the records table: index scans of its primary key, never a full scan.
      const [
        {
          'QUERY PLAN': [root],
        },
      ] = (await pool.query(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows as [
        { 'QUERY PLAN': [{ Plan: PlanNode }] },
      ];
      // The planner may pick an index scan or a bitmap scan over the same index (its choice moves with
      // the table's statistics); either is a range read of the key, a sequential scan is not.
      const all = nodes(root!.Plan);
      const onRecords = all.filter((p) => p['Relation Name'] === 'selling_kit_job_records');
      expect(onRecords).toHaveLength(1);
      expect(onRecords[0]!['Node Type']).toMatch(/^(Index (Only )?Scan|Bitmap Heap Scan)$/);
      expect(all.filter((p) => p['Index Name'] === 'selling_kit_job_records_pkey')).toHaveLength(1);
      // A figure for the report, not an assertion: the median of 9 reads of 1,000 records.
      const times: number[] = [];
      for (let i = 0; i < 9; i++) {
        const t0 = performance.now();
        await store.readRecords(refs[i % 2]!, i * 1000, i * 1000 + 1000);
        times.push(performance.now() - t0);
      }
      console.log(
        `readRecords: 1,000 of 10,000 records, median ${times.sort((a, b) => a - b)[4]!.toFixed(1)} ms`,
      );
    } finally {
      await store.close();
      await pool.end();
      await dropSchemas([schema]);
    }
  }, 60_000);

  it('expire removes many old jobs in batches and answers how many', async () => {
    const schema = newSchema();
    const store = createPgJobStore({ url: db.url, schema });
    try {
      const storeId = await store.id();
      const old = Array.from({ length: 45 }, () => job(storeId));
      for (const ref of old)
        await store.writePart(ref, { seq: 1, attempt: 1, kind: 'send' }, [
          { line: 1, sku: 'A', status: 'ok' },
        ]);
      const young = job(storeId);
      await store.writePart(young, { seq: 1, attempt: 1, kind: 'send' }, [
        { line: 1, sku: 'A', status: 'ok' },
      ]);
      await db.server.query(
        DB,
        `UPDATE ${schema}.selling_kit_jobs SET created_at = now() - interval '40 days' WHERE job_id <> '${young.jobId}'`,
      );
      expect(await store.expire(new Date(Date.now() - 30 * 86_400_000))).toEqual({ jobs: 45 });
      const { rows } = await db.server.query(
        DB,
        `SELECT (SELECT count(*) FROM ${schema}.selling_kit_jobs)::int AS jobs,
                (SELECT count(*) FROM ${schema}.selling_kit_job_outcomes)::int AS outcomes`,
      );
      expect(rows[0]).toEqual({ jobs: 1, outcomes: 1 });
      expect(await store.countOutcomes(young)).toBe(1);
    } finally {
      await store.close();
      await dropSchemas([schema]);
    }
  }, 60_000);
});
