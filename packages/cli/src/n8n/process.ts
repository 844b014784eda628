// The dev n8n process: `n8n start` on 127.0.0.1 with the recipe of TOOLCHAIN.md (offline: no
// telemetry, templates, banners or version checks; the task broker on its own port), its data in the
// dev user folder (SQLite, its own encryption key file), the owner managed from env (the bcrypt hash of
// the password kept in the dev home), output to a log file. It runs in its own process group so that
// stopping it also ends its task-runner children; an exit of the CLI kills the group as a last resort.
// The real-n8n tests of the nodes package start their n8n with this module too (other settings layered
// over the recipe), so what they test is how `dev` runs it. n8n gets an allow-listed environment
// (N8N_BASE_ENV), never the CLI's: its workflows' code must not find the codec key, TEMPORAL_API_KEY,
// the webhook secret or a database URL in its process. Its folder is 0700, its log 0600.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { freePort } from '@selling-kit/simulator';
import { privateDir } from '../config.ts';

export interface N8nProcess {
  url: string;
  port: number;
  logFile: string;
  /** Resolves when /healthz/readiness answers 200; rejects (n8n stopped) when it exits or times out. */
  ready: Promise<void>;
  /** Callable at any time, during the start too. */
  stop(): Promise<void>;
}

async function portFree(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** bcrypt hash with the bcryptjs inside n8n's own tree (n8n reads the owner's hash from env). */
export function bcryptHash(password: string, bin: string): string {
  const require = createRequire(bin);
  const bcrypt = require('bcryptjs') as { hashSync(p: string, rounds: number): string };
  return bcrypt.hashSync(password, 10);
}

/**
 * The variables n8n takes from the environment it is started from: the system's basics only (where
 * programs and the home are, language, time zone, temporary folder, extra CA certificates). Everything
 * else it needs is the recipe below or the caller's `env`.
 */
export const N8N_BASE_ENV = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'NODE_EXTRA_CA_CERTS',
  'SYSTEMROOT',
] as const;

/** The allow-listed part of `from` (N8N_BASE_ENV and the LC_* locale settings). */
export function n8nBaseEnv(from: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const allowed = new Set<string>(N8N_BASE_ENV);
  return Object.fromEntries(
    Object.entries(from).filter(([name]) => allowed.has(name) || name.startsWith('LC_')),
  );
}

/** Spawns n8n (after checking its port is free); its readiness is `ready`. */
export async function spawnN8n(opts: {
  bin: string;
  userFolder: string;
  /** 0: a free port. */
  port: number;
  logFile: string;
  owner: { email: string; password: string };
  /** The owner's name (default "Selling Kit Dev"). */
  ownerName?: { first: string; last: string };
  readyTimeoutMs?: number;
  /** The environment whose allow-listed part (n8nBaseEnv) the recipe is layered over (default: this process's). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Settings layered over the recipe (a database, for instance); undefined removes one. */
  env?: NodeJS.ProcessEnv;
}): Promise<N8nProcess> {
  if (opts.port && !(await portFree(opts.port)))
    throw new Error(`port ${opts.port} is in use (another n8n?): pass --n8n-port <port>`);
  const port = opts.port || (await freePort());
  const brokerPort = await freePort();
  // Its database holds execution data (webhook payloads: buyers, orders) and its encryption key.
  privateDir(opts.userFolder);
  privateDir(dirname(opts.logFile));
  const log = createWriteStream(opts.logFile, { flags: 'a', mode: 0o600 });
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...n8nBaseEnv(opts.baseEnv ?? process.env),
    N8N_USER_FOLDER: opts.userFolder,
    DB_TYPE: 'sqlite',
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PROTOCOL: 'http',
    N8N_EDITOR_BASE_URL: url,
    WEBHOOK_URL: `${url}/`,
    N8N_RUNNERS_BROKER_PORT: String(brokerPort),
    N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_DIAGNOSTICS_CONFIG_FRONTEND: '',
    N8N_DIAGNOSTICS_CONFIG_BACKEND: '',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_HIRING_BANNER_ENABLED: 'false',
    N8N_DYNAMIC_BANNERS_ENABLED: 'false',
    N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
    EXTERNAL_FRONTEND_HOOKS_URLS: '',
    N8N_AI_ENABLED: 'false',
    N8N_SECURE_COOKIE: 'false',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
    N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
    // Said explicitly (n8n 2's default): workflows' expressions and Code nodes cannot read $env.
    N8N_BLOCK_ENV_ACCESS_IN_NODE: 'true',
    N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
    N8N_INSTANCE_OWNER_EMAIL: opts.owner.email,
    N8N_INSTANCE_OWNER_FIRST_NAME: opts.ownerName?.first ?? 'Selling Kit',
    N8N_INSTANCE_OWNER_LAST_NAME: opts.ownerName?.last ?? 'Dev',
    N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(opts.owner.password, opts.bin),
    N8N_LOG_LEVEL: 'info',
    N8N_LOG_OUTPUT: 'console',
    NODE_ENV: 'production',
    ...opts.env,
  };
  const child = spawn(process.execPath, [opts.bin, 'start'], {
    cwd: opts.userFolder,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const running = () => child.exitCode === null && child.signalCode === null;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  // Last resort (the CLI ends without its clean-up): no n8n left behind.
  const onExit = () => signalGroup('SIGKILL');
  process.once('exit', onExit);
  const stop = async () => {
    if (running()) {
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    signalGroup('SIGKILL'); // the task runner, if it outlived n8n
    process.removeListener('exit', onExit);
    log.end();
  };
  const ready = (async () => {
    const deadline = Date.now() + (opts.readyTimeoutMs ?? 240_000);
    for (;;) {
      if (!running()) {
        await stop();
        throw new Error(`n8n exited during its start (see ${opts.logFile})`);
      }
      const answered = await fetch(`${url}/healthz/readiness`, { signal: AbortSignal.timeout(5_000) })
        .then((r) => r.status === 200)
        .catch(() => false);
      if (answered) return;
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`n8n did not become ready on ${url} in time (see ${opts.logFile})`);
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  })();
  // Observed by the caller; never an unhandled rejection when the caller is gone (Ctrl-C).
  ready.catch(() => undefined);
  return { url, port, logFile: opts.logFile, ready, stop };
}
