// The worker's health (issue 27 §2): `node src/worker/worker-main.ts` serves /healthz (liveness) and /readyz
// (readiness: Temporal with the worker's own connection, the job store and token store reachable and
// writable, the codec key loaded, the worker polling) on its metrics port, and its /metrics lists every
// selling_kit_* counter at 0 from start-up. A store it cannot use stops it at start, naming the setting.
// deploy/worker-healthcheck.mjs (compose's health check) asks /readyz: it fails once the worker is
// SIGKILLed. Temporal goes away (a proxy between the worker and the dev server is closed): /readyz is 503
// and names the check. Real processes, a real dev server and a real PostgreSQL (test/topology/postgres.ts).
// @needs temporal, topology
import { spawn, execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '@selling-kit/simulator/testing';
import { createPgJobStore } from '../src/stores/job-store-pg.ts';
import { JOB_STORE_ENV } from '../src/stores/job-store.ts';
import { TOKEN_STORE_ENV, WORKER_QUEUES_ENV } from '../src/worker/worker-env.ts';
import { orderTaskQueue, saleTaskQueue } from '../src/contract.ts';
import { HEALTH_ADDRESS_ENV, READINESS_CHECKS } from '../src/worker/health.ts';
import { KIT_COUNTERS, METRICS_ADDRESS_ENV } from '../src/observability/metrics.ts';
import { startPostgres, type Postgres } from './topology/postgres.ts';
import { SDK_METRICS } from './sdk-metric-names.ts';

const workerMain = fileURLToPath(new URL('../src/worker/worker-main.ts', import.meta.url));
const healthcheck = fileURLToPath(new URL('../../../deploy/worker-healthcheck.mjs', import.meta.url));
const run = promisify(execFile);

let pg: Postgres;
let dir: string;
const secrets = {
  SELLING_KIT_CODEC_KEY: randomBytes(32).toString('base64'),
  SELLING_KIT_TOKEN_STORE_KEY: randomBytes(32).toString('base64'),
};

beforeAll(async () => {
  pg = await startPostgres();
  await pg.query('postgres', 'CREATE DATABASE health');
  dir = mkdtempSync(join(tmpdir(), 'sk-health-'));
  writeFileSync(join(dir, 'credentials.json'), '{}');
}, 90_000);
afterAll(async () => {
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The worker's environment: codec on, a token store and a job store of this test, `extra` over it. */
function workerEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS,
    SELLING_KIT_TASK_QUEUE: `health-${randomUUID()}`,
    SELLING_KIT_CREDENTIALS: join(dir, 'credentials.json'),
    SELLING_KIT_KEY_FILE: join(dir, 'codec.key'), // absent: the key comes from SELLING_KIT_CODEC_KEY
    SELLING_KIT_CLIENT_KEYS: join(dir, 'client-keys.json'),
    [TOKEN_STORE_ENV]: join(dir, 'tokens.sealed'),
    [JOB_STORE_ENV]: join(dir, 'jobs'),
    ...secrets,
    ...extra,
  };
}

function spawnWorker(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [workerMain], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

/** A worker that should refuse to start: its exit code and what it printed. */
async function refusal(extra: NodeJS.ProcessEnv) {
  const w = spawnWorker(workerEnv(extra));
  // One that starts anyway is stopped (and the test then fails on its output, not on a timeout).
  const started = setTimeout(() => w.child.kill('SIGKILL'), 40_000);
  const code = await w.exited;
  clearTimeout(started);
  return { code, output: w.output() };
}

describe('worker start-up refuses a store it cannot use, naming the setting', () => {
  it('a token store URL nothing listens on', async () => {
    const closed = await freePort();
    const url = `postgres://kit:hunter2-secret@127.0.0.1:${closed}/health`;
    const { code, output } = await refusal({ [TOKEN_STORE_ENV]: url });
    expect(code).toBe(2); // fail(): a start-up error, not a crash
    expect(output).toContain(TOKEN_STORE_ENV);
    expect(output).toContain(`postgres://kit@127.0.0.1:${closed}/health`);
    expect(output).not.toContain('hunter2-secret');
    expect(output).not.toContain('worker ready');
  }, 60_000);

  it('a wrong token-store password (a real PostgreSQL)', async () => {
    const url = `postgres://${pg.user}:wrong-${randomUUID()}@127.0.0.1:${pg.port}/health`;
    const { code, output } = await refusal({ [TOKEN_STORE_ENV]: url });
    expect(code).toBe(2); // fail(): a start-up error, not a crash
    expect(output).toContain(TOKEN_STORE_ENV);
    expect(output).toMatch(/password authentication failed/);
    expect(output).not.toContain('wrong-');
  }, 60_000);

  it('a job store nothing listens on', async () => {
    const closed = await freePort();
    const { code, output } = await refusal({
      [JOB_STORE_ENV]: `postgres://kit:hunter2-secret@127.0.0.1:${closed}/health`,
    });
    expect(code).toBe(2); // fail(): a start-up error, not a crash
    expect(output).toContain(JOB_STORE_ENV);
    expect(output).not.toContain('hunter2-secret');
  }, 60_000);

  it('a job store folder that cannot be written (a path under a file)', async () => {
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, 'x');
    const { code, output } = await refusal({ [JOB_STORE_ENV]: join(file, 'jobs') });
    expect(code).toBe(2); // fail(): a start-up error, not a crash
    expect(output).toContain(JOB_STORE_ENV);
  }, 60_000);

  it('a job store whose role may read but not write (its tables already made)', async () => {
    // Migrated by the owner; the worker's role got SELECT only: migrate() finds nothing to do, so
    // only a write proves the store usable.
    const owner = createPgJobStore({ url: pg.url('health') });
    await owner.migrate();
    await owner.close();
    const password = randomBytes(8).toString('hex');
    await pg.query(
      'health',
      `CREATE ROLE reader LOGIN PASSWORD '${password}';
       GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;`,
    );
    const { code, output } = await refusal({
      [JOB_STORE_ENV]: `postgres://reader:${password}@127.0.0.1:${pg.port}/health`,
    });
    expect(code).toBe(2); // fail(): a start-up error, not a crash
    expect(output).toContain(JOB_STORE_ENV);
    expect(output).toMatch(/permission denied/);
    expect(output).not.toContain(password);
  }, 60_000);
});

/** A TCP proxy to `target` (host:port) that can be closed with its connections: Temporal going away. */
async function tcpProxy(target: string): Promise<{ address: string; close(): Promise<void> }> {
  const [host, port] = [target.split(':')[0]!, Number(target.split(':')[1])];
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(port, host);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${own}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

interface Readiness {
  status: string;
  checks: Record<string, { ok: boolean; detail?: string; error?: string }>;
}

const get = async (url: string) => {
  const r = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  return { status: r.status, text: await r.text() };
};

/** Polls `url` until `done` says so (a generous deadline, no timed assertion). */
async function until(url: string, done: (r: { status: number; text: string }) => boolean, ms = 90_000) {
  const deadline = Date.now() + ms;
  let last: { status: number; text: string } | string = 'no answer';
  for (;;) {
    try {
      last = await get(url);
      if (done(last)) return last;
    } catch (e) {
      last = (e as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${url}: still ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** deploy/worker-healthcheck.mjs with the worker's environment: its exit code and message. */
const runHealthcheck = (env: NodeJS.ProcessEnv) =>
  run(process.execPath, [healthcheck], { env, timeout: 30_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: e.code ?? -1,
      output: `${e.stdout ?? ''}${e.stderr ?? ''}`,
    }),
  );

describe('a running worker', () => {
  it('is ready with every check named, lists its counters at 0, fails readiness without Temporal and health once killed', async () => {
    const proxy = await tcpProxy(process.env.TEMPORAL_TEST_ADDRESS!);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = workerEnv({
      TEMPORAL_ADDRESS: proxy.address,
      [METRICS_ADDRESS_ENV]: `127.0.0.1:${port}`,
      // Both stores in PostgreSQL: their readiness checks write (and roll back) for real.
      [TOKEN_STORE_ENV]: pg.url('health'),
      [JOB_STORE_ENV]: pg.url('health'),
    });
    const w = spawnWorker(env);
    try {
      const ready = await until(`${base}/readyz`, (r) => r.status === 200);
      const body = JSON.parse(ready.text) as Readiness;
      expect(body.status).toBe('ready');
      expect(Object.keys(body.checks).sort()).toEqual([...READINESS_CHECKS].sort());
      for (const name of READINESS_CHECKS) expect(body.checks[name]).toMatchObject({ ok: true });
      // Ready as a poller of every queue it serves: the main one, the order flows' and the sale lane's.
      const queue = env.SELLING_KIT_TASK_QUEUE!;
      for (const q of [queue, orderTaskQueue(queue), saleTaskQueue(queue)])
        expect(JSON.stringify(body.checks.polling)).toContain(q);
      // No secret in what anyone on the metrics port may read.
      for (const secret of [pg.password, ...Object.values(secrets)]) expect(ready.text).not.toContain(secret);

      expect(await get(`${base}/healthz`)).toMatchObject({ status: 200 });

      // Every counter of the kit, at zero before any job: a rule on it never sees "no data".
      const metrics = await get(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      for (const { name } of KIT_COUNTERS)
        expect(metrics.text).toMatch(new RegExp(`^${name}\\{[^}]*\\} 0$`, 'm'));
      // The SDK's own, beside ours: those deploy/prometheus reads.
      for (const name of SDK_METRICS) expect(metrics.text).toMatch(new RegExp(`^${name}\\{`, 'm'));

      // Compose's health check asks this worker's /readyz.
      expect(await runHealthcheck(env)).toMatchObject({ code: 0 });

      // Temporal gone (the worker's only way there closed): not ready, and the check says which.
      await proxy.close();
      const down = await until(`${base}/readyz`, (r) => r.status === 503);
      const failing = JSON.parse(down.text) as Readiness;
      expect(failing.status).toBe('not ready');
      expect(failing.checks.temporal).toMatchObject({ ok: false, error: expect.any(String) });
      expect(failing.checks.jobStore).toMatchObject({ ok: true });
      const unhealthy = await runHealthcheck(env);
      expect(unhealthy.code).toBe(1);
      expect(unhealthy.output).toContain('temporal');

      // SIGKILL: nothing answers any more, and the health check says so.
      w.child.kill('SIGKILL');
      await w.exited;
      await expect(get(`${base}/healthz`)).rejects.toThrow();
      const dead = await runHealthcheck(env);
      expect(dead.code).toBe(1);
      expect(dead.output).toMatch(/health check failed/);
    } finally {
      if (w.child.exitCode === null && w.child.signalCode === null) {
        w.child.kill('SIGKILL');
        await w.exited;
      }
      await proxy.close();
    }
  }, 180_000);

  it('serves health on SELLING_KIT_HEALTH_ADDRESS when metrics are off', async () => {
    const port = await freePort();
    const env = workerEnv({ [HEALTH_ADDRESS_ENV]: `127.0.0.1:${port}`, [METRICS_ADDRESS_ENV]: '' });
    const w = spawnWorker(env);
    try {
      await until(`http://127.0.0.1:${port}/readyz`, (r) => r.status === 200);
      expect(await get(`http://127.0.0.1:${port}/metrics`)).toMatchObject({ status: 404 });
      expect(await runHealthcheck(env)).toMatchObject({ code: 0 });
    } finally {
      w.child.kill('SIGTERM');
      await w.exited;
    }
  }, 120_000);

  it('a sale-only worker (SELLING_KIT_WORKER_QUEUES=sales) is ready as a poller of the sale lane', async () => {
    const port = await freePort();
    const env = workerEnv({
      [HEALTH_ADDRESS_ENV]: `127.0.0.1:${port}`,
      [METRICS_ADDRESS_ENV]: '',
      [WORKER_QUEUES_ENV]: 'sales',
    });
    const w = spawnWorker(env);
    try {
      const ready = await until(`http://127.0.0.1:${port}/readyz`, (r) => r.status === 200);
      const body = JSON.parse(ready.text) as Readiness;
      expect(JSON.stringify(body.checks)).toContain(saleTaskQueue(env.SELLING_KIT_TASK_QUEUE!));
    } finally {
      w.child.kill('SIGTERM');
      await w.exited;
    }
  }, 120_000);
});
