// Failure messages and stack traces go through the codec (R15): with encryption on, a failed activity's
// message (which may name a credential, a presigned feed URL…) is sealed in history like any payload.
// @needs temporal
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { AesGcmCodec } from '../src/codec/codec.ts';
import { dataConverter } from '../src/codec/data-converter.ts';
import { markAsSold } from '../src/client/client.ts';
import { saleWorkflowId } from '../src/workflows/sale.ts';
import { startEnv, type TestEnv } from './helpers.ts';

const codec = new AesGcmCodec(randomBytes(32));
let env: TestEnv;

beforeAll(async () => {
  env = await startEnv('failconv', { codec });
}, 120_000);
afterAll(() => env?.close());

it("a failed activity's message is not readable in the raw history; a client with the codec reads it", async () => {
  // An unknown credential fails the activity with a message naming it.
  const marker = `secret-ref-${randomUUID()}`;
  const sealedClient = new Client({ connection: env.connection, dataConverter: dataConverter(codec) });
  const input = {
    shop: { shopId: `fc-${randomUUID().slice(0, 8)}`, credentialRef: marker },
    ref: { sku: 'X' },
  };
  const result = await markAsSold(sealedClient, input, env.taskQueue);
  expect(result).toMatchObject({ status: 'failed' });
  expect(result.message).toContain(marker);

  // The same history read WITHOUT the codec: the marker appears nowhere in its bytes.
  const history = await env.client.workflow
    .getHandle(saleWorkflowId(input.shop.shopId, input.ref))
    .fetchHistory();
  const types = history.events!.map((e) => e.eventType);
  expect(types).toContain(proto.temporal.api.enums.v1.EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED);
  const raw = JSON.stringify(history.events, (_k, v) =>
    v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
  );
  expect(raw).not.toContain(marker);
  expect(raw).toContain('Encoded failure');
}, 120_000);
