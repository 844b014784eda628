// Attack tests for D1 (H1, M3): who may start work on a worker that holds every shop's keys. A worker
// with the codec on and a client keyring, a real Temporal server, the simulator over 127.0.0.1: each
// attack is refused with its reason and touches no listing.
// @needs temporal
import { createCipheriv, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure, Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { AesGcmCodec, deriveKey, parseCodecKeys } from '../../src/codec/codec.ts';
import { dataConverter } from '../../src/codec/data-converter.ts';
import { retireClientKey } from '../../src/auth/client-keys.ts';
import { formatClientCredential } from '../../src/auth/payload-auth.ts';
import { bulkWorkflowId, shopWorkflowId, WORKFLOW_TYPES } from '../../src/contract.ts';
import { markAsSold, pauseJob, cancelJob, startBulkJob } from '../../src/client/client.ts';
import { cancelSignal, progressQuery, resumeSignal } from '../../src/workflows/index.ts';
import {
  HEADER,
  issuedClientCodec,
  keyringWorkerCodec,
  listDirectly,
  products,
  row,
  useTestEnv,
} from '../helpers.ts';
import type { BulkJobInput, MultiShopJobInput } from '../../src/types.ts';

const { temporal } = proto;
const master = randomBytes(32);
const older = randomBytes(32);
// Rotation: the new key seals, the older one (still in the ring) opens what was sealed under it.
const ring = parseCodecKeys(`k2:${master.toString('base64')},k1:${older.toString('base64')}`, 'test');
const dir = `/tmp/sk-auth-${randomUUID()}`;
const keyringFile = join(dir, 'client-keys.json');
const { codec: workerCodec, warnings } = keyringWorkerCodec(ring, keyringFile);
const env = useTestEnv('auth', { codec: workerCodec });

/** A client's codec for a freshly issued key (sealing under the ring's current id, or `codecKeyId`). */
function clientCodec(id: string, shops: string[], codecKeyId = 'k2'): AesGcmCodec {
  return issuedClientCodec(ring, keyringFile, { id, shops, codecKeyId });
}
const clientWith = (codec: PayloadCodec) =>
  new Client({ connection: env.connection, dataConverter: dataConverter(codec) });
/** The operator: its CLI holds the master ring and signs as `worker`. */
const operator = () => clientWith(new AesGcmCodec(ring, { verify: false }));

/** A 0.4 client: seals with the codec key, signs nothing. */
const unsigned: PayloadCodec = {
  async encode(payloads: Payload[]) {
    return payloads.map((p) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', deriveKey(master, 'codec'), iv);
      const plain = temporal.api.common.v1.Payload.encode(p).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: Buffer.from('binary/encrypted'), 'encryption-key-id': Buffer.from('k2') },
        data,
      };
    });
  },
  async decode(payloads: Payload[]) {
    return payloads;
  },
};

const inline = (skus: string[]) => ({
  path: 'inline.csv',
  format: 'csv' as const,
  content: [HEADER, ...skus.map((s, i) => row(s, i))].join('\n') + '\n',
});

/** The shop's listings `<prefix>-…` still on sale (a deleted one stays in the simulator, `removed`). */
const selling = (sellerId: number, prefix: string) =>
  products(env, sellerId, prefix).filter((p) => p.state === 'selling');

/** A shop with `n` listings `<prefix>-1…n` already on it. */
async function stockedShop(ref: string, prefix: string, n = 3) {
  const shop = env.shop(ref);
  for (let i = 1; i <= n; i++) await listDirectly(env, shop.sellerId, `${prefix}-${i}`);
  expect(selling(shop.sellerId, prefix)).toHaveLength(n);
  return shop;
}

const deleteJob = (
  shop: { shopId: string; ref: string },
  prefix: string,
): BulkJobInput & { jobId: string } => ({
  jobId: `attack-${randomUUID()}`,
  shop: { shopId: shop.shopId, credentialRef: shop.ref },
  feed: inline([`${prefix}-1`, `${prefix}-2`, `${prefix}-3`]),
  operation: 'delete',
  allowance: { limit: 20, windowMs: 1000 },
  verifyDelaysMs: [100, 200, 400],
});

/** The failure a job ended with (its message and type), and how many activities it ever scheduled. */
async function refusal(client: Client, workflowId: string) {
  const handle = client.workflow.getHandle(workflowId);
  const error = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes).length;
  return { message: cause.message, type: cause.type, scheduled };
}

