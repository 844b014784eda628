// The client keyring on a deployment of several hosts (issue 22): two worker processes (temporal-workflows src/worker/worker-main.ts),
// each on a host of its own — a mount namespace with a private tmpfs as its home (temporal-workflows'
// chaos/private-disk.ts), so no file written on one is seen by the other — sharing one real PostgreSQL
// (the job store, hence the client keyring: SELLING_KIT_CLIENT_KEYS unset), one Temporal server and the
// simulator over 127.0.0.1. A key issued by `selling-kit keys issue` against that database starts a job
// on either worker; once `selling-kit keys retire` has reached both, a start signed by it is refused with
// `client_key_retired` whichever worker takes it, and touches nothing. Which worker took a start is read
// from history (the worker identity is `pid@host`). No timed assertion: each step polls for its outcome.
// @needs temporal, topology
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection, WorkflowFailedError, type ApplicationFailure } from '@temporalio/client';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import {
  AesGcmCodec,
  bulkWorkflowId,
  dataConverter,
  issueClientKey,
  startBulkJob,
} from '@selling-kit/temporal-workflows';
import { FEED_HEADER, feedRow } from '@selling-kit/temporal-workflows/testing';
import {
  isolationProblems,
  isolationUnavailable,
  privateDisk,
  PrivateHost,
} from '../../../temporal-workflows/chaos/private-disk.ts';
import { startPostgres, type Postgres } from '../../../temporal-workflows/test/topology/postgres.ts';
import { cliEnv, runCli, type CliEnv } from '../helpers.ts';

const WORKER_MAIN = fileURLToPath(
  new URL('../../../temporal-workflows/src/worker/worker-main.ts', import.meta.url),
);
const DEMO_KEY = 'pak_demo_selling_kit';
const DEMO_SELLER = 1001;
const HOSTS = ['keys-host-1', 'keys-host-2'];
/** Starts tried until both workers have taken one (each worker takes about half: never reached). */
const MAX_STARTS = 24;

interface Worker {
  host: PrivateHost;
  child: ChildProcess;
  log: string;
}

let pg: Postgres;
let sim: RunningSimulator;
let ctx: CliEnv;
let connection: Connection;
let dir: string;
const hosts: PrivateHost[] = [];
const workers: Worker[] = [];

