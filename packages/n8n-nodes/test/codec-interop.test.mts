// The nodes' dependency-free codec and the worker's AesGcmCodec read each other's payloads: the HKDF-derived
// codec key, the key id (the key's fingerprint, found by a worker keyring that names the key otherwise),
// and payloads sealed before the derivation (raw key, id "selling-kit-1").
import { createCipheriv, randomBytes } from 'node:crypto';
import { AesGcmCodec, keyFingerprint, parseCodecKeys } from '@selling-kit/temporal-workflows';
import { decodeValue, encodeValue, type JsonPayload } from '../nodes/MarketplaceBulkJob/transport/codec.ts';

type Payload = { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null };
const key = randomBytes(32);
/** A length-delimited protobuf field (lengths below 128 here). */
const field = (no: number, bytes: Buffer) =>
  Buffer.concat([Buffer.from([(no << 3) | 2, bytes.length]), bytes]);
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

it('a job input sealed by the nodes opens in a worker whose keyring names the key', async () => {
  const sealed = encodeValue({ jobId: 'j1' }, key);
  expect(Buffer.from(sealed.metadata!['encryption-key-id']!, 'base64').toString()).toBe(keyFingerprint(key));
  const worker = new AesGcmCodec(
    parseCodecKeys(`new:${randomBytes(32).toString('base64')},k1:${key.toString('base64')}`, 'test'),
  );
  const [opened] = await worker.decode([fromJson(sealed)]);
  expect(JSON.parse(Buffer.from(opened!.data!).toString())).toEqual({ jobId: 'j1' });
});

it("the worker's results open in the nodes, also those sealed before the key derivation", async () => {
  const plain: Payload = {
    metadata: { encoding: Buffer.from('json/plain') },
    data: Buffer.from('{"done":3}'),
  };
  const [sealed] = await new AesGcmCodec(key).encode([plain]);
  expect(decodeValue(toJson(sealed!), key)).toEqual({ done: 3 });
  // The raw key and the legacy id: what the worker wrote before.
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  // Payload { metadata: { encoding: json/plain }, data: {"done":4} } in protobuf.
  const entry = Buffer.concat([field(1, Buffer.from('encoding')), field(2, Buffer.from('json/plain'))]);
  const bytes = Buffer.concat([field(1, entry), field(2, Buffer.from('{"done":4}'))]);
  const legacy: JsonPayload = {
    metadata: {
      encoding: Buffer.from('binary/encrypted').toString('base64'),
      'encryption-key-id': Buffer.from('selling-kit-1').toString('base64'),
    },
    data: Buffer.concat([iv, cipher.update(bytes), cipher.final(), cipher.getAuthTag()]).toString('base64'),
  };
  expect(decodeValue(legacy, key)).toEqual({ done: 4 });
  expect(() => decodeValue(legacy, randomBytes(32))).toThrow(/cannot be opened with this codec key/);
});
