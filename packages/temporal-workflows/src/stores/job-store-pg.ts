// The job store in PostgreSQL (JobStore, job-store.ts): what every worker of a deployment on several hosts
// opens (`SELLING_KIT_JOB_STORE=postgres://…`). Four tables in one schema (default `public`):
// - selling_kit_job_store: one row, this store's id (a uuid made once) and the schema version;
// - selling_kit_jobs: one row per job key (workflow id + first run id): its user-facing ids, when the
//   store first heard of it (the database's clock), the committed snapshot's meta and writer, and what
//   `finalize` stored (state, accepted attempts, upToSeq);
// - selling_kit_job_records: snapshot records as rows (job key, writer, idx, text). Each snapshot attempt
//   writes under its own writer id, invisible until `commit` names it on the job's row (first commit
//   wins, in one UPDATE … WHERE snapshot IS NULL); a range of records is one primary-key range scan;
// - selling_kit_job_outcomes: outcome parts as rows (job key, seq, attempt, piece, line) with the result as
//   jsonb. A part's piece is rewritten whole (DELETE + INSERT in one transaction, under an advisory lock
//   per piece so two attempts writing at once leave one whole piece); the report is merged in SQL
//   (DISTINCT ON (line) … ORDER BY line, seq DESC over the accepted attempts, seq <= upToSeq).
// Every statement is parameterised; the schema name is checked to be a plain identifier before it is
// put into SQL (the tables' names, layout and version: job-store-pg-schema.ts). Errors name the database (`postgres://user@host:port/db`) and never its password; a
// connection that fails is a retryable JobStoreUnavailable (the job pauses and retries).
import { randomUUID } from 'node:crypto';
import { inTransaction, probeWrite } from './pg-transaction.ts';
import { openPool, plainIdentifier, tablesOnce } from './pg-setup.ts';
import { jobTables, jobTablesSetup, type JobTables } from './job-store-pg-schema.ts';
import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import { redactDatabaseUrl } from './token-store-pg.ts';
import type { ItemResult } from '../types.ts';
import {
  JOB_STORE_UNAVAILABLE,
  type JobKey,
  type JobRecord,
  type JobRef,
  type JobStore,
  type MergeRule,
  type SnapshotMeta,
} from './job-store.ts';

/** Rows sent in one INSERT (records or outcome lines): bounds one message's size. */
const ROWS_PER_INSERT = 5000;
/** Jobs removed in one transaction by expire() (each may hold 100k records). */
const EXPIRE_BATCH_JOBS = 20;

export type PgJobStoreOptions = (
  { url: string; pool?: undefined; poolSize?: number } | { pool: pg.Pool; url?: undefined }
) & {
  /** PostgreSQL schema holding the tables (lowercase letters, digits, underscores); default `public`. */
  schema?: string;
};

/** A failure to reach the database (not a failed statement): the job pauses and retries. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
const unreachable = (e: unknown): boolean => {
  const { code, message = '' } = (e ?? {}) as { code?: string; message?: string };
  if (code && UNREACHABLE_CODES.has(code)) return true;
  // SQLSTATE classes 08 (connection), 28 (authentication: a wrong password is the operator's to fix,
  // the job waits for it), 57P0x (server shutting down / restarting), 53300 (too many connections).
  if (code && (/^(08|28)/.test(code) || /^57P0/.test(code) || code === '53300')) return true;
  return /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED/i.test(message);
};

function describePool(pool: pg.Pool): string {
  const o = (pool as unknown as { options: pg.PoolConfig }).options;
  if (o.connectionString) return redactDatabaseUrl(o.connectionString);
  return `postgres://${o.user ? `${o.user}@` : ''}${o.host ?? 'localhost'}:${o.port ?? 5432}/${o.database ?? ''}`;
}

interface JobRow {
  workflow_id: string;
  first_run_id: string;
  job_id: string;
  parent_job_id: string | null;
  shop_id: string | null;
  created_at: Date;
  ended_at: Date | null;
  state: JobRecord['state'] | null;
  accepted: Record<string, number> | null;
  up_to_seq: number | null;
}

const recordOf = (r: JobRow): JobRecord => ({
  key: { workflowId: r.workflow_id, firstRunId: r.first_run_id },
  jobId: r.job_id,
  ...(r.parent_job_id !== null ? { parentJobId: r.parent_job_id } : {}),
  ...(r.shop_id !== null ? { shopId: r.shop_id } : {}),
  createdAt: r.created_at.toISOString(),
  ...(r.ended_at ? { endedAt: r.ended_at.toISOString() } : {}),
  ...(r.state ? { state: r.state } : {}),
  ...(r.accepted
    ? { accepted: Object.fromEntries(Object.entries(r.accepted).map(([k, v]) => [Number(k), v])) }
    : {}),
  ...(r.up_to_seq !== null ? { upToSeq: r.up_to_seq } : {}),
});

/**
 * JSON text for a jsonb column: jsonb cannot hold U+0000 (`\u0000` is refused), which a feed's SKU or an
 * API message may carry; it becomes U+FFFD rather than failing the write for ever. (An escaped
 * backslash before `u0000` is left alone: only an odd run of backslashes starts an escape.)
 */
