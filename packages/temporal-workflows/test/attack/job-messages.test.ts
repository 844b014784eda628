// Attack tests for issue 22's bulk-job messages: a bulk job's workflow id (`bulk:<jobId>`) names no shop,
// so a client key scoped to shop a must not pause, resume or cancel shop b's job, nor read its report.
// Every message names the job's shops (`JobMessage.shopIds`): the codec refuses a key not granted one of
// them, the job refuses a message whose shops are not exactly its own, and the report workflow refuses a
// reader whose named shops are not the job's recorded ones. A worker with the codec on and a client
// keyring, a real Temporal server, the simulator over 127.0.0.1.
// @needs temporal
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client, WorkflowUpdateFailedError } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import { AesGcmCodec, parseCodecKeys } from '../../src/codec/codec.ts';
import { dataConverter } from '../../src/codec/data-converter.ts';
import { bulkWorkflowId, shopWorkflowId } from '../../src/contract.ts';
import {
  cancelJob,
  JobReportError,
  pauseJob,
  readReport,
  resumeJob,
  startBulkJob,
} from '../../src/client/client.ts';
import {
  cancelSignal,
  pauseSignal,
  pauseUpdate,
  progressQuery,
  resumeSignal,
  resumeUpdate,
} from '../../src/workflows/index.ts';
import {
  HEADER,
  issuedClientCodec,
  keyringWorkerCodec,
  products,
  row,
  useTestEnv,
  waitFor,
} from '../helpers.ts';
import type { BulkJobInput, BulkProgress, MultiShopJobInput } from '../../src/types.ts';

const master = randomBytes(32);
const ring = parseCodecKeys(`k1:${master.toString('base64')}`, 'test');
const keyringFile = join(`/tmp/sk-job-messages-${randomUUID()}`, 'client-keys.json');
const { codec: workerCodec } = keyringWorkerCodec(ring, keyringFile);
const env = useTestEnv('job-messages', { codec: workerCodec });

/** A client holding a key issued for `shops` (what `selling-kit keys issue --shops` hands out). */
function clientFor(id: string, shops: string[]): Client {
  const codec = issuedClientCodec(ring, keyringFile, { id, shops, codecKeyId: 'k1' });
  return new Client({ connection: env.connection, dataConverter: dataConverter(codec as PayloadCodec) });
}
/** The operator: its CLI holds the master ring and signs as `worker`. */
const operator = () =>
  new Client({
    connection: env.connection,
    dataConverter: dataConverter(new AesGcmCodec(ring, { verify: false })),
  });

const inline = (skus: string[]) => ({
  path: 'inline.csv',
  format: 'csv' as const,
  content: [HEADER, ...skus.map((s, i) => row(s, i))].join('\n') + '\n',
});
const skus = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);

/** The reason an update was rejected with (its validator's failure), or a failure of the test. */
async function rejection(update: Promise<unknown>): Promise<string> {
  const error = await update.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof WorkflowUpdateFailedError)) throw new Error(`update not rejected: ${String(error)}`);
  return (error.cause as Error).message;
}
/** Shop a's client, shop b's client, and a one-shop job on b started by b, paused by b. */
async function jobOnB(tag: string, n = 6) {
  const a = env.shop(`${tag}-a`);
  const b = env.shop(`${tag}-b`);
  const clientA = clientFor(`${tag}-a`, [a.shopId, a.ref]);
  const clientB = clientFor(`${tag}-b`, [b.shopId, b.ref]);
  const input: BulkJobInput & { jobId: string } = {
    jobId: `${tag}-${randomUUID()}`,
    shop: { shopId: b.shopId, credentialRef: b.ref },
    feed: inline(skus(tag.toUpperCase(), n)),
    operation: 'create',
    // Slow enough that b's pause lands before the last item.
    allowance: { limit: 2, windowMs: 1000 },
    verifyDelaysMs: [100, 200, 400],
  };
  await startBulkJob(clientB, input, env.taskQueue);
  return { a, b, clientA, clientB, input, workflowId: bulkWorkflowId(input.jobId) };
}

