// The least-privilege PostgreSQL roles of the deployment, on a throw-away cluster (postgres.ts): runs
// deploy/postgres/init-roles.sh once as the superuser — what compose's `postgresql` service does from
// /docker-entrypoint-initdb.d on its first start — with the role and database names of
// deploy/env/postgresql.env and a fresh password per role (compose takes them from .env). Afterwards
// nothing in the topology connects as the superuser.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import { readDeployEnv, REPO_ROOT } from './deploy-env.ts';
import { pgBin, queryOnce, type Postgres } from './postgres.ts';

const run = promisify(execFile);

export const INIT_ROLES_SCRIPT = join(REPO_ROOT, 'deploy/postgres/init-roles.sh');

/** The three run-time roles: Temporal's, n8n's and the selling-kit stores' (job store, token store). */
export type RoleName = 'temporal' | 'n8n' | 'stores';

export interface Role {
  user: string;
  password: string;
  /** The databases this role owns (and alone may connect to). */
  databases: string[];
  /** postgres://user:password@127.0.0.1:port/<database, default its first> */
  url(database?: string): string;
  query(sql: string, database?: string): Promise<pg.QueryResult>;
}

export type Roles = Record<RoleName, Role>;

/** The variables the init script reads: names from postgresql.env, the passwords (from .env in compose). */
function scriptEnv(passwords: Record<RoleName, string>): Record<string, string> {
  return {
    ...readDeployEnv('postgresql.env'),
    TEMPORAL_DB_PASSWORD: passwords.temporal,
    N8N_DB_PASSWORD: passwords.n8n,
    SELLING_KIT_DB_PASSWORD: passwords.stores,
  };
}

/** Runs the init script against `server` as its superuser (over TCP, with the superuser's password). */
export async function runInitRoles(server: Postgres, passwords: Record<RoleName, string>): Promise<string> {
  try {
    const { stdout, stderr } = await run('sh', [INIT_ROLES_SCRIPT], {
      env: {
        PATH: `${pgBin('psql').replace(/\/psql$/, '')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        ...scriptEnv(passwords),
        PGHOST: server.host,
        PGPORT: String(server.port),
        PGPASSWORD: server.password,
      },
      timeout: 60_000,
    });
    return stdout + stderr;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `deploy/postgres/init-roles.sh failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
  }
}

/** Creates the roles and databases on `server`; answers how each role connects. */
export async function initRoles(server: Postgres): Promise<Roles> {
  const passwords = {
    temporal: randomBytes(12).toString('hex'),
    n8n: randomBytes(12).toString('hex'),
    stores: randomBytes(12).toString('hex'),
  };
  await runInitRoles(server, passwords);
  const env = readDeployEnv('postgresql.env');
  const role = (user: string | undefined, databases: string | undefined, password: string): Role => {
    if (!user || !databases) throw new Error('deploy/env/postgresql.env lacks a role or database name');
    const dbs = databases.split(',');
    const url = (database = dbs[0]!) =>
      `postgres://${encodeURIComponent(user)}:${password}@${server.host}:${server.port}/${database}`;
    return {
      user,
      password,
      databases: dbs,
      url,
      query: (sql, database) => queryOnce(url(database), sql),
    };
  };
  return {
    temporal: role(env.TEMPORAL_DB_USER, env.TEMPORAL_DB_NAMES, passwords.temporal),
    n8n: role(env.N8N_DB_USER, env.N8N_DB_NAME, passwords.n8n),
    stores: role(env.SELLING_KIT_DB_USER, env.SELLING_KIT_DB_NAME, passwords.stores),
  };
}
