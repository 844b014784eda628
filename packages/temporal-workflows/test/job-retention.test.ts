// Job data retention on a real Temporal dev server and a real PostgreSQL job store: the schedule every
// worker ensures at start (one per task queue, updated — never duplicated — by later workers), and its
// run removing a job recorded long ago (backdated in the database) while a recent job stays.
// @needs temporal, topology
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { jobRetentionScheduleId, WORKFLOW_TYPES } from '../src/contract.ts';
import { ensureJobRetentionSchedule, describeSchedule, listSchedules } from '../src/client/schedules.ts';
import type { JobRef, JobStore } from '../src/stores/job-store.ts';
import { DEFAULT_JOB_RETENTION_DAYS } from '../src/stores/job-store.ts';
import { createPgJobStore } from '../src/stores/job-store-pg.ts';
import { jobRetentionDays } from '../src/stores/open-job-store.ts';
import { createWorker } from '../src/worker/worker.ts';
import { startPostgres, type Postgres } from './topology/postgres.ts';

const DB = 'retention';
const SCHEMA = 'retention_test';
let server: Postgres;
let store: JobStore;
let connection: Connection;
let client: Client;
let stopWorker: () => Promise<void>;
const taskQueue = `job-retention-${randomUUID()}`;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed by an earlier test file in this process
  }
  server = await startPostgres();
  await server.query('postgres', `CREATE DATABASE ${DB}`);
  store = createPgJobStore({ url: server.url(DB), schema: SCHEMA });
  await store.migrate();
  const address = process.env.TEMPORAL_TEST_ADDRESS!;
  connection = await Connection.connect({ address });
  client = new Client({ connection });
  // The test makes the schedule itself (jobRetentionDays: false): which call creates it is what it checks.
  const { worker, close } = await createWorker({
    address,
    taskQueue,
    credentials: () => undefined,
    jobStore: store,
    jobRetentionDays: false,
  });
  const running = worker.run();
  stopWorker = async () => {
    worker.shutdown();
    await running;
    await close();
  };
}, 180_000);
afterAll(async () => {
  await stopWorker?.();
  await connection?.close();
  await store?.close();
  await server?.stop();
}, 60_000);

const job = async (name: string): Promise<JobRef> => {
  const ref = {
    workflowId: `bulk:${name}`,
    firstRunId: randomUUID(),
    jobId: name,
    storeId: await store.id(),
  };
  const w = await store.createSnapshot(ref);
  await w.append(['{"sku":"A"}', '{"sku":"B"}']);
  await w.commit({ source: 'f.csv', format: 'csv', sha256: '00'.repeat(32), total: 2 });
  await store.writePart(ref, { seq: 1, attempt: 1, kind: 'send' }, [{ line: 1, sku: 'A', status: 'ok' }]);
  return ref;
};

it('SELLING_KIT_JOB_RETENTION_DAYS: default 30, a positive number, anything else refused', () => {
  expect(jobRetentionDays(undefined)).toBe(DEFAULT_JOB_RETENTION_DAYS);
  expect(DEFAULT_JOB_RETENTION_DAYS).toBe(30);
  expect(jobRetentionDays(' ')).toBe(30);
  expect(jobRetentionDays('7')).toBe(7);
  expect(jobRetentionDays('0.5')).toBe(0.5);
  for (const bad of ['0', '-3', 'thirty', 'Infinity'])
    expect(() => jobRetentionDays(bad)).toThrow(/SELLING_KIT_JOB_RETENTION_DAYS must be a positive number/);
});