describe('attack: who may start work (D1)', () => {
  it('a plaintext start of a delete job naming a stored shop: refused, 0 listings touched', async () => {
    const shop = await stockedShop('plain', 'PL');
    const input = deleteJob(shop, 'PL');
    await env.client.workflow.start(WORKFLOW_TYPES.bulkListing, {
      taskQueue: env.taskQueue,
      workflowId: bulkWorkflowId(input.jobId),
      args: [input],
    });
    const r = await refusal(operator(), bulkWorkflowId(input.jobId));
    expect(r.message).toMatch(/^unsealed job input refused/);
    expect(r.type).toBe('InputRefused');
    expect(r.scheduled).toBe(0);
    expect(selling(shop.sellerId, 'PL')).toHaveLength(3);
  }, 60_000);

  it('a job sealed with the codec key but not signed (a 0.4 client): refused, 0 touched', async () => {
    const shop = await stockedShop('unsigned', 'US');
    const input = deleteJob(shop, 'US');
    await startBulkJob(clientWith(unsigned), input, env.taskQueue);
    const r = await refusal(operator(), bulkWorkflowId(input.jobId));
    expect(r.message).toMatch(/^unauthenticated job input refused/);
    expect(r.scheduled).toBe(0);
    expect(selling(shop.sellerId, 'US')).toHaveLength(3);
  }, 60_000);

  it('a client key scoped to shop a starting a delete job on shop b: refused, 0 touched on b', async () => {
    const a = env.shop('scope-a');
    const b = await stockedShop('scope-b', 'SB');
    const codec = clientCodec('scoped-a', [a.shopId, a.ref]);
    const input = deleteJob(b, 'SB');
    await startBulkJob(clientWith(codec), input, env.taskQueue);
    const r = await refusal(operator(), bulkWorkflowId(input.jobId));
    expect(r.message).toBe(`client key scoped-a may not name shop ${b.shopId}`);
    expect(r.scheduled).toBe(0);
    expect(selling(b.sellerId, 'SB')).toHaveLength(3);
  }, 60_000);

  it('a many-shop job slipping shop b in beside a: refused, 0 touched on b', async () => {
    const a = env.shop('many-a');
    const b = await stockedShop('many-b', 'MB');
    const codec = clientCodec('many-a', [a.shopId, a.ref]);
    const input: MultiShopJobInput = {
      jobId: `attack-${randomUUID()}`,
      shops: [
        { shopId: a.shopId, credentialRef: a.ref },
        { shopId: b.shopId, credentialRef: b.ref },
      ],
      feed: inline(['MB-1', 'MB-2', 'MB-3']),
      operation: 'delete',
    };
    await startBulkJob(clientWith(codec), input, env.taskQueue);
    const r = await refusal(operator(), bulkWorkflowId(input.jobId));
    expect(r.message).toBe(`client key many-a may not name shop ${b.shopId}`);
    expect(selling(b.sellerId, 'MB')).toHaveLength(3);
  }, 60_000);

  it('the same key on its own shop a: the job runs', async () => {
    const a = env.shop('own-a');
    const codec = clientCodec('own-a', [a.shopId, a.ref]);
    const client = clientWith(codec);
    const input: BulkJobInput & { jobId: string } = {
      jobId: `own-${randomUUID()}`,
      shop: { shopId: a.shopId, credentialRef: a.ref },
      feed: inline(['OA-1', 'OA-2']),
      operation: 'create',
      allowance: { limit: 20, windowMs: 1000 },
      verifyDelaysMs: [100, 200, 400],
    };
    const handle = await startBulkJob(client, input, env.taskQueue);
    // The client reads the worker's answer (it opens and strips what the worker signed).
    expect(await handle.result()).toMatchObject({ state: 'finished', done: 2, failed: 0 });
    expect(products(env, a.sellerId, 'OA')).toHaveLength(2);
  }, 60_000);

  it("a worker-signed child start copied out of history: refused under another id and under the child's own", async () => {
    // The operator's many-shop delete job on shop b; its child for b is started (and signed) by the worker.
    const b = await stockedShop('copied-b', 'CB');
    const jobId = `copied-${randomUUID()}`;
    const ops = operator();
    await startBulkJob(
      ops,
      {
        jobId,
        shops: [{ shopId: b.shopId, credentialRef: b.ref }],
        feed: inline(['CB-1', 'CB-2', 'CB-3']),
        operation: 'delete',
      },
      env.taskQueue,
    );
    await ops.workflow.getHandle(bulkWorkflowId(jobId)).result();
    expect(selling(b.sellerId, 'CB')).toHaveLength(0);
    const before = JSON.stringify(products(env, b.sellerId, 'CB'));
    // The attacker reaches the frontend (a client certificate) and reads the child's sealed start input.
    const child = shopWorkflowId(jobId, b.shopId);
    const history = await env.client.workflow.getHandle(child).fetchHistory();
    const sealed = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
    const startRaw = (workflowId: string) =>
      env.client.workflowService.startWorkflowExecution({
        namespace: 'default',
        workflowId,
        workflowType: { name: WORKFLOW_TYPES.bulkListing },
        taskQueue: { name: env.taskQueue },
        input: { payloads: sealed },
        requestId: randomUUID(),
      });
    // Into a workflow of its own: the payload was written for the child's id.
    const mine = bulkWorkflowId(`mine-${randomUUID()}`);
    await startRaw(mine);
    const elsewhere = await refusal(ops, mine);
    expect(elsewhere.message).toMatch(/^misaddressed job input refused: written for workflow "bulk:copied-/);
    expect(elsewhere.scheduled).toBe(0);
    // Under the child's own id, the child having ended: a shop's part runs only as its job's child.
    await startRaw(child);
    const again = await refusal(ops, child);
    expect(again.message).toBe(
      `job ${jobId}/${b.shopId} is a shop's part of job ${jobId}: it runs only as that job's child, never started on its own`,
    );
    expect(again.type).toBe('InputRefused');
    expect(again.scheduled).toBe(0);
    expect(JSON.stringify(products(env, b.sellerId, 'CB'))).toBe(before);
  }, 90_000);

  it("a client's ended job started again from a copy of its sealed input, under its own id: refused", async () => {
    // Client b's delete job on its shop b, run to its end.
    const b = await stockedShop('rerun-b', 'RB');
    const codec = clientCodec('rerun-b', [b.shopId, b.ref]);
    const input = deleteJob(b, 'RB');
    const first = await startBulkJob(clientWith(codec), input, env.taskQueue);
    expect(await first.result()).toMatchObject({ state: 'finished', done: 3 });
    const firstRunId = (await first.describe()).runId;
    const before = JSON.stringify(products(env, b.sellerId, 'RB'));
    // Someone reaching the frontend copies its sealed input and starts the id again (the id is free:
    // the run has closed, and the starter chooses the reuse policy).
    const id = bulkWorkflowId(input.jobId);
    const history = await env.client.workflow.getHandle(id).fetchHistory();
    const sealed = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads!;
    await env.client.workflowService.startWorkflowExecution({
      namespace: 'default',
      workflowId: id,
      workflowType: { name: WORKFLOW_TYPES.bulkListing },
      taskQueue: { name: env.taskQueue },
      input: { payloads: sealed },
      requestId: randomUUID(),
      workflowIdReusePolicy: 1, // ALLOW_DUPLICATE
    });
    const second = await env.client.workflow.getHandle(id).describe();
    expect(second.runId).not.toBe(firstRunId);
    const r = await refusal(operator(), id);
    expect(r.message).toMatch(
      new RegExp(`^refused: this job's start input already started run ${firstRunId} of ${id} `),
    );
    expect(r.type).toBe('InputReplayed');
    expect(JSON.stringify(products(env, b.sellerId, 'RB'))).toBe(before);
  }, 90_000);

  it('a retired client key: refused, 0 touched', async () => {
    const a = await stockedShop('retired-a', 'RA');
    const codec = clientCodec('retired-a', [a.shopId, a.ref]);
    retireClientKey(keyringFile, 'retired-a');
    const input = deleteJob(a, 'RA');
    await startBulkJob(clientWith(codec), input, env.taskQueue);
    const r = await refusal(operator(), bulkWorkflowId(input.jobId));
    expect(r.message).toMatch(/^client key retired-a was retired on /);
    expect(r.scheduled).toBe(0);
    expect(selling(a.sellerId, 'RA')).toHaveLength(3);
  }, 60_000);

  it('a client key unknown to the worker (a forged credential): refused', async () => {
    const a = await stockedShop('forged-a', 'FA');
    const forged = AesGcmCodec.forClient(
      formatClientCredential({
        clientId: 'nobody',
        codecKeyId: 'k2',
        codecKey: deriveKey(master, 'codec'),
        clientKey: randomBytes(32),
      }),
    );
    const input = deleteJob(a, 'FA');
    await startBulkJob(clientWith(forged), input, env.taskQueue);
    const r = await refusal(operator(), bulkWorkflowId(input.jobId));
    expect(r.message).toBe(
      "unauthenticated job input refused: client key nobody is not in the worker's client keyring",
    );
    expect(selling(a.sellerId, 'FA')).toHaveLength(3);
  }, 60_000);

  it('marking a listing of an ungranted shop sold: refused, the listing untouched', async () => {
    const a = env.shop('sale-a');
    const b = await stockedShop('sale-b', 'SL', 1);
    const codec = clientCodec('sale-a', [a.shopId, a.ref]);
    const before = JSON.stringify(products(env, b.sellerId, 'SL'));
    const result = await markAsSold(
      clientWith(codec),
      { shop: { shopId: b.shopId, credentialRef: b.ref }, ref: { sku: 'SL-1' } },
      env.taskQueue,
    );
    expect(result).toMatchObject({ status: 'failed', code: 'InputRefused' });
    expect(result.message).toBe(`client key sale-a may not name shop ${b.shopId}`);
    expect(JSON.stringify(products(env, b.sellerId, 'SL'))).toBe(before);
  }, 60_000);

  it('a delist naming an ungranted shop: refused, nothing marked sold', async () => {
    const a = env.shop('delist-a');
    const b = await stockedShop('delist-b', 'DL', 1);
    const codec = clientCodec('delist-a', [a.shopId, a.ref]);
    const before = JSON.stringify(products(env, b.sellerId, 'DL'));
    const workflowId = `delist:${a.shopId}:${randomUUID()}`;
    await clientWith(codec).workflow.start(WORKFLOW_TYPES.delistOnSale, {
      taskQueue: env.taskQueue,
      workflowId,
      args: [
        {
          purchaseId: 'p-1',
          source: { shopId: a.shopId, credentialRef: a.ref },
          productIds: [1],
          shops: [{ shopId: b.shopId, credentialRef: b.ref }],
        },
      ],
    });
    const r = await refusal(operator(), workflowId);
    expect(r.message).toBe(`client key delist-a may not name shop ${b.shopId}`);
    expect(r.scheduled).toBe(0);
    expect(JSON.stringify(products(env, b.sellerId, 'DL'))).toBe(before);
  }, 60_000);

  it('signals naming an ungranted shop, or not sealed at all, are ignored', async () => {
    const a = env.shop('signal-a');
    const codec = clientCodec('signal-a', [a.shopId, a.ref]);
    const input: BulkJobInput & { jobId: string } = {
      jobId: `signal-${randomUUID()}`,
      shop: { shopId: a.shopId, credentialRef: a.ref },
      feed: inline(Array.from({ length: 30 }, (_, i) => `SG-${i + 1}`)),
      operation: 'create',
      allowance: { limit: 2, windowMs: 1000 },
      verifyDelaysMs: [100, 200, 400],
    };
    const ops = operator();
    await startBulkJob(ops, input, env.taskQueue);
    const workflowId = bulkWorkflowId(input.jobId);
    expect((await pauseJob(ops, input.jobId, 'held by the operator')).state).toBe('paused');
    // A plaintext resume (with an argument, so there is a payload to refuse) and a cancel naming a shop
    // the key does not grant.
    await env.client.workflow.getHandle(workflowId).signal(resumeSignal.name, { now: true });
    await clientWith(codec)
      .workflow.getHandle(workflowId)
      .signal(cancelSignal.name, { shopId: 'not-granted' });
    // A query sees every signal received before it: both were ignored.
    const progress = await ops.workflow.getHandle(workflowId).query(progressQuery);
    expect(progress.state).toBe('paused');
    expect(warnings.some((w) => w.includes('client key signal-a may not name shop not-granted'))).toBe(true);
    expect((await cancelJob(ops, input.jobId)).state).not.toBe('paused');
  }, 60_000);

  it('rotation: a client sealing under the older key id still decodes on the worker', async () => {
    const a = env.shop('rotate-a');
    const codec = clientCodec('rotate-a', [a.shopId, a.ref], 'k1');
    const input: BulkJobInput & { jobId: string } = {
      jobId: `rotate-${randomUUID()}`,
      shop: { shopId: a.shopId, credentialRef: a.ref },
      feed: inline(['RO-1']),
      operation: 'create',
      allowance: { limit: 20, windowMs: 1000 },
      verifyDelaysMs: [100, 200, 400],
    };
    await startBulkJob(clientWith(codec), input, env.taskQueue);
    // The worker answers under the new key (k2): the operator reads it; the client needs a new credential.
    const result = await operator().workflow.getHandle(bulkWorkflowId(input.jobId)).result();
    expect(result).toMatchObject({ state: 'finished', done: 1 });
  }, 60_000);
});
