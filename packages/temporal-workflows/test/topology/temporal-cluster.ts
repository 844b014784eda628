// The compose topology's Temporal part, run natively (no Docker): the same server version as
// docker-compose.yml (built by scripts/setup-temporal-server.sh), configured from the same files:
//   0. roles: deploy/postgres/init-roles.sh, once, as the superuser (compose's `postgresql` first start):
//      one role per service, none superuser; everything below connects as its own role;
//   1. schema (as Temporal's role): deploy/temporal/setup-postgres.sh (compose's `temporal-schema`) with
//      deploy/env/temporal-persistence.env, temporal-sql-tool and the schema folders of the server module;
//   2. server: `server start` (the image's entrypoint), whose embedded configuration template reads
//      deploy/env/temporal-persistence.env + temporal-server.env (compose's `temporal`);
//   3. namespace: deploy/temporal/create-namespace.sh (compose's `temporal-namespace`) with
//      deploy/env/temporal-client.env and the `temporal` CLI.
// Only addresses, ports and paths differ (deploy-env.ts NATIVE_OVERRIDES). Everything listens on
// 127.0.0.1, every wait is bounded, stop() ends what was started.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stopChild } from '../../src/testing.ts';
import { nativeEnv, REPO_ROOT } from './deploy-env.ts';
import { initRoles, type Roles } from './pg-roles.ts';
import { freeLowPort, freePort, startPostgres, type Postgres } from './postgres.ts';

const run = promisify(execFile);

/** The server version scripts/setup-temporal-server.sh builds (the compose test keeps it = compose's). */
const SERVER_VERSION = /SELLING_KIT_TEMPORAL_SERVER_VERSION:-([\d.]+)/.exec(
  readFileSync(join(REPO_ROOT, 'scripts/setup-temporal-server.sh'), 'utf8'),
)?.[1];

/** A tool's path: the variable the set-up exports, else where the set-up caches it. */
export function tool(variable: string, cached?: string): string {
  const cache = process.env.SELLING_KIT_CACHE ?? join(homedir(), '.cache/selling-kit');
  const path = process.env[variable] || (cached && join(cache, cached));
  if (!path || !existsSync(path))
    throw new Error(
      `${variable} is not set and ${path ?? 'no cached copy'} is missing: run scripts/setup-temporal-server.sh (scripts/setup.sh with SELLING_KIT_TOPOLOGY=1)`,
    );
  return path;
}

export interface TemporalCluster {
  /** The cluster, as its superuser: for the test's own set-up and checks only (no service uses it). */
  pg: Postgres;
  /** The run-time roles (deploy/postgres/init-roles.sh): Temporal's, n8n's, the selling-kit stores'. */
  roles: Roles;
  /** 127.0.0.1:<frontend port> */
  address: string;
  /** The frontend's HTTP API (what n8n's Bulk Job node talks to): http://127.0.0.1:<FRONTEND_HTTP_PORT> */
  httpUrl: string;
  /** deploy/env/temporal-client.env with this cluster's address: what clients and workers get. */
  clientEnv: Record<string, string>;
  /** Where the server's output goes (kept until stop()). */
  logFile: string;
  /** SIGKILL (a crash) or SIGTERM (a stop) the server; resolves when it has exited. */
  stopServer(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts the server again on the same database and ports; resolves when it serves the namespace. */
  startServer(): Promise<void>;
  stop(): Promise<void>;
}

/** Runs a deploy/temporal script with `sh`, as the admin-tools container does. */
async function script(name: string, env: Record<string, string>, timeoutMs: number): Promise<string> {
  try {
    const { stdout, stderr } = await run('sh', [join(REPO_ROOT, 'deploy/temporal', name)], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir(), ...env },
      timeout: timeoutMs,
    });
    return stdout + stderr;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`deploy/temporal/${name} failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
}

/** The schema tool, the server module's source (schema files), the server and the `temporal` CLI. */
export function temporalTools() {
  return {
    server: tool('SELLING_KIT_TEMPORAL_SERVER_BIN', `temporal-server-${SERVER_VERSION}/server`),
    sqlTool: tool('SELLING_KIT_TEMPORAL_SQL_TOOL', `temporal-server-${SERVER_VERSION}/sql`),
    moduleSrc: tool('SELLING_KIT_TEMPORAL_SERVER_SRC', `go/mod/go.temporal.io/server@v${SERVER_VERSION}`),
  };
}

/**
 * Compose's `temporal-schema` service: deploy/temporal/setup-postgres.sh with temporal-persistence.env,
 * connecting as `role` (the role deploy/postgres/init-roles.sh made for Temporal, never the superuser).
 */
export async function setupTemporalSchema(
  server: { host: string; port: number },
  role: { user: string; password: string },
): Promise<string> {
  const { sqlTool, moduleSrc } = temporalTools();
  const env = nativeEnv(
    ['temporal-persistence.env'],
    { POSTGRES_SEEDS: server.host, DB_PORT: String(server.port) },
    { SQL_PASSWORD: role.password, TEMPORAL_SQL_TOOL: sqlTool, SCHEMA_DIR: join(moduleSrc, 'schema') },
  );
  if (env.POSTGRES_USER !== role.user)
    throw new Error(
      `temporal-persistence.env's POSTGRES_USER is ${env.POSTGRES_USER}, not the role ${role.user}`,
    );
  return script('setup-postgres.sh', env, 120_000);
}

