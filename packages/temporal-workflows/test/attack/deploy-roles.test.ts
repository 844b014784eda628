// Attack: one service's database credentials reach another's data (M4). The deployment's PostgreSQL
// gets one role per service from deploy/postgres/init-roles.sh, run once as the superuser (compose's
// `postgresql` first start, the native topology's set-up): Temporal's, n8n's and the selling-kit stores'
// (job store, token store). On a real PostgreSQL: no role is superuser or may create roles or databases,
// read server files or run programs; no role can connect to another's database; Temporal's schema set-up
// (deploy/temporal/setup-postgres.sh), the job store and the token store migrate and work as their own role.
// @needs topology
import { randomBytes, randomUUID } from 'node:crypto';
import { createPgJobStore } from '../../src/stores/job-store-pg.ts';
import { createPgTokenStore } from '../../src/stores/token-store-pg.ts';
import { startPostgres, type Postgres } from '../topology/postgres.ts';
import { initRoles, runInitRoles, type RoleName, type Roles } from '../topology/pg-roles.ts';
import { setupTemporalSchema } from '../topology/temporal-cluster.ts';

let server: Postgres;
let roles: Roles;

beforeAll(async () => {
  server = await startPostgres();
  roles = await initRoles(server);
}, 120_000);
afterAll(() => server?.stop(), 60_000);

const NAMES: RoleName[] = ['temporal', 'n8n', 'stores'];

/** The error PostgreSQL answers `sql` with as `role` (undefined when it ran). */
const refusal = async (role: RoleName, sql: string, database?: string) =>
  roles[role].query(sql, database).then(
    () => undefined,
    (e: { code?: string; message: string }) => ({ code: e.code, message: e.message }),
  );