const until = async (what: string, done: () => boolean | Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Starts worker-main on `host`; resolves once it polls. */
async function startWorker(host: PrivateHost, env: NodeJS.ProcessEnv): Promise<Worker> {
  const { command, args } = host.wrap(process.execPath, ['--no-warnings', WORKER_MAIN]);
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const worker: Worker = { host, child, log: '' };
  child.stdout!.on('data', (b: Buffer) => (worker.log += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (worker.log += b.toString()));
  await until(`the worker on ${host.name} to be ready`, () => {
    if (child.exitCode !== null) throw new Error(`the worker on ${host.name} exited:\n${worker.log}`);
    return worker.log.includes('worker ready');
  });
  return worker;
}

beforeAll(async () => {
  const why = isolationUnavailable();
  if (why) throw new Error(`this test runs workers on hosts of their own: ${why}`);
  dir = mkdtempSync(join(tmpdir(), 'sk-keys-hosts-'));
  pg = await startPostgres();
  await pg.query('postgres', 'CREATE DATABASE selling_kit');
  const database = pg.url('selling_kit');
  sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
  const codecKey = randomBytes(32).toString('base64');
  // The operator's CLI: the master ring and the job store's URL, no SELLING_KIT_CLIENT_KEYS.
  ctx = cliEnv({
    SELLING_KIT_CODEC_KEY: codecKey,
    SELLING_KIT_JOB_STORE: database,
    SELLING_KIT_CLIENT_KEYS: '',
  });
  const credentials = join(dir, 'credentials.json');
  writeFileSync(credentials, JSON.stringify({ a: { baseUrl: sim.url, apiKey: DEMO_KEY } }), { mode: 0o600 });
  const disk = privateDisk(join(dir, 'host'));
  mkdirSync(disk.root);
  for (const name of HOSTS) hosts.push(await PrivateHost.start(disk, name));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: disk.home,
    TMPDIR: disk.tmp,
    TEMPORAL_ADDRESS: ctx.address,
    SELLING_KIT_TASK_QUEUE: ctx.taskQueue,
    SELLING_KIT_CREDENTIALS: credentials,
    SELLING_KIT_JOB_STORE: database,
    SELLING_KIT_CODEC_KEY: codecKey,
  };
  // Both at once: each bundles the workflow code first, most of its start-up.
  workers.push(...(await Promise.all(hosts.map((host) => startWorker(host, env)))));
  expect(
    isolationProblems(
      disk,
      workers.map((w, i) => ({ name: `worker-${i + 1}`, host: w.host.name, pid: w.child.pid! })),
    ),
  ).toEqual([]);
  connection = await Connection.connect({ address: ctx.address });
}, 180_000);

afterAll(async () => {
  for (const w of workers) {
    const exited = new Promise((r) => w.child.once('exit', r));
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
    await exited;
  }
  for (const host of hosts) host.stop();
  await connection?.close();
  await sim?.close();
  await pg?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

const listings = () => [...sim.world.sellers.get(DEMO_SELLER)!.products.values()];

const clientOf = (credential: string) =>
  new Client({ connection, dataConverter: dataConverter(AesGcmCodec.forClient(credential)) });

/** A one-listing create job on shop a, started by the client holding `credential`. */
async function start(credential: string, sku: string): Promise<string> {
  const client = clientOf(credential);
  const jobId = `keys-hosts-${randomUUID()}`;
  await startBulkJob(
    client,
    {
      jobId,
      shop: { shopId: 'a', credentialRef: 'a' },
      feed: { path: 'inline.csv', format: 'csv', content: `${FEED_HEADER}\n${feedRow(sku)}\n` },
      operation: 'create',
      allowance: { limit: 50, windowMs: 1000 },
      verifyDelaysMs: [100, 200, 400],
    },
    ctx.taskQueue,
  );
  return bulkWorkflowId(jobId);
}

/** How a job ended and which host's worker took its first workflow task (where the start was decoded). */
async function outcome(workflowId: string, credential: string) {
  const client = clientOf(credential); // it opens what the worker wrote (results, failures)
  const ended = await client.workflow
    .getHandle(workflowId)
    .result()
    .then(
      () => ({ ok: true as const }),
      (e: unknown) => ({ ok: false as const, error: e }),
    );
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const identity = history.events!.find((e) => e.workflowTaskStartedEventAttributes)!
    .workflowTaskStartedEventAttributes!.identity!;
  const host = HOSTS.find((h) => identity.endsWith(`@${h}`));
  if (!host)
    throw new Error(
      `the first workflow task of ${workflowId} was taken by ${identity}, no worker of this test`,
    );
  return { host, ...ended };
}

describe('attack: a client key on workers on several hosts (one PostgreSQL keyring)', () => {
  let credential: string;

  it('`keys issue` against the job store database: a start is accepted on either worker', async () => {
    const issued = await runCli(ctx, ['keys', 'issue', '--id', 'hosts-a', '--shops', 'a']);
    expect(issued.code).toBe(0);
    expect(issued.stderr).toContain('recorded in postgres postgres://');
    credential = issued.stdout.trim();
    // No file keyring anywhere: not in the CLI's home, and each worker's home is a fresh tmpfs.
    const listed = await runCli(ctx, ['--json', 'keys', 'list']);
    expect(listed.json).toEqual([expect.objectContaining({ id: 'hosts-a', shops: 'a', retiredAt: '' })]);
    const accepted = new Set<string>();
    for (let i = 0; accepted.size < HOSTS.length; i++) {
      if (i === MAX_STARTS) throw new Error(`${MAX_STARTS} starts and only ${[...accepted]} took one`);
      const sku = `HOSTS-OK-${i}`;
      const r = await outcome(await start(credential, sku), credential);
      if (!r.ok)
        throw new Error(
          `a start on ${r.host} failed: ${((r.error as WorkflowFailedError).cause ?? (r.error as Error)).message}`,
        );
      expect(listings().filter((p) => p.sku === sku)).toHaveLength(1);
      accepted.add(r.host);
    }
  }, 240_000);

  it('`keys retire`: once both workers have read it, a start is refused on either, 0 listings touched', async () => {
    const retired = await runCli(ctx, ['keys', 'retire', 'hosts-a']);
    expect(retired.code).toBe(0);
    expect(retired.stdout).toMatch(/every worker refuses what it seals within \d+ s/);
    for (const w of workers)
      await until(`the worker on ${w.host.name} to read the retirement`, () =>
        w.log.includes('hosts-a retired'),
      );
    const refused = new Set<string>();
    for (let i = 0; refused.size < HOSTS.length; i++) {
      if (i === MAX_STARTS) throw new Error(`${MAX_STARTS} starts and only ${[...refused]} took one`);
      const before = JSON.stringify(listings());
      const r = await outcome(await start(credential, `HOSTS-RETIRED-${i}`), credential);
      if (r.ok) throw new Error(`a start signed by a retired key was accepted on ${r.host}`);
      expect(r.error).toBeInstanceOf(WorkflowFailedError);
      const cause = (r.error as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause.details?.[0]).toBe('client_key_retired');
      expect(cause.message).toMatch(/^client key hosts-a was retired on /);
      expect(JSON.stringify(listings())).toBe(before);
      refused.add(r.host);
    }
  }, 240_000);
  it('`keys import <file>` moves a file keyring into the database keyring; again, nothing changes', async () => {
    const file = join(dir, 'old-client-keys.json');
    issueClientKey(file, { id: 'from-file', shops: ['a'] });
    const first = await runCli(ctx, ['--json', 'keys', 'import', file]);
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ imported: ['from-file'], present: [], conflicting: [] });
    const again = await runCli(ctx, ['--json', 'keys', 'import', file]);
    expect(again.json).toMatchObject({ imported: [], present: ['from-file'], conflicting: [] });
    const listed = await runCli(ctx, ['--json', 'keys', 'list']);
    expect(listed.json.map((r: { id: string }) => r.id)).toEqual(['from-file', 'hosts-a']);
  }, 60_000);
});
