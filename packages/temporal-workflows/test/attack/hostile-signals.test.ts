// Attack tests for hostile payloads that must never fail a workflow task (a failing task retries forever
// and the job is stuck): signals with null or a wrong shape, sealed under an unknown key id, garbage
// sealed bytes, a client-signed payload in an encoding that is not JSON; the job-id rule at a
// continue-as-new; a client key naming another seller's tokens (`tokenRef`), or marking another shop's
// order shipped.
// @needs temporal
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { AesGcmCodec, deriveKey, parseCodecKeys } from '../../src/codec/codec.ts';
import { dataConverter } from '../../src/codec/data-converter.ts';
import { issueClientKey, watchedClientKeys } from '../../src/auth/client-keys.ts';
import { formatClientCredential } from '../../src/auth/payload-auth.ts';
import { bulkWorkflowId, orderWorkflowId, REFUSED_FIELD } from '../../src/contract.ts';
import { pauseJob, resumeJob, startBulkJob } from '../../src/client/client.ts';
import { multiShopJobWorkflow, shopDoneSignal } from '../../src/workflows/index.ts';
import { HEADER, row, useTestEnv } from '../helpers.ts';
import type { MultiShopJobInput } from '../../src/types.ts';

const master = randomBytes(32);
const ring = parseCodecKeys(`k2:${master.toString('base64')}`, 'test');
const keyringFile = join(`/tmp/sk-hostile-${randomUUID()}`, 'client-keys.json');
const warnings: string[] = [];
issueClientKey(keyringFile, { id: 'bootstrap', shops: ['none'] });
const workerCodec = new AesGcmCodec(ring, {
  clientKeys: watchedClientKeys(keyringFile),
  warn: (m) => warnings.push(m),
});
const env = useTestEnv('hostile', { codec: workerCodec });

function clientCodec(id: string, scope: { shops?: string[]; sellers?: string[] }): AesGcmCodec {
  const record = issueClientKey(keyringFile, { id, shops: scope.shops ?? [], sellers: scope.sellers });
  return AesGcmCodec.forClient(
    formatClientCredential({
      clientId: id,
      codecKeyId: 'k2',
      codecKey: deriveKey(master, 'codec'),
      clientKey: Buffer.from(record.key, 'base64'),
    }),
  );
}
const clientWith = (codec: PayloadCodec) =>
  new Client({ connection: env.connection, dataConverter: dataConverter(codec) });
const operator = () => clientWith(new AesGcmCodec(ring, { verify: false }));
/** A codec writing what it is given in place of every payload. */
const raw = (make: () => Payload): PayloadCodec => ({
  encode: async (payloads) => payloads.map(make),
  decode: async (payloads) => payloads,
});
const sealed = (keyId: string): Payload => ({
  metadata: { encoding: Buffer.from('binary/encrypted'), 'encryption-key-id': Buffer.from(keyId) },
  data: randomBytes(64),
});
const inline = (skus: string[]) => ({
  path: 'inline.csv',
  format: 'csv' as const,
  content: [HEADER, ...skus.map((s, i) => row(s, i))].join('\n') + '\n',
});

