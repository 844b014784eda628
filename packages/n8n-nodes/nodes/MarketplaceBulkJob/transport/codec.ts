// The client side of the worker's payload codec, without its dependencies: a Temporal Payload
// (protobuf) sealed with AES-256-GCM as `iv ‖ ciphertext ‖ tag`, metadata `encoding: binary/encrypted`
// and the key id — the same bytes as temporal-workflows' AesGcmCodec.forClient, so jobs started here are
// read by the worker and history holds no plaintext. Only node:crypto (allowed in community nodes).
// The node holds a client credential (`selling-kit keys issue`), never the master key: it seals with the
// derived codec key it carries and signs every payload with its client key (the MAC format is defined
// once, in temporal-workflows' auth/payload-auth.ts, bundled in at build time), so the worker knows which
// client wrote a job and refuses shops that client was not granted.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  AUTH_ID_FIELD,
  AUTH_MAC_FIELD,
  AUTH_TO_FIELD,
  payloadMac,
  type ClientCredential,
} from '@selling-kit/temporal-workflows/payload-auth';

/** A payload as the Temporal HTTP API carries it: metadata values and data in base64. */
export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const ENCRYPTED = 'binary/encrypted';
const utf8 = (s: string) => Buffer.from(s, 'utf8');
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}
const field = (no: number, bytes: Uint8Array) =>
  Buffer.concat([varint((no << 3) | 2), varint(bytes.length), bytes]);

/** Payload { map<string, bytes> metadata = 1; bytes data = 2; } */
function encodePayload(metadata: Record<string, Uint8Array>, data: Uint8Array): Buffer {
  const entries = Object.entries(metadata).map(([k, v]) =>
    field(1, Buffer.concat([field(1, utf8(k)), field(2, v)])),
  );
  return Buffer.concat([...entries, field(2, data)]);
}

function readFields(buf: Buffer): { no: number; value: Buffer }[] {
  const out: { no: number; value: Buffer }[] = [];
  let i = 0;
  const read = () => {
    let n = 0;
    let shift = 1;
    for (;;) {
      const b = buf[i++]!;
      n += (b & 0x7f) * shift;
      if (b < 0x80) return n;
      shift *= 128;
    }
  };
  while (i < buf.length) {
    const tag = read();
    if ((tag & 7) !== 2) throw new Error('unexpected protobuf wire type in a payload');
    const len = read();
    out.push({ no: tag >> 3, value: buf.subarray(i, i + len) });
    i += len;
  }
  return out;
}

function decodePayload(buf: Buffer): { metadata: Record<string, Buffer>; data: Buffer } {
  const metadata: Record<string, Buffer> = {};
  let data: Buffer = Buffer.alloc(0);
  for (const f of readFields(buf)) {
    if (f.no === 2) data = f.value;
    else if (f.no === 1) {
      const entry = readFields(f.value);
      const key = entry.find((e) => e.no === 1)?.value.toString('utf8') ?? '';
      metadata[key] = entry.find((e) => e.no === 2)?.value ?? Buffer.alloc(0);
    }
  }
  return { metadata, data };
}

/**
 * A JSON value as a payload for workflow `to` (the worker refuses it in any other workflow): sealed and
 * signed with the client credential, or plain without one.
 */
export function encodeValue(value: unknown, client: ClientCredential | undefined, to: string): JsonPayload {
  const json = utf8(JSON.stringify(value));
  if (!client) return { metadata: { encoding: b64(utf8('json/plain')) }, data: b64(json) };
  const encoding = utf8('json/plain');
  const plain = encodePayload(
    {
      encoding,
      [AUTH_ID_FIELD]: utf8(client.clientId),
      [AUTH_TO_FIELD]: utf8(to),
      [AUTH_MAC_FIELD]: payloadMac(client.clientKey, client.clientId, to, encoding, json),
    },
    json,
  );
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', client.codecKey, iv);
  const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return {
    metadata: { encoding: b64(utf8(ENCRYPTED)), 'encryption-key-id': b64(utf8(client.codecKeyId)) },
    data: b64(sealed),
  };
}

function open(key: Buffer, data: Buffer): Buffer | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
    decipher.setAuthTag(data.subarray(data.length - 16));
    return Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]);
  } catch {
    return undefined;
  }
}
const wrongKey = (): never => {
  throw new Error(
    "the job payload cannot be opened with this client key: the worker's codec key has changed since it was issued (run `selling-kit keys issue` again)",
  );
};

/**
 * A payload back to its JSON value (opened with the credential's codec key when sealed). The writer's
 * signature is dropped unchecked: the node has no worker key, and trusts what its own server returns.
 */
export function decodeValue(payload: JsonPayload, client?: ClientCredential): unknown {
  const encoding = payload.metadata?.encoding
    ? Buffer.from(payload.metadata.encoding, 'base64').toString('utf8')
    : '';
  let data: Buffer = Buffer.from(payload.data ?? '', 'base64');
  if (encoding === ENCRYPTED) {
    if (!client) throw new Error('the job payload is encrypted: set the Client Key in the credential');
    data = decodePayload(open(client.codecKey, data) ?? wrongKey()).data;
  }
  return data.length ? JSON.parse(data.toString('utf8')) : undefined;
}
