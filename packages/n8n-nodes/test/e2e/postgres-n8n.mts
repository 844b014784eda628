// n8n 2.40.7 on PostgreSQL with compose's database settings: the values of deploy/env/n8n.env (the
// n8n service's env_file: n8n's own role, not the superuser) with only host, port, N8N_PORT and paths
// changed for this machine, plus the role's password compose takes from .env — layered over the
// harness's launcher (the CLI's loopback-only, offline recipe, whose DB_TYPE they replace), in an
// environment of PATH and HOME only.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { nativeEnv, REPO_ROOT } from '../../../temporal-workflows/test/topology/deploy-env.ts';
import type { Role } from '../../../temporal-workflows/test/topology/pg-roles.ts';
import type { Postgres } from '../../../temporal-workflows/test/topology/postgres.ts';
import { freePort, startN8n, type N8nInstance } from './harness.mts';

/** compose mounts this file at n8n.env's NODES_EXCLUDE_FILE. */
const NODES_EXCLUDE = join(REPO_ROOT, 'deploy/n8n/nodes-exclude.json');

export async function startN8nOnPostgres(options: {
  userFolder: string;
  pg: Postgres;
  /** n8n's role (deploy/postgres/init-roles.sh): its password is what compose passes as N8N_DB_PASSWORD. */
  role: Role;
  logName: string;
}): Promise<N8nInstance> {
  const port = await freePort();
  const compose = nativeEnv(
    ['n8n.env'],
    {
      DB_POSTGRESDB_HOST: options.pg.host,
      DB_POSTGRESDB_PORT: String(options.pg.port),
      N8N_PORT: String(port),
      NODES_EXCLUDE_FILE: NODES_EXCLUDE,
      N8N_RESTRICT_FILE_ACCESS_TO: join(options.userFolder, 'n8n-files'),
    },
    { DB_POSTGRESDB_PASSWORD: options.role.password, N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex') },
  );
  return await startN8n({
    userFolder: options.userFolder,
    logName: options.logName,
    port,
    readyTimeoutMs: 300_000,
    baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    settings: compose,
  });
}