describe('PostgreSQL roles of the deployment (deploy/postgres/init-roles.sh)', () => {
  it('no run-time role is superuser, creates roles or databases, replicates or bypasses row security', async () => {
    for (const name of NAMES) {
      const { rows } = await roles[name].query(
        `SELECT current_user AS user, rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls,
                pg_has_role(current_user, 'pg_read_all_data', 'MEMBER') AS reads_all
           FROM pg_roles WHERE rolname = current_user`,
      );
      expect(rows).toEqual([
        {
          user: roles[name].user,
          rolsuper: false,
          rolcreaterole: false,
          rolcreatedb: false,
          rolreplication: false,
          rolbypassrls: false,
          reads_all: false,
        },
      ]);
    }
  });

  it('a role cannot make itself superuser, create a role, read a server file or run a program', async () => {
    expect(await refusal('n8n', `ALTER ROLE ${roles.n8n.user} SUPERUSER`)).toEqual({
      code: '42501',
      message: expect.stringMatching(/^permission denied to alter role|must be superuser/),
    });
    expect(await refusal('n8n', 'CREATE ROLE intruder LOGIN SUPERUSER')).toEqual({
      code: '42501',
      message: 'must be superuser to create superusers',
    });
    expect(await refusal('n8n', 'CREATE ROLE intruder LOGIN')).toEqual({
      code: '42501',
      message: 'permission denied to create role',
    });
    expect(await refusal('temporal', `SELECT pg_read_file('/etc/passwd')`)).toEqual({
      code: '42501',
      message: 'permission denied for function pg_read_file',
    });
    expect(await refusal('stores', `COPY (SELECT 1) TO PROGRAM 'touch /tmp/sk-pwned'`)).toEqual({
      code: '42501',
      message: expect.stringMatching(
        /must be superuser or have privileges of the pg_execute_server_program role|permission denied to COPY to or from an external program/,
      ),
    });
    expect(await refusal('stores', `CREATE DATABASE intruder`)).toEqual({
      code: '42501',
      message: 'permission denied to create database',
    });
  });

  it("no role can connect to another role's database, nor to the superuser's", async () => {
    const refused: string[] = [];
    for (const name of NAMES)
      for (const other of NAMES.filter((n) => n !== name))
        for (const db of roles[other].databases) {
          const r = await refusal(name, 'SELECT 1', db);
          expect(r).toEqual({ code: '42501', message: `permission denied for database "${db}"` });
          refused.push(`${name}→${db}`);
        }
    expect(refused).toHaveLength(8); // temporal 2 + n8n 1 + stores 1, each from the two others
    // The cluster's maintenance database `postgres` is the superuser's alone too.
    for (const name of NAMES)
      expect(await refusal(name, 'SELECT 1', 'postgres')).toEqual({
        code: '42501',
        message: 'permission denied for database "postgres"',
      });
  });

  it('running the set-up again changes nothing and keeps every password (idempotent)', async () => {
    await runInitRoles(server, {
      temporal: roles.temporal.password,
      n8n: roles.n8n.password,
      stores: roles.stores.password,
    });
    for (const name of NAMES) await expect(roles[name].query('SELECT 1')).resolves.toBeDefined();
  }, 60_000);

  it('a database the superuser filled before the roles existed (an upgraded volume) is handed to its role', async () => {
    const db = roles.n8n.databases[0]!;
    await server.query(
      db,
      `CREATE TYPE legacy_state AS ENUM ('a', 'b');
       CREATE TABLE legacy_rows (id serial PRIMARY KEY, state legacy_state NOT NULL);
       CREATE VIEW legacy_view AS SELECT id FROM legacy_rows;
       CREATE FUNCTION legacy_fn() RETURNS int LANGUAGE sql AS 'SELECT 1';`,
    );
    // Before the hand-over the role cannot use the superuser's table.
    expect(await refusal('n8n', `INSERT INTO legacy_rows (state) VALUES ('a')`, db)).toEqual({
      code: '42501',
      message: 'permission denied for table legacy_rows',
    });
    await runInitRoles(server, {
      temporal: roles.temporal.password,
      n8n: roles.n8n.password,
      stores: roles.stores.password,
    });
    await roles.n8n.query(`INSERT INTO legacy_rows (state) VALUES ('b')`, db);
    const { rows } = await roles.n8n.query(
      `SELECT (SELECT count(*)::int FROM legacy_view) AS rows, legacy_fn() AS fn,
              (SELECT tableowner FROM pg_tables WHERE tablename = 'legacy_rows') AS owner`,
      db,
    );
    expect(rows).toEqual([{ rows: 1, fn: 1, owner: roles.n8n.user }]);
    // The hand-over gave nothing to the other roles.
    expect(await refusal('stores', 'SELECT 1 FROM legacy_rows', db)).toMatchObject({ code: '42501' });
  }, 60_000);

  it('the job store migrates and works as the stores role; another role cannot open it', async () => {
    const store = createPgJobStore({ url: roles.stores.url() });
    try {
      await store.migrate();
      const id = await store.id();
      const job = {
        workflowId: `bulk:${randomUUID()}`,
        firstRunId: randomUUID(),
        jobId: 'roles-job',
        storeId: id,
      };
      await store.writePart(job, { seq: 1, attempt: 1, kind: 'send' }, [
        { line: 1, sku: 'S1', status: 'ok' },
      ]);
      expect(await store.countOutcomes(job)).toBe(1);
    } finally {
      await store.close();
    }
    const intruder = createPgJobStore({ url: roles.n8n.url(roles.stores.databases[0]) });
    try {
      await expect(intruder.migrate()).rejects.toThrow(
        `permission denied for database "${roles.stores.databases[0]}"`,
      );
    } finally {
      await intruder.close();
    }
  }, 60_000);

  it('the token store creates its table and rotates as the stores role', async () => {
    const key = randomBytes(32);
    const store = createPgTokenStore(roles.stores.url(), key);
    try {
      const ref = `seller-${randomUUID()}`;
      expect(
        await store.set(
          ref,
          {
            baseUrl: 'http://127.0.0.1:1',
            clientId: 'c',
            clientSecret: 's',
            accessToken: 'pat_1',
            refreshToken: 'prt_1',
            expiresAt: 1,
          },
          0,
        ),
      ).toBe(true);
      expect(await store.get(ref)).toMatchObject({ accessToken: 'pat_1', version: 1 });
    } finally {
      await store.close();
    }
  }, 60_000);

  it("Temporal's schema set-up (deploy/temporal/setup-postgres.sh) runs from empty as the temporal role", async () => {
    const out = await setupTemporalSchema(server, roles.temporal);
    expect(out).toContain('Temporal schema is up to date');
    const { rows } = await roles.temporal.query(
      `SELECT count(*)::int AS tables FROM pg_tables WHERE schemaname = 'public' AND tableowner = current_user`,
    );
    expect(rows[0].tables).toBeGreaterThan(10);
    // The visibility database's btree_gin extension (trusted) was created by the owner, not a superuser.
    const ext = await roles.temporal.query(
      `SELECT extname FROM pg_extension WHERE extname = 'btree_gin'`,
      roles.temporal.databases[1],
    );
    expect(ext.rows).toEqual([{ extname: 'btree_gin' }]);
  }, 180_000);
});
