// n8n 2.40.7 on PostgreSQL with compose's database settings: the values of deploy/env/n8n.env (the
// n8n service's env_file) with only host, port and N8N_PORT changed for this machine, plus the
// password compose takes from .env. harness.mts starts n8n on SQLite (its DB_TYPE wins over the
// environment), so this launcher starts it itself, with the harness's other loopback-only settings.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { nativeEnv } from '../../../temporal-workflows/test/topology/deploy-env.ts';
import type { Postgres } from '../../../temporal-workflows/test/topology/postgres.ts';
import { freePort, n8nBin, OUTPUT_DIR, tail, waitFor, type N8nInstance } from './harness.mts';

export async function startN8nOnPostgres(options: {
  userFolder: string;
  pg: Postgres;
  logName: string;
}): Promise<N8nInstance> {
  const bin = n8nBin();
  const [port, brokerPort] = [await freePort(), await freePort()];
  const owner = {
    email: 'e2e-owner@selling-kit.test',
    password: `E2e-${randomBytes(12).toString('hex')}-Pw1`,
  };
  const bcrypt = createRequire(bin)('bcryptjs') as { hashSync(p: string, rounds: number): string };
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const logFile = join(OUTPUT_DIR, options.logName);
  const log = createWriteStream(logFile);
  const compose = nativeEnv(
    ['n8n.env'],
    {
      DB_POSTGRESDB_HOST: options.pg.host,
      DB_POSTGRESDB_PORT: String(options.pg.port),
      N8N_PORT: String(port),
    },
    { DB_POSTGRESDB_PASSWORD: options.pg.password, N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex') },
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...compose,
    N8N_USER_FOLDER: options.userFolder,
    // This machine: loopback only, the task runners' broker on a free port, no calls home.
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PROTOCOL: 'http',
    N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}`,
    N8N_WEBHOOK_URL: `http://127.0.0.1:${port}/`,
    N8N_RUNNERS_BROKER_PORT: String(brokerPort),
    N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
    N8N_DIAGNOSTICS_CONFIG_FRONTEND: '',
    N8N_DIAGNOSTICS_CONFIG_BACKEND: '',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
    EXTERNAL_FRONTEND_HOOKS_URLS: '',
    N8N_AI_ENABLED: 'false',
    N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
    N8N_INSTANCE_OWNER_EMAIL: owner.email,
    N8N_INSTANCE_OWNER_FIRST_NAME: 'E2E',
    N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
    N8N_INSTANCE_OWNER_PASSWORD_HASH: bcrypt.hashSync(owner.password, 10),
    N8N_LOG_LEVEL: 'info',
    N8N_LOG_OUTPUT: 'console',
    NODE_ENV: 'production',
  };
  const child = spawn(process.execPath, [bin, 'start'], {
    cwd: options.userFolder,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // own process group: stop() ends n8n and its task runner together
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  let exited: string | undefined;
  child.on('exit', (code, signal) => (exited = `n8n exited (code ${code}, signal ${signal})`));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), 20_000);
      await gone;
      clearTimeout(timer);
    }
    signalGroup('SIGKILL');
    log.end();
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      'n8n readiness (on PostgreSQL)',
      async () => {
        if (exited) throw new Error(`${exited}; see ${logFile}`);
        const res = await fetch(`${url}/healthz/readiness`, { signal: AbortSignal.timeout(5_000) });
        return res.status === 200 ? true : undefined;
      },
      300_000,
      1_000,
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- last lines of ${logFile} ---\n${tail(logFile, 30)}`);
  }
  return { url, port, userFolder: options.userFolder, logFile, owner, process: child, stop };
}
