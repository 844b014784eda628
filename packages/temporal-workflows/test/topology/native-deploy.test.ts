// The native deployment of deploy/README.md "Without Docker", run from its own files: deploy/native's
// settings (selling-kit.env with this run's free ports and paths), install.sh (twice: idempotent) on a
// fresh PostgreSQL, `systemd-analyze verify` of the units, the units run by systemd-units.ts exactly as
// their ExecStart/EnvironmentFile say (temporal-server, selling-kit-namespace, two
// selling-kit-worker@<port> ready on /readyz), a bulk job from the operator's wrapper
// deploy/native/selling-kit with every item in the report once; the optional units (temporal-ui lists the
// job; selling-kit-codec-server opens its payloads for `temporal workflow show` with the bearer token
// only); then the restore drill of "Backup and restore": backup.sh, a fresh PostgreSQL cluster, install.sh
// + restore.sh there, the server and a worker on it, and `jobs status` / `jobs report` of the job finished
// before the dump answer as before; last, the job deleted from Temporal (as retention does): `jobs status`
// exit 4, `jobs report --shops` still answers from the job store.
// @needs topology
import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { stopChild } from '../../src/testing.ts';
import { parseEnvFile, readDeployEnv, REPO_ROOT } from './deploy-env.ts';
import { detachedCreateArgs, runToEnd, sellerWithKey, writeTopologyFeed, type Ran } from './native-run.ts';
import { freeLowPort, pgBin, startPostgres, type Postgres } from './postgres.ts';
import { startUnit, runUnit, verifyUnits } from './systemd-units.ts';
import { temporalTools, tool } from './temporal-cluster.ts';

const run = promisify(execFile);
const NATIVE = join(REPO_ROOT, 'deploy/native');
const ITEMS = 40;
/** The UI server version setup-temporal-server.sh builds, the temporalio/ui image docker-compose.yml runs. */
const UI_VERSION = /SELLING_KIT_TEMPORAL_UI_VERSION:-([\d.]+)/.exec(
  readFileSync(join(REPO_ROOT, 'scripts/setup-temporal-server.sh'), 'utf8'),
)?.[1];
const SHOP = 'shop-native';

let root: string;
let etc: string;
let data: string;
const pgs: Postgres[] = [];
let sim: RunningSimulator;
const children: ChildProcess[] = [];
const logs: Record<string, string> = {};

/** deploy/native/selling-kit.env with `values` replaced (each key must be in the file) → etc/selling-kit.env. */
function writeSettings(values: Record<string, string>) {
  const template = readFileSync(join(NATIVE, 'selling-kit.env'), 'utf8');
  const keys = parseEnvFile(template, 'deploy/native/selling-kit.env');
  for (const key of Object.keys(values))
    if (!(key in keys)) throw new Error(`${key} is not a setting of deploy/native/selling-kit.env`);
  const text = template
    .split('\n')
    .map((line) => {
      const key = /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1];
      return key && key in values ? `${key}=${values[key]}` : line;
    })
    .join('\n');
  writeFileSync(join(etc, 'selling-kit.env'), text);
}

const settings = () => parseEnvFile(readFileSync(join(etc, 'selling-kit.env'), 'utf8'));
const secrets = (file: string) => parseEnvFile(readFileSync(join(etc, file), 'utf8'));

