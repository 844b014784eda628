// The embedded stack of `selling-kit dev`: a Temporal dev server (SQLite in the data folder, reused by
// the next run, 0700), the simulator with the demo shop, the codec endpoint for the UI, and a worker. A
// server already answering is used only when asked (--use-running-temporal).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_FLAGS } from '@selling-kit/temporal-workflows/contract';
import { privateDir } from './config.ts';
import { CliError, EXIT } from './errors.ts';

/** The Temporal CLI: TEMPORAL_CLI_PATH, the one scripts/setup.sh built, or `temporal` on PATH. */
export function temporalBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TEMPORAL_CLI_PATH && existsSync(env.TEMPORAL_CLI_PATH)) return env.TEMPORAL_CLI_PATH;
  const cache = env.SELLING_KIT_CACHE ?? join(homedir(), '.cache', 'selling-kit');
  const built = existsSync(cache)
    ? readdirSync(cache)
        .filter((d) => d.startsWith('temporal-'))
        .sort()
        .map((d) => join(cache, d, 'temporal'))
        .filter(existsSync)
        .pop()
    : undefined;
  if (built) return built;
  for (const dir of (env.PATH ?? '').split(':'))
    if (dir && existsSync(join(dir, 'temporal'))) return join(dir, 'temporal');
  throw new CliError(
    'temporal_cli_missing',
    'the Temporal CLI (dev server) is not installed',
    EXIT.usage,
    'in a clone run `bash scripts/setup.sh` once (it builds it into ~/.cache/selling-kit); else install it (https://docs.temporal.io/cli) and put `temporal` on PATH or set TEMPORAL_CLI_PATH',
  );
}

export async function temporalAnswers(address: string, timeoutMs = 1500): Promise<boolean> {
  try {
    const c = await Connection.connect({ address, connectTimeout: timeoutMs });
    await c.close();
    return true;
  } catch {
    return false;
  }
}

export interface DevServer {
  address: string;
  uiUrl: string;
  /** Undefined when an already running server is used. */
  process?: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Whether a server already answers on `address` (true: use it). A server this command did not start
 * may be anyone's (a local user who started one first): the dev worker would poll it and run its owner's
 * jobs on this user's shops, so it is refused unless `useRunning` (--use-running-temporal).
 */
export async function adoptRunningTemporal(address: string, useRunning = false): Promise<boolean> {
  if (!(await temporalAnswers(address))) return false;
  if (useRunning) return true;
  throw new CliError(
    'temporal_already_running',
    `a Temporal server already answers on ${address} and this command did not start it: its owner could run jobs as you`,
    EXIT.usage,
    'stop it, or pass --temporal <host:port> for a free address; --use-running-temporal uses it anyway (only a server you started and trust)',
  );
}

/** Starts the dev server, or uses one already answering when `useRunning` (adoptRunningTemporal). */
export async function startTemporalDevServer(opts: {
  address: string;
  uiPort: number;
  dataDir: string;
  codecEndpoint?: string;
  useRunning?: boolean;
}): Promise<DevServer> {
  const uiUrl = `http://127.0.0.1:${opts.uiPort}`;
  if (await adoptRunningTemporal(opts.address, opts.useRunning))
    return { address: opts.address, uiUrl, stop: async () => undefined };
  const [host, port] = opts.address.split(':');
  privateDir(opts.dataDir);
  // temporal.db and its log hold every job's history: the owner's alone.
  const log = openSync(join(opts.dataDir, 'temporal.log'), 'a', 0o600);
  const child = spawn(
    temporalBinary(),
    [
      'server',
      'start-dev',
      ...['--db-filename', join(opts.dataDir, 'temporal.db')],
      ...['--ip', host ?? '127.0.0.1', '--port', port ?? '7233', '--ui-port', String(opts.uiPort)],
      // The HTTP API (the n8n Bulk Job node's way in) on the gRPC port + 10 — 7243 for 7233, the n8n
      // Temporal credential's default — instead of a random free port.
      ...['--http-port', String(Number(port ?? '7233') + 10)],
      ...(opts.codecEndpoint ? ['--ui-codec-endpoint', opts.codecEndpoint] : []),
      ...['--log-level', 'warn'],
      // Update-with-start, which the lanes and the app budget use (on by default in recent servers).
      ...['--dynamic-config-value', 'frontend.enableExecuteMultiOperation=true'],
      ...SEARCH_ATTRIBUTE_FLAGS,
    ],
    { stdio: ['ignore', log, log], detached: false },
  );
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const deadline = Date.now() + 90_000;
  while (!(await temporalAnswers(opts.address))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new CliError(
        'temporal_start_failed',
        `the Temporal dev server did not start on ${opts.address} (see ${join(opts.dataDir, 'temporal.log')})`,
        EXIT.temporalUnreachable,
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    address: opts.address,
    uiUrl,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