describe('attack: hostile payloads never fail a workflow task', () => {
  it('shopDoneSignal with null, a wrong shape, unknown key id, garbage, protobuf: job completes', async () => {
    const a = env.shop('hostile-a');
    const input: MultiShopJobInput = {
      jobId: `hostile-${randomUUID()}`,
      shops: [{ shopId: a.shopId, credentialRef: a.ref }],
      feed: inline(['HS-1', 'HS-2']),
      operation: 'create',
    };
    const ops = operator();
    await startBulkJob(ops, input, env.taskQueue);
    await pauseJob(ops, input.jobId, 'held');
    const id = bulkWorkflowId(input.jobId);
    await ops.workflow.getHandle(id).signal(shopDoneSignal.name, null);
    await ops.workflow.getHandle(id).signal(shopDoneSignal.name, 'not an object');
    await ops.workflow.getHandle(id).signal(shopDoneSignal.name, { shopId: { nested: 1 } });
    await clientWith(raw(() => sealed('no-such-key')))
      .workflow.getHandle(id)
      .signal(shopDoneSignal.name, { shopId: 'x' });
    await clientWith(raw(() => sealed('k2')))
      .workflow.getHandle(id)
      .signal(shopDoneSignal.name, { shopId: 'x' });
    // A client-signed payload whose inner encoding is not JSON: the worker's converter cannot read it.
    const client = clientCodec('hostile-proto', { shops: [a.shopId, a.ref] });
    const relabel: PayloadCodec = {
      encode: (ps, context) =>
        client.encode(
          ps.map((p) => ({ ...p, metadata: { ...p.metadata, encoding: Buffer.from('binary/protobuf') } })),
          context,
        ),
      decode: (ps, context) => client.decode(ps, context),
    };
    await clientWith(relabel).workflow.getHandle(id).signal(shopDoneSignal.name, { shopId: 'x' });
    await resumeJob(ops, input.jobId);
    const result = await ops.workflow.getHandle(id).result();
    expect(result).toMatchObject({ state: 'finished', done: 2, failed: 0 });
    expect(warnings.some((w) => w.includes('(unreadable_input)') && w.includes('no-such-key'))).toBe(true);
    expect(warnings.some((w) => w.includes('"k2" could not be opened'))).toBe(true);
    expect(warnings.some((w) => w.includes('binary/protobuf'))).toBe(true);
  }, 90_000);

  it('the job-id rule does not refuse a 0.4-style id at a continue-as-new (carried state)', async () => {
    const a = env.shop('carry-a');
    const input: MultiShopJobInput = {
      jobId: 'Spring drop',
      shops: [{ shopId: a.shopId, credentialRef: a.ref }],
      feed: inline(['CA-1']),
      operation: 'create',
    };
    const carry = { next: 1, running: [], results: {}, paused: false, cancelled: false, runs: 1 };
    const handle = await operator().workflow.start(multiShopJobWorkflow, {
      args: [input, carry],
      taskQueue: env.taskQueue,
      workflowId: `carry-${randomUUID()}`,
    });
    expect(await handle.result()).toMatchObject({ jobId: 'Spring drop', state: 'finished', runs: 2 });
  }, 60_000);

  it('a key scoped to seller s1 naming tokenRef s2: refused (shop_not_granted)', async () => {
    const codec = clientCodec('seller-s1', { sellers: ['s1'] });
    const job: SerializationContext = { type: 'workflow', namespace: 'default', workflowId: 'bulk:s' };
    const [decoded] = await workerCodec.decode(
      await codec.encode(dataConverterPayload({ sellerId: 's1', tokenRef: 's2' }), job),
      job,
    );
    const value = JSON.parse(Buffer.from(decoded!.data!).toString());
    expect(value[REFUSED_FIELD]).toEqual({
      code: 'shop_not_granted',
      message: 'client key seller-s1 may not name seller s2',
    });
    // The same key on its own seller's tokens passes.
    const [own] = await workerCodec.decode(
      await codec.encode(dataConverterPayload({ sellerId: 's1', tokenRef: 's1' }), job),
      job,
    );
    expect(JSON.parse(Buffer.from(own!.data!).toString())).toEqual({ sellerId: 's1', tokenRef: 's1' });
  });

  it("a key scoped to shop A marking another shop's order shipped (order:B:…): refused (shop_not_granted)", async () => {
    const codec = clientCodec('shop-a-orders', { shops: ['A'] });
    const request = { carrier: 'DPD', trackingCode: 'T1' };
    const to = (workflowId: string): SerializationContext => ({
      type: 'workflow',
      namespace: 'default',
      workflowId,
    });
    const read = async (workflowId: string) => {
      const [decoded] = await workerCodec.decode(
        await codec.encode(dataConverterPayload(request), to(workflowId)),
        to(workflowId),
      );
      return JSON.parse(Buffer.from(decoded!.data!).toString()) as Record<string, unknown>;
    };
    // The update's argument names no shop: the order flow's id does.
    expect((await read(orderWorkflowId('B', 'p-1')))[REFUSED_FIELD]).toMatchObject({
      code: 'shop_not_granted',
    });
    expect(await read(orderWorkflowId('A', 'p-1'))).toEqual(request);
  });
});

function dataConverterPayload(value: unknown): Payload[] {
  return [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) }];
}