/** A deploy/native script, with PostgreSQL's client binaries on PATH and the superuser's password. */
async function nativeScript(script: string, pg: Postgres, args: string[] = []) {
  try {
    const { stdout, stderr } = await run('sh', [join(NATIVE, script), ...args], {
      env: {
        PATH: `${dirname(pgBin('psql'))}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        SELLING_KIT_ETC: etc,
        SYSTEMD_UNIT_DIR: join(root, 'units'),
        PGPASSWORD: pg.password,
      },
      timeout: 180_000,
    });
    return stdout + stderr;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`deploy/native/${script} failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  }
}

const unit = (name: string) => join(root, 'units', name);

const handedOut = new Set<number>();
/**
 * A free port below the kernel's ephemeral range (32768+), never one this test has handed out already: the
 * settings name a dozen ports before anything listens on them.
 */
async function distinctLowPort(): Promise<number> {
  for (;;) {
    const port = await freeLowPort();
    if (!handedOut.has(port)) return (handedOut.add(port), port);
  }
}

/** The last lines of each process's output: what a timeout message can carry and still be read. */
const logTails = (lines = 12) =>
  Object.entries(logs)
    .map(([name, text]) => `--- ${name}:\n${text.trimEnd().split('\n').slice(-lines).join('\n')}`)
    .join('\n');

/**
 * Polls `check` until it holds; `child` ending first fails at once (its exit is not a slow start).
 */
const until = async (
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  child?: ChildProcess,
) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (child && (child.exitCode !== null || child.signalCode !== null))
      throw new Error(`${what}: the process ended (${child.exitCode ?? child.signalCode})\n${logTails(40)}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${logTails()}`);
    await new Promise((r) => setTimeout(r, 300));
  }
};

/** The server unit, started; resolves once the frontend answers `operator cluster health`. */
async function startServer() {
  const child = startUnit(
    unit('temporal-server.service'),
    etc,
    '',
    (c) => (logs.server = (logs.server ?? '') + c),
  );
  children.push(child);
  const s = settings();
  await until(
    'the Temporal server',
    async () => {
      await run(
        tool('TEMPORAL_CLI_PATH'),
        ['operator', 'cluster', 'health', '--address', `${s.TEMPORAL_HOST}:${s.FRONTEND_GRPC_PORT}`],
        { timeout: 5_000 },
      );
      return true;
    },
    120_000,
    child,
  );
  return child;
}

/** selling-kit-worker@<port>; resolves once its /readyz answers 200. */
async function startWorker(port: number) {
  const name = `worker@${port}`;
  const child = startUnit(
    unit('selling-kit-worker@.service'),
    etc,
    String(port),
    (c) => (logs[name] = (logs[name] ?? '') + c),
  );
  children.push(child);
  await until(
    `${name} ready`,
    async () => {
      return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
    },
    120_000,
    child,
  );
  return child;
}

const stop = (child: ChildProcess) => stopChild(child, 30_000);

/**
 * deploy/native/selling-kit (the operator's CLI on a worker host: settings, secrets, addresses from
 * /etc/selling-kit); `home` is its SELLING_KIT_HOME (the report folder).
 */
const cli = (args: string[], timeoutMs = 120_000, home = 'cli-home'): Promise<Ran> =>
  runToEnd(
    spawn('sh', [join(NATIVE, 'selling-kit'), ...args], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SELLING_KIT_ETC: etc,
        SELLING_KIT_HOME: join(root, home),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
    timeoutMs,
    `selling-kit ${args.join(' ')}`,
  );

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sk-native-'));
  etc = join(root, 'etc');
  data = join(root, 'data');
  mkdirSync(etc);
  let pg: Postgres;
  [pg, sim] = await Promise.all([
    startPostgres(),
    startSimulator({ port: 0, config: { fetchPictures: false } }),
  ]);
  pgs.push(pg);
  const { server, sqlTool, moduleSrc } = temporalTools();
  // Below the kernel's ephemeral range (32768+): the restore drill starts the server again on these
  // ports a minute later, and a port from that range may meanwhile be any outgoing connection's.
  const port = async () => String(await distinctLowPort());
  const [uiPort, codecPort] = [await port(), await port()];
  writeSettings({
    SELLING_KIT_REPO: REPO_ROOT,
    NODE: process.execPath,
    TEMPORAL_SERVER_BIN: server,
    TEMPORAL_SQL_TOOL: sqlTool,
    TEMPORAL_CLI: tool('TEMPORAL_CLI_PATH'),
    SCHEMA_DIR: join(moduleSrc, 'schema'),
    SELLING_KIT_DATA: data,
    DB_PORT: String(pg.port),
    FRONTEND_GRPC_PORT: await port(),
    FRONTEND_HTTP_PORT: await port(),
    HISTORY_GRPC_PORT: await port(),
    MATCHING_GRPC_PORT: await port(),
    WORKER_GRPC_PORT: await port(),
    FRONTEND_MEMBERSHIP_PORT: await port(),
    HISTORY_MEMBERSHIP_PORT: await port(),
    MATCHING_MEMBERSHIP_PORT: await port(),
    WORKER_MEMBERSHIP_PORT: await port(),
    PROMETHEUS_ENDPOINT: `127.0.0.1:${await port()}`,
    TEMPORAL_UI_BIN: tool('SELLING_KIT_TEMPORAL_UI_BIN', `temporal-ui-${UI_VERSION}/ui-server`),
    TEMPORAL_UI_PORT: uiPort,
    TEMPORAL_UI_ORIGIN: `http://127.0.0.1:${uiPort}`,
    CODEC_SERVER_PORT: codecPort,
    TEMPORAL_CODEC_ENDPOINT: `http://127.0.0.1:${codecPort}`,
  });
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sim?.close();
  for (const pg of pgs) await pg.stop();
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

describe('deploy/native: the documented native deployment', () => {
  it('builds the UI server of the image compose runs', () => {
    const compose = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    expect(/image: temporalio\/ui:([\d.]+)/.exec(compose)?.[1]).toBe(UI_VERSION);
  });

  it('its settings name the roles, databases, namespace and task queue compose uses', () => {
    const native = parseEnvFile(readFileSync(join(NATIVE, 'selling-kit.env'), 'utf8'));
    const compose = {
      ...readDeployEnv('postgresql.env'),
      ...readDeployEnv('temporal-client.env'),
      ...readDeployEnv('worker.env'),
    };
    const persistence = readDeployEnv('temporal-persistence.env');
    const shared = [
      'TEMPORAL_DB_USER',
      'TEMPORAL_DB_NAMES',
      'N8N_DB_USER',
      'N8N_DB_NAME',
      'SELLING_KIT_DB_USER',
      'SELLING_KIT_DB_NAME',
      'TEMPORAL_NAMESPACE',
      'SELLING_KIT_SEARCH_ATTRIBUTES',
      'SELLING_KIT_TASK_QUEUE',
      'SELLING_KIT_CODEC',
    ];
    const persisted = ['DB', 'POSTGRES_USER', 'DBNAME', 'VISIBILITY_DBNAME', 'NUM_HISTORY_SHARDS'];
    expect(
      Object.fromEntries([
        ...shared.map((k) => [k, native[k]]),
        ...persisted.map((k) => [`persistence ${k}`, native[k]]),
      ]),
    ).toEqual(
      Object.fromEntries([
        ...shared.map((k) => [k, compose[k]]),
        ...persisted.map((k) => [`persistence ${k}`, persistence[k]]),
      ]),
    );
  });

  it('install → server → namespace → two workers → a bulk job, every item once → the UI and the codec endpoint → a restored dump still answers, and after retention the report', async () => {
    const [pg] = pgs;
    // install.sh, twice: the second run keeps the secrets and finds everything in place.
    await nativeScript('install.sh', pg!);
    const firstSecrets = ['temporal.secrets', 'worker.secrets', 'n8n.secrets'].map(secrets);
    const again = await nativeScript('install.sh', pg!);
    expect(['temporal.secrets', 'worker.secrets', 'n8n.secrets'].map(secrets)).toEqual(firstSecrets);
    expect(again).toContain('Temporal schema is up to date');

    // systemd's own check of the installed units, where systemd-analyze exists (it does on Debian).
    const findings = await verifyUnits(
      [
        'temporal-server.service',
        'selling-kit-namespace.service',
        'selling-kit-worker@.service',
        'temporal-ui.service',
        'selling-kit-codec-server.service',
      ].map(unit),
      '9464',
    );
    if (findings !== undefined) expect(findings).toBe('');

    const serverUnit = await startServer();
    const ns = await runUnit(unit('selling-kit-namespace.service'), etc, 180_000);
    expect({ code: ns.code, tail: ns.output.slice(-200) }).toMatchObject({ code: 0 });
    // deploy/README.md "Upgrading": the namespace keeps closed jobs 72 h (the server's default).
    const s = settings();
    const described = await run(tool('TEMPORAL_CLI_PATH'), [
      ...['operator', 'namespace', 'describe', '--namespace', s.TEMPORAL_NAMESPACE!],
      ...['--address', `${s.TEMPORAL_HOST}:${s.FRONTEND_GRPC_PORT}`, '-o', 'json'],
    ]);
    expect(
      (JSON.parse(described.stdout) as { config: { workflowExecutionRetentionTtl: string } }).config
        .workflowExecutionRetentionTtl,
    ).toBe('259200s');

    const { seller, apiKey } = sellerWithKey(
      sim,
      { username: `native-${randomUUID().slice(0, 6)}`, partnerId: 'partner-native' },
      SHOP,
      join(data, 'credentials.json'),
    );
    const { feed, skus } = writeTopologyFeed(join(data, 'feeds'), `NAT-${randomUUID().slice(0, 6)}`, ITEMS);
    const [p1, p2] = [await distinctLowPort(), await distinctLowPort()];
    const workers = await Promise.all([startWorker(p1), startWorker(p2)]);

    const jobId = `native-${randomUUID().slice(0, 8)}`;
    const started = await cli(detachedCreateArgs(feed, SHOP, jobId));
    expect({
      code: started.code,
      stderr: started.stderr.slice(-500),
      key: started.stderr.includes(apiKey),
    }).toEqual({
      code: 0,
      stderr: expect.any(String),
      key: false,
    });
    const watched = await cli(['--json', 'jobs', 'watch', jobId], 180_000);
    expect(JSON.parse(watched.stdout)).toMatchObject({
      state: 'finished',
      total: ITEMS,
      ok: ITEMS,
      failed: 0,
    });
    // The report, read by a worker from the job store (`home`: the CLI's folder; a fresh one has no
    // earlier export to fall back on).
    const reportLines = async (home: string, extra: string[] = []) => {
      const r = await cli(['--json', 'jobs', 'report', jobId, ...extra], 120_000, home);
      expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
      return (JSON.parse(r.stdout) as { line: number; sku: string; status: string }[]).sort(
        (a, b) => a.line - b.line,
      );
    };
    const jobStatus = async (home: string) => {
      const r = await cli(['--json', 'jobs', 'status', jobId], 120_000, home);
      expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    const statusBefore = await jobStatus('cli-home');
    expect(statusBefore).toMatchObject({ state: 'finished', total: ITEMS, failed: 0 });
    const before = await reportLines('cli-home');
    expect(before.map((i) => [i.line, i.sku, i.status])).toEqual(skus.map((sku, i) => [i + 1, sku, 'ok']));
    expect(seller.products.size).toBe(ITEMS);

    // The optional units: the UI lists the job and names the codec endpoint; the codec endpoint opens the
    // job's sealed payloads for `temporal workflow show` with its bearer token, and only with it.
    const st = settings();
    const ui = startUnit(unit('temporal-ui.service'), etc, '', (c) => (logs.ui = (logs.ui ?? '') + c));
    const codecServer = startUnit(
      unit('selling-kit-codec-server.service'),
      etc,
      '',
      (c) => (logs.codec = (logs.codec ?? '') + c),
    );
    children.push(ui, codecServer);
    const uiUrl = `http://${st.TEMPORAL_UI_HOST}:${st.TEMPORAL_UI_PORT}`;
    let uiSettings: { Codec?: { Endpoint?: string }; DisableWriteActions?: boolean } = {};
    await until(
      'the UI',
      async () => {
        uiSettings = (await (await fetch(`${uiUrl}/api/v1/settings`)).json()) as typeof uiSettings;
        return true;
      },
      60_000,
      ui,
    );
    expect(uiSettings).toMatchObject({
      Codec: { Endpoint: st.TEMPORAL_CODEC_ENDPOINT },
      DisableWriteActions: true,
    });
    const listed = await fetch(
      `${uiUrl}/api/v1/namespaces/${st.TEMPORAL_NAMESPACE}/workflows?query=${encodeURIComponent(`WorkflowId="bulk:${jobId}"`)}`,
    );
    expect(await listed.text()).toContain(`bulk:${jobId}`);
    await until(
      'the codec endpoint',
      async () => (logs.codec ?? '').includes('codec endpoint'),
      60_000,
      codecServer,
    );
    const show = async (auth?: string) =>
      run(tool('TEMPORAL_CLI_PATH'), [
        ...['workflow', 'show', '--workflow-id', `bulk:${jobId}`, '-o', 'json'],
        ...[
          '--address',
          `${st.TEMPORAL_HOST}:${st.FRONTEND_GRPC_PORT}`,
          '--namespace',
          st.TEMPORAL_NAMESPACE!,
        ],
        ...(auth ? ['--codec-endpoint', st.TEMPORAL_CODEC_ENDPOINT!, '--codec-auth', auth] : []),
        // A refused decode is retried until this deadline: keep it short.
        ...['--command-timeout', '10s'],
      ]).then(
        (r) => r.stdout,
        (e: { stderr?: string }) => `failed: ${e.stderr ?? ''}`,
      );
    const token = secrets('codec-server.secrets').SELLING_KIT_CODEC_SERVER_TOKEN!;
    const [sealed, opened, refused] = [
      await show(),
      await show(`Bearer ${token}`),
      await show('Bearer not-the-token'),
    ];
    // The job's start input as `temporal workflow show` gives it: its encoding and, opened, its text.
    const input = (out: string) => {
      if (!out.startsWith('{')) return 'not shown';
      const events = (JSON.parse(out) as { events: Record<string, any>[] }).events; // eslint-disable-line @typescript-eslint/no-explicit-any
      const payload = events[0]!.workflowExecutionStartedEventAttributes.input.payloads[0] as {
        metadata: { encoding: string };
        data: string;
      };
      const encoding = Buffer.from(payload.metadata.encoding, 'base64').toString();
      return encoding === 'json/plain'
        ? (JSON.parse(Buffer.from(payload.data, 'base64').toString()) as { feed?: { path?: string } })
        : encoding;
    };
    expect([input(sealed), input(opened), input(refused)]).toEqual([
      'binary/encrypted',
      expect.objectContaining({ jobId, feed: expect.objectContaining({ path: feed }) }),
      'not shown',
    ]);
    await Promise.all([stop(ui), stop(codecServer)]);

    // The restore drill: dump, a fresh cluster, install + restore there, the units on it.
    const dumps = join(root, 'backup');
    await nativeScript('backup.sh', pg!, [dumps]);
    await Promise.all(workers.map(stop));
    await stop(serverUnit);
    const fresh = await startPostgres();
    pgs.push(fresh);
    writeSettings({ ...settings(), DB_PORT: String(fresh.port) });
    await nativeScript('install.sh', fresh);
    await nativeScript('restore.sh', fresh, [dumps]);
    await startServer();
    await startWorker(p1);
    expect(await jobStatus('cli-home-restored')).toEqual(statusBefore);
    expect(await reportLines('cli-home-restored')).toEqual(before);

    // deploy/README.md "Upgrading", Retention: once Temporal has dropped the job (deleted here, as the
    // namespace's retention does), `jobs status` says so (exit 4) and `jobs report` still answers from the
    // job store, told the job's shops (Temporal no longer says them).
    await run(tool('TEMPORAL_CLI_PATH'), [
      ...['workflow', 'delete', '--workflow-id', `bulk:${jobId}`],
      ...['--address', `${st.TEMPORAL_HOST}:${st.FRONTEND_GRPC_PORT}`, '--namespace', st.TEMPORAL_NAMESPACE!],
    ]);
    let gone: Ran | undefined;
    await until(
      'the job gone from Temporal',
      async () => {
        gone = await cli(['--json', 'jobs', 'status', jobId], 60_000, 'cli-home-restored');
        return gone.code === 4;
      },
      60_000,
    );
    expect(JSON.parse(gone!.stdout || gone!.stderr)).toMatchObject({
      error: { code: 'job_not_found', message: `no job "${jobId}"` },
    });
    expect(await reportLines('cli-home-expired', ['--shops', SHOP])).toEqual(before);
  }, 600_000);
});
