// n8n 2.40.7 on PostgreSQL with compose's database settings: the values of deploy/env/n8n.env (the
// n8n service's env_file) with only host, port and N8N_PORT changed for this machine, plus the
// password compose takes from .env — layered over the harness's launcher (the CLI's loopback-only,
// offline recipe, whose DB_TYPE they replace), in an environment of PATH and HOME only.
import { randomBytes } from 'node:crypto';
import { nativeEnv } from '../../../temporal-workflows/test/topology/deploy-env.ts';
import type { Postgres } from '../../../temporal-workflows/test/topology/postgres.ts';
import { freePort, startN8n, type N8nInstance } from './harness.mts';

export async function startN8nOnPostgres(options: {
  userFolder: string;
  pg: Postgres;
  logName: string;
}): Promise<N8nInstance> {
  const port = await freePort();
  const compose = nativeEnv(
    ['n8n.env'],
    {
      DB_POSTGRESDB_HOST: options.pg.host,
      DB_POSTGRESDB_PORT: String(options.pg.port),
      N8N_PORT: String(port),
    },
    { DB_POSTGRESDB_PASSWORD: options.pg.password, N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex') },
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