it('one schedule per task queue, updated by later workers; its run removes the job recorded long ago only', async () => {
  const scheduleId = jobRetentionScheduleId(taskQueue);
  expect(scheduleId).toBe(`job-retention:${taskQueue}`);
  await expect(ensureJobRetentionSchedule(client, { taskQueue, retentionDays: 0 })).rejects.toThrow(
    /positive/,
  );
  // Three workers starting: the first creates it, the others update it to their own setting.
  expect(await ensureJobRetentionSchedule(client, { taskQueue, retentionDays: 10 })).toEqual({
    scheduleId,
    created: true,
  });
  const again = await Promise.all([
    ensureJobRetentionSchedule(client, { taskQueue, retentionDays: 30 }),
    ensureJobRetentionSchedule(client, { taskQueue, retentionDays: 30 }),
  ]);
  expect(again).toEqual([
    { scheduleId, created: false },
    { scheduleId, created: false },
  ]);
  try {
    const described = await describeSchedule(client, scheduleId);
    expect(described.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: WORKFLOW_TYPES.jobRetention,
      taskQueue,
      args: [{ retentionDays: 30 }],
    });
    expect(described.spec.intervals?.map((i) => i.every)).toEqual([86_400_000]);
    // No memo: deployments with other codec keys list this namespace's schedules too, and a memo they
    // cannot decode fails their whole `schedules list` (found by the CLI tests on one shared server).
    expect(described.memo ?? {}).toEqual({});
    const listed = (await listSchedules(client)).filter((s) => s.scheduleId === scheduleId);
    expect(listed).toMatchObject([{ kind: 'job-retention', workflowType: WORKFLOW_TYPES.jobRetention }]);
    expect(listed[0]!.nextActionTimes[0]!.getTime()).toBeGreaterThan(Date.now());
    // An operator paused it: a worker starting later leaves it paused.
    await client.schedule.getHandle(scheduleId).pause('operator: not now');
    await ensureJobRetentionSchedule(client, { taskQueue, retentionDays: 30 });
    expect((await describeSchedule(client, scheduleId)).state).toMatchObject({
      paused: true,
      note: 'operator: not now',
    });
    await client.schedule.getHandle(scheduleId).unpause();

    const old = await job(`old-${randomUUID()}`);
    const recent = await job(`recent-${randomUUID()}`);
    // Recorded 31 days ago, by the store's own clock.
    await server.query(
      DB,
      `UPDATE ${SCHEMA}.selling_kit_jobs SET created_at = now() - interval '31 days' WHERE job_id = '${old.jobId}'`,
    );

    await client.schedule.getHandle(scheduleId).trigger();
    let run: { workflowId: string; firstExecutionRunId: string } | undefined;
    while (!run) {
      run = (await describeSchedule(client, scheduleId)).info.recentActions.at(-1)?.action.workflow;
      if (!run) await new Promise((r) => setTimeout(r, 100));
    }
    const result = (await client.workflow.getHandle(run.workflowId, run.firstExecutionRunId).result()) as {
      jobs: number;
      before: string;
    };
    expect(result.jobs).toBe(1);
    const cut = Date.parse(result.before);
    expect(Date.now() - cut).toBeGreaterThanOrEqual(30 * 86_400_000);

    expect(await store.getJob(old)).toBeUndefined();
    expect(await store.readRecords(old, 0, 2)).toEqual([]);
    expect(await store.countOutcomes(old)).toBe(0);
    expect(await store.readRecords(recent, 0, 2)).toEqual(['{"sku":"A"}', '{"sku":"B"}']);
    expect(await store.countOutcomes(recent)).toBe(1);
  } finally {
    await client.schedule.getHandle(scheduleId).delete();
  }
}, 120_000);

it('listing schedules survives a schedule whose memo this client cannot decode (another deployment’s key)', async () => {
  // Another deployment on the namespace: its codec seals every payload, the memo too.
  const sealed = new Client({
    connection,
    dataConverter: {
      payloadCodecs: [
        {
          encode: async (payloads) =>
            payloads.map((p) => ({
              metadata: { encoding: new TextEncoder().encode('binary/encrypted') },
              data: p.data,
            })),
          decode: async (payloads) => payloads,
        },
      ],
    },
  });
  const scheduleId = `foreign-${randomUUID()}`;
  await sealed.schedule.create({
    scheduleId,
    spec: { intervals: [{ every: '1h' }] },
    action: { type: 'startWorkflow', workflowType: WORKFLOW_TYPES.reconcileOrders, taskQueue, args: [] },
    memo: { kind: 'theirs' },
  });
  try {
    // Schedules are listed through visibility, which lags a create: asked again until it shows (an error
    // decoding the foreign memo would throw here, not be waited out).
    let listed = await listSchedules(client);
    for (const deadline = Date.now() + 20_000; !listed.some((s) => s.scheduleId === scheduleId);) {
      if (Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 300));
      listed = await listSchedules(client);
    }
    expect(listed.find((s) => s.scheduleId === scheduleId)).toMatchObject({
      scheduleId,
      workflowType: WORKFLOW_TYPES.reconcileOrders,
      kind: 'orders-reconciliation',
      paused: false,
    });
  } finally {
    await client.schedule.getHandle(scheduleId).delete();
  }
}, 60_000);
