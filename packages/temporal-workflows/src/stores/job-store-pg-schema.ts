// The job store's tables in PostgreSQL (job-store-pg.ts says what each holds): their names in a schema,
// the layout's version, and the statements that make them. A store whose tables are at this version is used
// with no DDL at all; an older one is migrated (IF NOT EXISTS throughout), a newer one refused.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { tableExists, type TableSetup } from './pg-setup.ts';

/** The tables' layout version, kept in selling_kit_job_store (a later layout migrates from it). */
/** 2: the `starts` table (claimStart). A version-1 store is migrated by the first 0.5 worker to open it. */
export const JOB_STORE_SCHEMA_VERSION = 2;

export type JobTables = ReturnType<typeof jobTables>;

/** The tables' names in `schema` (a plain identifier, checked by the caller). */
export const jobTables = (schema: string) => ({
  meta: `${schema}.selling_kit_job_store`,
  jobs: `${schema}.selling_kit_jobs`,
  records: `${schema}.selling_kit_job_records`,
  outcomes: `${schema}.selling_kit_job_outcomes`,
  starts: `${schema}.selling_kit_job_starts`,
});

/** How the job store's tables are made (for tablesOnce). */
export function jobTablesSetup(
  schema: string,
  T: JobTables,
): Pick<TableSetup, 'lock' | 'current' | 'create'> {
  return {
    lock: `selling-kit-job-store:${schema}`,
    current: async (c) => {
      if (!(await tableExists(c, T.meta))) return false;
      const { rows } = await c.query<{ version: number }>(`SELECT version FROM ${T.meta}`);
      const version = rows[0]?.version;
      if (version !== undefined && version > JOB_STORE_SCHEMA_VERSION)
        throw new Error(
          `the tables are at version ${version}, newer than this worker's ${JOB_STORE_SCHEMA_VERSION}: upgrade the worker`,
        );
      return version === JOB_STORE_SCHEMA_VERSION;
    },
    create: (c) => createJobTables(c, schema, T),
  };
}

async function createJobTables(c: pg.PoolClient, schema: string, T: JobTables): Promise<void> {
  if (schema !== 'public') await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await c.query(
    `CREATE TABLE IF NOT EXISTS ${T.meta} (
         one boolean PRIMARY KEY DEFAULT true CHECK (one),
         store_id uuid NOT NULL,
         version integer NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now()
       )`,
  );
  await c.query(
    `CREATE TABLE IF NOT EXISTS ${T.jobs} (
         workflow_id text NOT NULL,
         first_run_id text NOT NULL,
         job_id text NOT NULL,
         parent_job_id text,
         shop_id text,
         created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
         snapshot jsonb,
         snapshot_writer uuid,
         ended_at timestamptz,
         state text,
         accepted jsonb,
         up_to_seq integer,
         PRIMARY KEY (workflow_id, first_run_id)
       )`,
  );
  await c.query(`CREATE INDEX IF NOT EXISTS selling_kit_jobs_job_id ON ${T.jobs} (job_id)`);
  await c.query(
    `CREATE INDEX IF NOT EXISTS selling_kit_jobs_parent_job_id ON ${T.jobs} (parent_job_id)
       WHERE parent_job_id IS NOT NULL`,
  );
  await c.query(`CREATE INDEX IF NOT EXISTS selling_kit_jobs_created_at ON ${T.jobs} (created_at)`);
  await c.query(
    `CREATE TABLE IF NOT EXISTS ${T.records} (
         workflow_id text NOT NULL,
         first_run_id text NOT NULL,
         writer uuid NOT NULL,
         idx integer NOT NULL,
         record text NOT NULL,
         PRIMARY KEY (workflow_id, first_run_id, writer, idx)
       )`,
  );
  await c.query(
    `CREATE TABLE IF NOT EXISTS ${T.outcomes} (
         workflow_id text NOT NULL,
         first_run_id text NOT NULL,
         seq integer NOT NULL,
         attempt integer NOT NULL,
         piece integer NOT NULL,
         line integer NOT NULL,
         kind text NOT NULL,
         result jsonb NOT NULL,
         PRIMARY KEY (workflow_id, first_run_id, seq, attempt, piece, line)
       )`,
  );
  await c.query(
    `CREATE TABLE IF NOT EXISTS ${T.starts} (
         start_id text PRIMARY KEY,
         workflow_id text NOT NULL,
         first_run_id text NOT NULL
       )`,
  );
  await c.query(
    `CREATE INDEX IF NOT EXISTS selling_kit_job_starts_by_job ON ${T.starts} (workflow_id, first_run_id)`,
  );
  // The merge walks a job's lines in order, newest seq first: pages are index range scans.
  await c.query(
    `CREATE INDEX IF NOT EXISTS selling_kit_job_outcomes_by_line
         ON ${T.outcomes} (workflow_id, first_run_id, line, seq DESC)`,
  );
  await c.query(
    `INSERT INTO ${T.meta} (one, store_id, version) VALUES (true, $1, $2)
       ON CONFLICT (one) DO UPDATE SET version = GREATEST(${T.meta}.version, EXCLUDED.version)`,
    [randomUUID(), JOB_STORE_SCHEMA_VERSION],
  );
}
