// The worker's health endpoint: one HTTP listener on the metrics address (SELLING_KIT_METRICS_ADDRESS),
// or on SELLING_KIT_HEALTH_ADDRESS when metrics are off, serving
//   /healthz  liveness: this process's event loop answers and its worker has not stopped or failed;
//   /readyz   readiness: every check of READINESS_CHECKS passes (health-checks.ts), 200, else 503;
//   /metrics  the SDK runtime's Prometheus text (its exporter listens on a loopback port of its own, and
//             this listener passes the scrape on), when metrics are on.
// Bodies are JSON naming each check and whether it passed, with a short reason: never a secret (a
// database URL's password is cut out of any message). Used by deploy/worker-healthcheck.mjs (compose),
// the systemd units and Prometheus. Concurrent /readyz requests share one run of the checks.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';

/** Where the worker serves /metrics, /healthz and /readyz (host:port); metrics are off when unset. */
export const METRICS_ADDRESS_ENV = 'SELLING_KIT_METRICS_ADDRESS';
/** Where the worker serves /healthz and /readyz when SELLING_KIT_METRICS_ADDRESS is not set (host:port). */
export const HEALTH_ADDRESS_ENV = 'SELLING_KIT_HEALTH_ADDRESS';

/**
 * The health listener's address and the variable it came from: the metrics address, else the health
 * address; undefined when neither is set. `metricsAddress` overrides the metrics variable (a CLI flag).
 */
export function healthAddress(
  env: NodeJS.ProcessEnv,
  metricsAddress: string | undefined = env[METRICS_ADDRESS_ENV]?.trim() || undefined,
): { address: string; variable: string } | undefined {
  if (metricsAddress) return { address: metricsAddress, variable: METRICS_ADDRESS_ENV };
  const address = env[HEALTH_ADDRESS_ENV]?.trim();
  return address ? { address, variable: HEALTH_ADDRESS_ENV } : undefined;
}

/** The URL a prober on the same host uses for `address` (a wildcard bind is reached on loopback). */
export function localUrl(address: string, variable: string): string {
  const { host, port } = parseHostPort(address, variable);
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${local.includes(':') ? `[${local}]` : local}:${port}`;
}

/** The readiness checks, by the name the /readyz body gives them (health-checks.ts makes them). */
export const READINESS_CHECKS = ['temporal', 'jobStore', 'tokenStore', 'codecKey', 'polling'] as const;
export type ReadinessCheck = (typeof READINESS_CHECKS)[number];

/** A check passes when it resolves (with an optional detail) and fails when it throws. */
export type Check = () => Promise<string | void>;

/** One check's result, as /readyz shows it. */
export type CheckResult = { ok: true; detail?: string } | { ok: false; error: string };

/** A check that has not answered in this long fails (the answer must come before a prober gives up). */
export const CHECK_TIMEOUT_MS = 5_000;
/** Characters of a failure's message shown. */
const ERROR_CHARS = 300;

/** `host:port` → its parts; throws naming `variable` when it is not one. */
export function parseHostPort(address: string, variable: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^\s:]+):(\d{1,5})$/.exec(address.trim());
  const port = Number(m?.[2]);
  if (!m || port > 65_535)
    throw new Error(`${variable}: expected host:port (e.g. 127.0.0.1:9464), got "${address}"`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

/** A message with any `scheme://user:password@` cut to `scheme://user@`, shortened. */
export function publicMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/(\w+:\/\/[^\s:@/]*):[^\s@/]*@/g, '$1@').slice(0, ERROR_CHARS);
}

async function runCheck(check: Check, timeoutMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    const detail = await Promise.race([check(), timeout]);
    return detail ? { ok: true, detail } : { ok: true };
  } catch (e) {
    return { ok: false, error: publicMessage(e) };
  } finally {
    clearTimeout(timer);
  }
}

export interface HealthOptions {
  /** host:port to listen on. */
  address: string;
  /** The variable `address` came from, for messages. */
  variable: string;
  /** Why the worker is not alive (it stopped or failed), or undefined while it is. */
  liveness(): string | undefined;
  /**
   * The readiness checks now, by name. A function: the worker adds its own once it exists (until then
   * `polling` says it is starting).
   */
  checks(): Record<string, Check>;
  /** The runtime exporter's /metrics (a loopback URL), passed on at /metrics; 404 there when absent. */
  metricsUpstream?: string;
  timeoutMs?: number;
}

export interface HealthServer {
  /** http://host:port of the listener. */
  url: string;
  /** The checks run once, as /readyz would answer them. */
  readiness(): Promise<{ ready: boolean; checks: Record<string, CheckResult> }>;
  close(): Promise<void>;
}

/** Listens on `options.address`; rejects (naming the variable) when it cannot. */
export async function startHealthServer(options: HealthOptions): Promise<HealthServer> {
  const { host, port } = parseHostPort(options.address, options.variable);
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  let running: Promise<{ ready: boolean; checks: Record<string, CheckResult> }> | undefined;
  const readiness = () =>
    (running ??= (async () => {
      const entries = Object.entries(options.checks());
      const results = await Promise.all(entries.map(([, check]) => runCheck(check, timeoutMs)));
      const checks = Object.fromEntries(entries.map(([name], i) => [name, results[i]!]));
      return { ready: results.every((r) => r.ok), checks };
    })().finally(() => (running = undefined)));

  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body) + '\n');
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { error: 'GET only' });
    if (path === '/healthz') {
      const why = options.liveness();
      return why ? send(503, { status: 'not alive', error: why }) : send(200, { status: 'alive' });
    }
    if (path === '/readyz') {
      readiness().then(
        ({ ready, checks }) => send(ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', checks }),
        (e: unknown) => send(503, { status: 'not ready', error: publicMessage(e) }),
      );
      return;
    }
    if (path === '/metrics' && options.metricsUpstream) {
      fetch(options.metricsUpstream, { signal: AbortSignal.timeout(timeoutMs) }).then(
        async (upstream) => {
          res.writeHead(upstream.status, {
            'content-type': upstream.headers.get('content-type') ?? 'text/plain; version=0.0.4',
          });
          res.end(await upstream.text());
        },
        (e: unknown) => send(503, { error: `metrics exporter: ${publicMessage(e)}` }),
      );
      return;
    }
    send(404, {
      error: 'not found',
      paths: ['/healthz', '/readyz', ...(options.metricsUpstream ? ['/metrics'] : [])],
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(new Error(`${options.variable}: cannot listen on ${options.address} (${publicMessage(e)})`)),
    );
    server.listen(port, host, () => resolve());
  });
  // A prober's keep-alive connection never holds the process open at shutdown.
  server.unref();
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    readiness,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A free TCP port on 127.0.0.1 (for the runtime's exporter, which this listener fronts). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createTcpServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