export async function startTemporalCluster(): Promise<TemporalCluster> {
  const { server } = temporalTools();
  const cli = tool('TEMPORAL_CLI_PATH');
  const dir = mkdtempSync(join(tmpdir(), 'sk-topology-'));
  const logFile = join(dir, 'temporal-server.log');
  const pg = await startPostgres();
  let child: ChildProcess | undefined;
  try {
    const db = { POSTGRES_SEEDS: pg.host, DB_PORT: String(pg.port) };
    // 0. The roles and databases, once, as the superuser (compose: the postgresql service's first start).
    const roles = await initRoles(pg);

    // 1. Schema, from empty, as Temporal's role.
    await setupTemporalSchema(pg, roles.temporal);

    // 2. The server: compose's variables, then free ports for every service of the one process.
    const ports = Object.fromEntries(
      await Promise.all(
        [
          'FRONTEND_HTTP_PORT',
          'FRONTEND_MEMBERSHIP_PORT',
          'HISTORY_GRPC_PORT',
          'HISTORY_MEMBERSHIP_PORT',
          'MATCHING_GRPC_PORT',
          'MATCHING_MEMBERSHIP_PORT',
          'WORKER_GRPC_PORT',
          'WORKER_MEMBERSHIP_PORT',
        ].map(async (name) => [
          name,
          String(name.endsWith('MEMBERSHIP_PORT') ? await freeLowPort() : await freePort()),
        ]),
      ),
    ) as Record<string, string>;
    const grpcPort = String(await freePort());
    const address = `127.0.0.1:${grpcPort}`;
    const serverEnv = nativeEnv(
      ['temporal-persistence.env', 'temporal-server.env'],
      {
        ...db,
        BIND_ON_IP: '127.0.0.1',
        DYNAMIC_CONFIG_FILE_PATH: join(REPO_ROOT, 'deploy/temporal/dynamicconfig/development-sql.yaml'),
        FRONTEND_GRPC_PORT: grpcPort,
        PROMETHEUS_ENDPOINT: `127.0.0.1:${await freePort()}`,
      },
      { ...ports, POSTGRES_PWD: roles.temporal.password },
    );
    const log = createWriteStream(logFile, { flags: 'a' });
    const clientEnv = nativeEnv(['temporal-client.env'], { TEMPORAL_ADDRESS: address });
    const healthy = async (deadlineMs: number) => {
      const deadline = Date.now() + deadlineMs;
      for (;;) {
        try {
          await run(cli, ['operator', 'cluster', 'health', '--address', address], { timeout: 5_000 });
          return;
        } catch (e) {
          if (child?.exitCode !== null || Date.now() > deadline)
            throw new Error(
              `the Temporal server did not become healthy (log: ${logFile}): ${(e as Error).message}`,
            );
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    };
    const startServer = async () => {
      // The image's entrypoint: `temporal-server start`, configuration from the environment only.
      child = spawn(server, ['start'], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', ...serverEnv },
        stdio: 'pipe',
      });
      child.stdout!.pipe(log, { end: false });
      child.stderr!.pipe(log, { end: false });
      await healthy(90_000);
    };
    const stopServer = async (signal: 'SIGKILL' | 'SIGTERM' = 'SIGTERM') => {
      if (child) await stopChild(child, 30_000, signal);
    };
    await startServer();

    // 3. Namespace and search attributes, as compose's one-shot service does.
    await script('create-namespace.sh', { ...clientEnv, TEMPORAL_CLI: cli }, 180_000);
    // The namespace is served once the frontend has loaded it (its registry refreshes every few seconds).
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await run(
          cli,
          [
            'workflow',
            'list',
            '--limit',
            '1',
            '--address',
            address,
            '--namespace',
            clientEnv.TEMPORAL_NAMESPACE!,
          ],
          {
            timeout: 10_000,
          },
        );
        break;
      } catch (e) {
        if (Date.now() > deadline) throw new Error(`namespace not served: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }

    return {
      pg,
      roles,
      address,
      httpUrl: `http://127.0.0.1:${ports.FRONTEND_HTTP_PORT}`,
      clientEnv,
      logFile,
      stopServer,
      startServer,
      async stop() {
        await stopServer('SIGKILL');
        log.end();
        await pg.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    child?.kill('SIGKILL');
    await pg.stop();
    throw e;
  }
}
