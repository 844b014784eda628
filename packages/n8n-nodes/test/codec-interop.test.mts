// The node's dependency-free client codec and the worker's AesGcmCodec read each other's payloads: the
// node seals with the derived codec key of its client credential (under the ring's key id) and signs
// with its client key; the worker opens, checks the signature against its client keyring and strips it;
// the worker's answers open in the node. A payload the node sealed and someone altered is refused.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AesGcmCodec,
  clientCredentialFor,
  issueClientKey,
  parseClientCredential,
  parseCodecKeys,
  refusedInput,
  watchedClientKeys,
} from '@selling-kit/temporal-workflows';
import { decodeValue, encodeValue, type JsonPayload } from '../nodes/MarketplaceBulkJob/transport/codec.ts';

type Payload = { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null };
const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
  ),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v as Uint8Array).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

const ring = parseCodecKeys(
  `k2:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`,
  'test',
);
const keyringFile = join(mkdtempSync(join(tmpdir(), 'sk-interop-')), 'client-keys.json');
const record = issueClientKey(keyringFile, { id: 'n8n', shops: ['a'] });
const client = parseClientCredential(clientCredentialFor(ring, record), 'test');
const worker = new AesGcmCodec(ring, { clientKeys: watchedClientKeys(keyringFile), warn: () => {} });
/** What the worker hands workflow `reader` for payload `p`. */
const opened = async (p: JsonPayload, reader = 'bulk:j1') =>
  JSON.parse(
    Buffer.from(
      (await worker.decode([fromJson(p)], { type: 'workflow', namespace: 'default', workflowId: reader }))[0]!
        .data!,
    ).toString(),
  ) as unknown;

it('a job input sealed and signed by the node opens in the worker, its signature checked and stripped', async () => {
  const sealed = encodeValue({ jobId: 'j1', shop: { shopId: 'a', credentialRef: 'a' } }, client, 'bulk:j1');
  expect(Buffer.from(sealed.metadata!['encryption-key-id']!, 'base64').toString()).toBe('k2');
  expect(await opened(sealed)).toEqual({ jobId: 'j1', shop: { shopId: 'a', credentialRef: 'a' } });
  const [inner] = await worker.decode([fromJson(sealed)], {
    type: 'workflow',
    namespace: 'default',
    workflowId: 'bulk:j1',
  });
  expect(Object.keys(inner!.metadata!)).toEqual(['encoding']);
  // Sealed for bulk:j1, it opens in no other workflow.
  expect(refusedInput(await opened(sealed, 'bulk:j2'))?.code).toBe('misaddressed_input');
});

it('the worker refuses what the node names outside its scope, and an unsigned plain payload', async () => {
  expect(
    refusedInput(await opened(encodeValue({ shop: { shopId: 'b', credentialRef: 'b' } }, client, 'bulk:j1'))),
  ).toEqual({
    code: 'shop_not_granted',
    message: 'client key n8n may not name shop b',
  });
  expect(refusedInput(await opened(encodeValue({ shop: { shopId: 'a' } }, undefined, 'bulk:j1')))?.code).toBe(
    'unsealed_input',
  );
});

it("the worker's results open in the node", async () => {
  const plain: Payload = {
    metadata: { encoding: Buffer.from('json/plain') },
    data: Buffer.from('{"done":3}'),
  };
  const [sealed] = await worker.encode([plain]);
  expect(decodeValue(toJson(sealed!), client)).toEqual({ done: 3 });
  const other = parseClientCredential(
    clientCredentialFor(parseCodecKeys(randomBytes(32).toString('base64'), 'x'), record),
    'test',
  );
  expect(() => decodeValue(toJson(sealed!), other)).toThrow(/cannot be opened with this client key/);
});