describe('attack: messages to another shop\u2019s bulk job (issue 22)', () => {
  it('client a pauses, resumes, cancels shop b\u2019s job: refused with the reason; b finishes every item', async () => {
    const { a, b, clientA, clientB, input, workflowId } = await jobOnB('ctl', 6);
    const named = (shops: string[]) =>
      `this message names shops [${shops.join(', ')}]; job ${input.jobId} is for shops [${b.shopId}]`;

    // Shop b's own client pauses its job (names its shop, found by its client): it works.
    expect((await pauseJob(clientB, input.jobId, 'held by b')).state).toBe('paused');

    // Pause by update: naming its own shop (the job's check), naming b (the codec's), naming none (0.4).
    expect(await rejection(pauseJob(clientA, input.jobId, 'mine now', { shopIds: [a.shopId] }))).toBe(
      named([a.shopId]),
    );
    expect(await rejection(pauseJob(clientA, input.jobId, 'mine now', { shopIds: [b.shopId] }))).toBe(
      `client key ctl-a may not name shop ${b.shopId}`,
    );
    expect(
      await rejection(
        clientA.workflow.getHandle(workflowId).executeUpdate(pauseUpdate.name, { args: [{ reason: '0.4' }] }),
      ),
    ).toMatch(new RegExp(`^this message names no shop; job ${input.jobId} is for shops \\[${b.shopId}\\]`));
    // By signal (no answer to the sender): ignored, and logged by the worker.
    await clientA.workflow.getHandle(workflowId).signal(pauseSignal, { shopIds: [a.shopId], reason: 'x' });

    // Resume and cancel by a, by update and by signal (also the 0.4 shapes: no payload at all).
    expect(await rejection(resumeJob(clientA, input.jobId, { shopIds: [a.shopId] }))).toBe(named([a.shopId]));
    expect(await rejection(cancelJob(clientA, input.jobId, { shopIds: [a.shopId] }))).toBe(named([a.shopId]));
    expect(await rejection(clientA.workflow.getHandle(workflowId).executeUpdate(resumeUpdate.name))).toMatch(
      /^this message names no shop/,
    );
    const h = clientA.workflow.getHandle(workflowId);
    await h.signal(resumeSignal, { shopIds: [a.shopId] });
    await h.signal(cancelSignal, { shopIds: [a.shopId] });
    await h.signal(resumeSignal.name);
    await h.signal(cancelSignal.name);
    const held = await clientB.workflow.getHandle(workflowId).query(progressQuery);
    expect(held).toMatchObject({ state: 'paused', reason: 'held by b', cancelled: 0 });

    // b resumes: every item is created on b.
    expect((await resumeJob(clientB, input.jobId)).state).toBe('running');
    const end = await clientB.workflow.getHandle(workflowId).result();
    expect(end).toMatchObject({ state: 'finished', total: 6, done: 6, failed: 0, cancelled: 0 });
    expect(products(env, b.sellerId, 'CTL')).toHaveLength(6);
    expect(products(env, a.sellerId, 'CTL')).toHaveLength(0);
  }, 90_000);

  it('client a reads shop b\u2019s report: refused; client b reads it', async () => {
    const { a, b, clientA, clientB, input, workflowId } = await jobOnB('rep', 3);
    await clientB.workflow.getHandle(workflowId).result();
    const refused = (await readReport(clientA, input.jobId, {
      taskQueue: env.taskQueue,
      shopIds: [a.shopId],
    }).catch((e: unknown) => e)) as JobReportError;
    expect(refused).toBeInstanceOf(JobReportError);
    expect(refused.reason).toBe('refused');
    expect(refused.message).toContain(
      `this message names shops [${a.shopId}]; job ${input.jobId} is for shops [${b.shopId}]`,
    );
    const ungranted = (await readReport(clientA, input.jobId, {
      taskQueue: env.taskQueue,
      shopIds: [b.shopId],
    }).catch((e: unknown) => e)) as JobReportError;
    expect(ungranted).toBeInstanceOf(JobReportError);
    expect(ungranted.message).toContain(`client key rep-a may not name shop ${b.shopId}`);
    // Client a not naming the shops itself: its client finds them (b) and the codec refuses them.
    const found = (await readReport(clientA, input.jobId, { taskQueue: env.taskQueue }).catch(
      (e: unknown) => e,
    )) as JobReportError;
    expect(found.message).toContain(`client key rep-a may not name shop ${b.shopId}`);
    const lines = await readReport(clientB, input.jobId, { taskQueue: env.taskQueue });
    expect(lines.map((l) => l.status)).toEqual(['ok', 'ok', 'ok']);
  }, 60_000);

  it('a many-shop job: a key for one of its shops cannot control it; the operator\u2019s pause reaches each shop', async () => {
    const a = env.shop('many-a');
    const b = env.shop('many-b');
    const clientA = clientFor('many-a', [a.shopId, a.ref]);
    const ops = operator();
    const input: MultiShopJobInput = {
      jobId: `many-${randomUUID()}`,
      shops: [
        { shopId: a.shopId, credentialRef: a.ref },
        { shopId: b.shopId, credentialRef: b.ref },
      ],
      feed: inline(skus('MANY', 4)),
      operation: 'create',
      // Slow enough that the pause reaches each shop before its last item.
      allowance: { limit: 1, windowMs: 1000 },
      verifyDelaysMs: [100, 200, 400],
    };
    await startBulkJob(ops, input, env.taskQueue);
    const shops = [a.shopId, b.shopId].sort();
    expect(await rejection(pauseJob(clientA, input.jobId, 'mine', { shopIds: [a.shopId] }))).toBe(
      `this message names shops [${a.shopId}]; job ${input.jobId} is for shops [${a.shopId}, ${b.shopId}]`,
    );
    expect(await rejection(cancelJob(clientA, input.jobId, { shopIds: shops }))).toBe(
      `client key many-a may not name shop ${b.shopId}`,
    );
    // The operator names both (found by its client): the parent passes it on naming each child's shop.
    expect((await pauseJob(ops, input.jobId, 'stock count')).state).toBe('paused');
    const children = [a.shopId, b.shopId].map((s) => shopWorkflowId(input.jobId, s));
    // A child starting meanwhile is handed the pause too; each ends up paused (none refused it, as a
    // child would a message naming no shop or another shop).
    for (const id of children)
      await waitFor(`${id} paused`, async () => {
        const p = (await ops.workflow
          .getHandle(id)
          .query(progressQuery)
          .catch(() => undefined)) as BulkProgress | undefined;
        return p?.state === 'paused';
      });
    expect((await resumeJob(ops, input.jobId)).state).toBe('running');
    const end = await ops.workflow.getHandle(bulkWorkflowId(input.jobId)).result();
    expect(end).toMatchObject({ state: 'finished', total: 8, done: 8, failed: 0 });
  }, 90_000);
});
