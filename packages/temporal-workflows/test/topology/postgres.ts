// A throw-away PostgreSQL cluster for the native topology tests: Debian's binaries (installed by
// scripts/setup-temporal-server.sh, which exports SELLING_KIT_PG_BIN), `initdb` in a temp folder with the
// superuser and database of deploy/env/postgresql.env and a password (scram-sha-256, as a real server),
// listening on 127.0.0.1 on a free port and its own socket folder. PostgreSQL refuses to run as root: as
// root, every command runs as the unprivileged `postgres` user (runuser). stop() removes everything.
// The stores' PostgreSQL tests take one per file with a database of their own (usePostgresDatabase).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '@selling-kit/simulator/testing';
import { readDeployEnv } from './deploy-env.ts';

const run = promisify(execFile);

export { freePort };

/**
 * A free port below 32768: Temporal keeps membership ports in a smallint column, and the kernel's
 * ephemeral range (what port 0 gives) starts above it.
 */
export async function freeLowPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer()
        .once('error', () => resolve(false))
        .listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export interface Postgres {
  host: '127.0.0.1';
  port: number;
  user: string;
  password: string;
  /** postgres://user:password@127.0.0.1:port/<database> */
  url(database: string): string;
  query(database: string, sql: string): Promise<pg.QueryResult>;
  stop(): Promise<void>;
}

/**
 * Runs `sql` on a connection of its own to `connectionString`, closed after: the one-off query of the
 * throw-away clusters and their roles (pg-roles.ts).
 */
export async function queryOnce(connectionString: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A PostgreSQL binary's path (initdb, pg_ctl, psql). */
export function pgBin(name: string): string {
  const dir = process.env.SELLING_KIT_PG_BIN;
  const candidates = [dir && join(dir, name), `/usr/lib/postgresql/15/bin/${name}`, `/usr/local/bin/${name}`];
  const found = candidates.find((c): c is string => !!c && existsSync(c));
  if (!found)
    throw new Error(
      `PostgreSQL's ${name} was not found (SELLING_KIT_PG_BIN=${dir ?? 'unset'}): run scripts/setup-temporal-server.sh`,
    );
  return found;
}

async function postgresIds(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
    run('id', ['-u', 'postgres']),
    run('id', ['-g', 'postgres']),
  ]);
  return { uid: Number(uid), gid: Number(gid) };
}

/** Runs a PostgreSQL binary, as `postgres` when this process is root. */
async function asPostgres(ids: { uid: number } | undefined, bin: string, args: string[]) {
  const [cmd, argv] = ids ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  try {
    return await run(cmd, argv, { timeout: 60_000 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`${bin.split('/').pop()} failed: ${err.stderr || err.message}`);
  }
}

/**
 * The test file's throw-away cluster with a new, empty database `name` (started before its tests,
 * stopped after): `server` and the database's `url` are set once it runs. The set-up of the stores'
 * PostgreSQL tests.
 */
export function usePostgresDatabase(name: string): { server: Postgres; url: string } {
  const db = {} as { server: Postgres; url: string };
  beforeAll(async () => {
    db.server = await startPostgres();
    await db.server.query('postgres', `CREATE DATABASE ${name}`);
    db.url = db.server.url(name);
  }, 120_000);
  afterAll(() => db.server?.stop(), 60_000);
  return db;
}

export async function startPostgres(): Promise<Postgres> {
  const { POSTGRES_USER: user = 'postgres' } = readDeployEnv('postgresql.env');
  const password = randomBytes(12).toString('hex');
  const ids = await postgresIds();
  const dir = mkdtempSync(join(tmpdir(), 'sk-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, password, { mode: 0o600 });
  if (ids) {
    chownSync(dir, ids.uid, ids.gid);
    chownSync(pwfile, ids.uid, ids.gid);
  }
  chmodSync(dir, 0o700);
  await asPostgres(ids, pgBin('initdb'), [
    ...['-D', data, '-U', user, '--pwfile', pwfile, '--auth', 'scram-sha-256', '-E', 'UTF8'],
    '--locale=C',
  ]);
  const port = await freePort();
  const start = () =>
    asPostgres(ids, pgBin('pg_ctl'), [
      ...['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-t', '60'],
      // Test cluster only: no fsync (a machine crash is not what these tests are about); enough
      // connections for the Temporal server, two workers and n8n.
      ...['-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`],
      'start',
    ]);
  await start();
  const url = (database: string) =>
    `postgres://${encodeURIComponent(user)}:${password}@127.0.0.1:${port}/${database}`;
  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    url,
    query: (database, sql) => queryOnce(url(database), sql),
    async stop() {
      await asPostgres(ids, pgBin('pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
