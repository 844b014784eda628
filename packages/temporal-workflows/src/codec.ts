// Payload encryption: every payload (workflow inputs, results, signals, activity arguments) is sealed
// with AES-256-GCM before it reaches the Temporal server, so history holds no plaintext — not shop ids,
// feed paths or anything a future input may carry. The key comes from configuration
// (SELLING_KIT_CODEC_KEY, base64 of 32 bytes) or, for the embedded default, a key generated once into
// the data folder. Whoever holds the key can read history through the codec endpoint (codec-server.ts).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Payload, PayloadCodec } from '@temporalio/common';
// CommonJS: a default import works both under Node's ESM loader and under jest.
import proto from '@temporalio/proto';

const { temporal } = proto;

const ENCODING = 'binary/encrypted';
const KEY_ID_FIELD = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const bytes = (s: string) => new TextEncoder().encode(s);

export class AesGcmCodec implements PayloadCodec {
  private readonly key: Buffer;
  readonly keyId: string;

  constructor(key: Buffer, keyId = 'selling-kit-1') {
    if (key.length !== 32) throw new Error(`the codec key must be 32 bytes (AES-256), got ${key.length}`);
    this.key = key;
    this.keyId = keyId;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.key, iv);
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { encoding: bytes(ENCODING), [KEY_ID_FIELD]: bytes(this.keyId) }, data: sealed };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding && new TextDecoder().decode(payload.metadata.encoding);
      if (encoding !== ENCODING || !payload.data) return payload;
      const data = Buffer.from(payload.data);
      const decipher = createDecipheriv('aes-256-gcm', this.key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return temporal.api.common.v1.Payload.decode(plain) as Payload;
    });
  }
}

/**
 * The key from SELLING_KIT_CODEC_KEY (base64, 32 bytes), else the key file (created with a fresh random
 * key and mode 0600 the first time: the embedded default).
 */
export function loadCodecKey(
  keyFile: string,
  env: string | undefined = process.env.SELLING_KIT_CODEC_KEY,
): Buffer {
  if (env) return Buffer.from(env, 'base64');
  if (!existsSync(keyFile)) {
    mkdirSync(dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  }
  return Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
}