const jsonbText = (value: unknown) =>
  JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd');

const chunks = <T>(items: T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

export function createPgJobStore(options: PgJobStoreOptions): JobStore {
  const db = openJobDb(options);
  let closed = false;
  return {
    kind: 'postgres',
    location: db.location,
    migrate: db.migrate,
    ...jobMethods(db),
    ...snapshotMethods(db),
    ...outcomeMethods(db),
    async close() {
      if (closed || !db.ownPool) return;
      closed = true;
      await db.pool.end();
    },
  };
}

/** The store's database as its methods use it. */
interface JobDb {
  pool: pg.Pool;
  ownPool: boolean;
  schema: string;
  T: JobTables;
  location: string;
  /** The store's wording of an error; an unreachable database is a retryable JobStoreUnavailable. */
  named: (e: unknown) => Error;
  migrate: () => Promise<void>;
  /** One statement (after the migration). */
  query: <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<R>>;
  /** One transaction on one connection (after the migration); rolled back when `work` throws. */
  tx: <R>(work: (c: pg.PoolClient) => Promise<R>) => Promise<R>;
}

function openJobDb(options: PgJobStoreOptions): JobDb {
  const schema = plainIdentifier(options.schema ?? 'public', 'job store schema');
  const ownPool = !options.pool;
  const pool =
    options.pool ??
    openPool(options.url, {
      max: options.poolSize ?? 8,
      applicationName: 'selling-kit-job-store',
      lost: (message) => console.error(`job store ${location}: ${message}`),
    });
  const location = options.url ? redactDatabaseUrl(options.url) : describePool(pool);
  const T = jobTables(schema);
  const named = (e: unknown): Error => {
    if (e instanceof ApplicationFailure && e.type === JOB_STORE_UNAVAILABLE) return e;
    const message = `job store ${location}: ${(e as Error)?.message ?? String(e)}`;
    return unreachable(e) ? ApplicationFailure.retryable(message, JOB_STORE_UNAVAILABLE) : new Error(message);
  };
  const migrate = tablesOnce({ pool, named, ...jobTablesSetup(schema, T) });
  return {
    pool,
    ownPool,
    schema,
    T,
    location,
    named,
    migrate,
    async query<R extends pg.QueryResultRow>(text: string, values: unknown[]) {
      await migrate();
      try {
        return await pool.query<R>(text, values);
      } catch (e) {
        throw named(e);
      }
    },
    async tx(work) {
      await migrate();
      return inTransaction(pool, named, work);
    },
  };
}

/** The job's row, made when missing (the first snapshot or part written for it). */
const ensureJob = ({ T }: JobDb, c: pg.PoolClient | pg.Pool, job: JobRef) =>
  c.query(
    `INSERT INTO ${T.jobs} (workflow_id, first_run_id, job_id, parent_job_id, shop_id)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (workflow_id, first_run_id) DO NOTHING`,
    [job.workflowId, job.firstRunId, job.jobId, job.parentJobId ?? null, job.shopId ?? null],
  );

/** The store's id, jobs' rows, start claims, expiry and the health probe. */
function jobMethods(
  db: JobDb,
): Pick<JobStore, 'id' | 'getJob' | 'findJobs' | 'expire' | 'claimStart' | 'probe'> {
  const { T, query, tx, migrate, pool, named } = db;
  let storeId: string | undefined;
  return {
    async id() {
      if (storeId) return storeId;
      const { rows } = await query<{ store_id: string }>(`SELECT store_id FROM ${T.meta}`, []);
      if (!rows[0]) throw db.named(new Error('the store has no id row (selling_kit_job_store is empty)'));
      return (storeId = rows[0].store_id);
    },
    async getJob(key) {
      const { rows } = await query<JobRow>(
        `SELECT * FROM ${T.jobs} WHERE workflow_id = $1 AND first_run_id = $2`,
        [key.workflowId, key.firstRunId],
      );
      return rows[0] && recordOf(rows[0]);
    },
    async findJobs(jobId) {
      const { rows } = await query<JobRow>(
        `SELECT * FROM ${T.jobs} WHERE job_id = $1 OR parent_job_id = $1
         ORDER BY created_at DESC, workflow_id DESC, first_run_id DESC`,
        [jobId],
      );
      return rows.map(recordOf);
    },

    async expire(before) {
      let jobs = 0;
      for (;;) {
        const removed = await tx(async (c) => {
          // SKIP LOCKED: two workers expiring at once share the work instead of waiting on each other.
          const { rows } = await c.query<{ workflow_id: string; first_run_id: string }>(
            `SELECT workflow_id, first_run_id FROM ${T.jobs} WHERE created_at < $1
             ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
            [before, EXPIRE_BATCH_JOBS],
          );
          if (!rows.length) return 0;
          const keys = [rows.map((r) => r.workflow_id), rows.map((r) => r.first_run_id)];
          for (const table of [T.records, T.outcomes, T.starts, T.jobs])
            await c.query(
              `DELETE FROM ${table} WHERE (workflow_id, first_run_id) IN
                 (SELECT * FROM unnest($1::text[], $2::text[]))`,
              keys,
            );
          return rows.length;
        });
        jobs += removed;
        if (removed < EXPIRE_BATCH_JOBS) return { jobs };
      }
    },
    async claimStart(startId, job) {
      await query(
        `INSERT INTO ${T.starts} (start_id, workflow_id, first_run_id) VALUES ($1, $2, $3)
         ON CONFLICT (start_id) DO NOTHING`,
        [startId, job.workflowId, job.firstRunId],
      );
      const { rows } = await query<{ workflow_id: string; first_run_id: string }>(
        `SELECT workflow_id, first_run_id FROM ${T.starts} WHERE start_id = $1`,
        [startId],
      );
      const first = rows[0]!;
      return { workflowId: first.workflow_id, firstRunId: first.first_run_id };
    },
    // A row written and rolled back: proves the connection, the password and the role's INSERT right.
    async probe() {
      await migrate();
      await probeWrite(pool, named, async (c) => {
        const probe = `selling-kit-probe:${randomUUID()}`;
        await c.query(`INSERT INTO ${T.jobs} (workflow_id, first_run_id, job_id) VALUES ($1, $1, $1)`, [
          probe,
        ]);
        await c.query(`SELECT store_id FROM ${T.meta}`);
      });
    },
  };
}

/** Snapshots: records written under a writer id, visible once committed (first commit wins). */
function snapshotMethods(
  db: JobDb,
): Pick<JobStore, 'getSnapshot' | 'createSnapshot' | 'readRecords' | 'deleteSnapshot'> {
  const { T, query, tx, migrate, named, pool } = db;
  return {
    async getSnapshot(job) {
      const { rows } = await query<{ snapshot: SnapshotMeta | null }>(
        `SELECT snapshot FROM ${T.jobs} WHERE workflow_id = $1 AND first_run_id = $2`,
        [job.workflowId, job.firstRunId],
      );
      return rows[0]?.snapshot ?? undefined;
    },
    async createSnapshot(job) {
      await migrate();
      try {
        await ensureJob(db, pool, job);
      } catch (e) {
        throw named(e);
      }
      const writer = randomUUID();
      const key = [job.workflowId, job.firstRunId, writer];
      let next = 0;
      const dropMine = (c: pg.PoolClient | pg.Pool) =>
        c.query(`DELETE FROM ${T.records} WHERE workflow_id = $1 AND first_run_id = $2 AND writer = $3`, key);
      return {
        async append(records) {
          for (const part of chunks(records, ROWS_PER_INSERT)) {
            const from = next;
            await query(
              `INSERT INTO ${T.records} (workflow_id, first_run_id, writer, idx, record)
               SELECT $1, $2, $3, $4 + t.n - 1, t.record FROM unnest($5::text[]) WITH ORDINALITY AS t(record, n)`,
              [...key, from, part],
            );
            next = from + part.length;
          }
        },
        commit: (meta) =>
          tx(async (c) => {
            const won = await c.query(
              `UPDATE ${T.jobs} SET snapshot = $4, snapshot_writer = $3
               WHERE workflow_id = $1 AND first_run_id = $2 AND snapshot IS NULL`,
              [...key, JSON.stringify(meta)],
            );
            if (won.rowCount === 1) {
              // Records left by attempts that died before commit or abort are nobody's now.
              await c.query(
                `DELETE FROM ${T.records} WHERE workflow_id = $1 AND first_run_id = $2 AND writer <> $3`,
                key,
              );
              return meta;
            }
            await dropMine(c);
            const { rows } = await c.query<{ snapshot: SnapshotMeta | null }>(
              `SELECT snapshot FROM ${T.jobs} WHERE workflow_id = $1 AND first_run_id = $2`,
              [job.workflowId, job.firstRunId],
            );
            if (!rows[0]?.snapshot)
              throw new Error(`job ${job.workflowId} has no record to commit its snapshot to`);
            return rows[0].snapshot;
          }),
        async abort() {
          await migrate();
          try {
            await dropMine(pool);
          } catch (e) {
            throw named(e);
          }
        },
      };
    },
    async readRecords(job, from, to) {
      // One statement: the committed writer and total from the job's row, then a primary-key range.
      const { rows } = await query<{ record: string }>(
        `SELECT r.record FROM ${T.jobs} j
         JOIN ${T.records} r
           ON r.workflow_id = j.workflow_id AND r.first_run_id = j.first_run_id AND r.writer = j.snapshot_writer
         WHERE j.workflow_id = $1 AND j.first_run_id = $2
           AND r.idx >= GREATEST($3::integer, 0) AND r.idx < LEAST($4::integer, (j.snapshot ->> 'total')::integer)
         ORDER BY r.idx`,
        [job.workflowId, job.firstRunId, Math.max(0, Math.floor(from)), Math.max(0, Math.floor(to))],
      );
      return rows.map((r) => r.record);
    },
    deleteSnapshot: (job) =>
      tx(async (c) => {
        await c.query(
          `UPDATE ${T.jobs} SET snapshot = NULL, snapshot_writer = NULL WHERE workflow_id = $1 AND first_run_id = $2`,
          [job.workflowId, job.firstRunId],
        );
        await c.query(`DELETE FROM ${T.records} WHERE workflow_id = $1 AND first_run_id = $2`, [
          job.workflowId,
          job.firstRunId,
        ]);
      }),
  };
}

/** Outcome parts, the report merged from them, and the end of a job (its merge rule kept). */
function outcomeMethods(
  db: JobDb,
): Pick<JobStore, 'writePart' | 'readOutcomes' | 'countOutcomes' | 'finalize'> {
  const { T, query, tx, schema } = db;
  const count = async (c: pg.PoolClient | undefined, job: JobKey, rule?: MergeRule) => {
    const text = `WITH ${ruleCte(T)} SELECT count(DISTINCT o.line)::integer AS n ${counted(T)}`;
    const values = ruleValues(job, rule);
    const { rows } = c
      ? await c.query<{ n: number }>(text, values)
      : await query<{ n: number }>(text, values);
    return rows[0]?.n ?? 0;
  };
  return {
    writePart: (job, part, lines) =>
      tx(async (c) => {
        const piece = part.piece ?? 0;
        const at = [job.workflowId, job.firstRunId, part.seq, part.attempt, piece];
        await ensureJob(db, c, job);
        // Two attempts writing the same piece at once: the second waits, then replaces the first whole.
        await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
          `selling-kit-job-part:${schema}:${JSON.stringify(at)}`,
        ]);
        await c.query(
          `DELETE FROM ${T.outcomes}
           WHERE workflow_id = $1 AND first_run_id = $2 AND seq = $3 AND attempt = $4 AND piece = $5`,
          at,
        );
        // One row per line (a line given twice: the last one given stands).
        const byLine = new Map<number, ItemResult>();
        for (const l of lines) byLine.set(l.line, l);
        for (const rows of chunks([...byLine.values()], ROWS_PER_INSERT))
          await c.query(
            `INSERT INTO ${T.outcomes} (workflow_id, first_run_id, seq, attempt, piece, line, kind, result)
             SELECT $1, $2, $3, $4, $5, t.line, $6, t.result::jsonb
             FROM unnest($7::integer[], $8::text[]) AS t(line, result)`,
            [...at, part.kind, rows.map((l) => l.line), rows.map(jsonbText)],
          );
      }),
    async readOutcomes(job, page = {}) {
      // No limit: every line (as the local store). With one, one more row than asked: a full page is the
      // last one only when nothing follows it.
      const limit = page.limit === undefined ? undefined : Math.max(1, Math.floor(page.limit));
      const { rows } = await query<{ line: number; result: ItemResult }>(
        `WITH ${ruleCte(T)}
         SELECT DISTINCT ON (o.line) o.line, o.result ${counted(T)}
           AND ($5::integer IS NULL OR o.line > $5)
         ORDER BY o.line, o.seq DESC, o.piece DESC
         LIMIT $6`,
        [...ruleValues(job, page), page.afterLine ?? null, limit === undefined ? null : limit + 1],
      );
      if (limit === undefined || rows.length <= limit) return { lines: rows.map((r) => r.result) };
      return { lines: rows.slice(0, limit).map((r) => r.result), nextAfterLine: rows[limit - 1]!.line };
    },
    countOutcomes: (job, rule) => count(undefined, job, rule),
    finalize: (job, end) =>
      tx(async (c) => {
        await ensureJob(db, c, job);
        // The latest call's rule and state stand (a retried call brings the same); the end time is the
        // first call's.
        await c.query(
          `UPDATE ${T.jobs} SET state = $3, accepted = $4, up_to_seq = $5, ended_at = COALESCE(ended_at, now())
           WHERE workflow_id = $1 AND first_run_id = $2`,
          [
            job.workflowId,
            job.firstRunId,
            end.state,
            JSON.stringify(end.accepted ?? {}),
            end.upToSeq ?? null,
          ],
        );
        return { lines: await count(c, job) };
      }),
  };
}

// The merge rule: what finalize stored once the job has ended, else the caller's. $3: upToSeq,
// $4: accepted (jsonb: seq → attempt). Parts of the job are filtered by it in `counted`.
const ruleCte = (T: JobTables) => `rule AS (
    SELECT CASE WHEN j.state IS NULL THEN $3::integer ELSE j.up_to_seq END AS up_to,
           CASE WHEN j.state IS NULL THEN $4::jsonb ELSE COALESCE(j.accepted, '{}'::jsonb) END AS acc
    FROM ${T.jobs} j WHERE j.workflow_id = $1 AND j.first_run_id = $2)`;
const counted = (T: JobTables) => `
    FROM ${T.outcomes} o, rule
    WHERE o.workflow_id = $1 AND o.first_run_id = $2
      AND (rule.up_to IS NULL OR o.seq <= rule.up_to)
      AND o.attempt = COALESCE((rule.acc ->> o.seq::text)::integer, 1)`;
const ruleValues = (job: JobKey, rule: MergeRule = {}) => [
  job.workflowId,
  job.firstRunId,
  rule.upToSeq ?? null,
  JSON.stringify(rule.accepted ?? {}),
];
