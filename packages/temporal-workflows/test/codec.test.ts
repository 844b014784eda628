// The payload codec's keys (R13): a keyring (encode with the current key, decode by the payload's key id),
// HKDF-derived keys for the codec and the token store, payloads and token files sealed before them still
// open, and no key minted unless the caller asks for one (the local dev stack).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import {
  AesGcmCodec,
  CodecKeyError,
  codecEnabled,
  CODEC_DEFAULT,
  keyFingerprint,
  loadCodecKey,
  parseCodecKeys,
  tokenStoreKeys,
} from '../src/codec/codec.ts';
import { createFileTokenStore } from '../src/stores/token-store.ts';
import type { SellerTokens } from '../src/activities/index.ts';
import { jsonTextPayload as payload, text, utf8 } from './payloads.ts';

const dir = mkdtempSync(join(tmpdir(), 'sk-codec-'));
const keyIdOf = (p: Payload) => text(p.metadata?.['encryption-key-id']);
const b64 = (k: Buffer) => k.toString('base64');

/** A payload exactly as the codec wrote it before the keyring: the raw key, key id "selling-kit-1". */
function legacySeal(key: Buffer, p: Payload): Payload {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const plain = proto.temporal.api.common.v1.Payload.encode(p).finish();
  return {
    metadata: { encoding: utf8('binary/encrypted'), 'encryption-key-id': utf8('selling-kit-1') },
    data: Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]),
  };
}

describe('keyring', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  it('encodes with the current key id; a payload sealed with an older key in the ring still decodes', async () => {
    const [sealedOld] = await new AesGcmCodec(parseCodecKeys(`k1:${b64(oldKey)}`, 'test')).encode([
      payload('{"v":"old"}'),
    ]);
    expect(keyIdOf(sealedOld!)).toBe('k1');
    const rotated = new AesGcmCodec(parseCodecKeys(`k2:${b64(newKey)},k1:${b64(oldKey)}`, 'test'));
    const [sealedNew] = await rotated.encode([payload('{"v":"new"}')]);
    expect(keyIdOf(sealedNew!)).toBe('k2');
    const opened = await rotated.decode([sealedOld!, sealedNew!]);
    expect(opened.map((p) => text(p.data))).toEqual(['{"v":"old"}', '{"v":"new"}']);
  });

  it('an unknown key id fails with an error naming the id, never a key', async () => {
    const [sealed] = await new AesGcmCodec(parseCodecKeys(`gone:${b64(oldKey)}`, 'test')).encode([
      payload('{}'),
    ]);
    // The operator's codec throws; the worker's refuses in its place (attack/hostile-signals.test.ts).
    const codec = new AesGcmCodec(parseCodecKeys(`k2:${b64(newKey)}`, 'test'), { verify: false });
    const error = await codec.decode([sealed!]).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/key id "gone"/);
    for (const k of [oldKey, newKey]) {
      expect(error?.message).not.toContain(b64(k));
      expect(error?.message).not.toContain(k.toString('hex'));
    }
  });

  it('a bare base64 key gets an id derived from the key, and every key is also found by that id', async () => {
    const codec = new AesGcmCodec(parseCodecKeys(b64(newKey), 'test'));
    const [sealed] = await codec.encode([payload('{"a":1}')]);
    expect(keyIdOf(sealed!)).toBe(keyFingerprint(newKey));
    expect(keyFingerprint(newKey)).toMatch(/^[0-9a-f]{8}$/);
    // A client that knows only the bare key (n8n) writes the fingerprint; a ring that names it finds it.
    const named = new AesGcmCodec(parseCodecKeys(`k9:${b64(newKey)}`, 'test'));
    expect(text((await named.decode([sealed!]))[0]!.data)).toBe('{"a":1}');
  });

  it('histories sealed before the keyring (raw key, id "selling-kit-1") still decode', async () => {
    const legacy = legacySeal(oldKey, payload('{"legacy":true}'));
    for (const ring of [b64(oldKey), `k2:${b64(newKey)},k1:${b64(oldKey)}`]) {
      // Read by the operator (no worker checks), or drained by a worker in migration mode: they open.
      for (const options of [{ verify: false }, { clientAuth: 'migrate' as const, warn: () => {} }]) {
        const [opened] = await new AesGcmCodec(parseCodecKeys(ring, 'test'), options).decode([legacy]);
        expect(text(opened!.data)).toBe('{"legacy":true}');
      }
      // A worker with client auth on: the unsigned payload is refused in its place (auth-codec.test.ts).
      const [refused] = await new AesGcmCodec(parseCodecKeys(ring, 'test'), { warn: () => {} }).decode([
        legacy,
      ]);
      expect(text(refused!.data)).toContain('"code":"unauthenticated_input"');
    }
    const operator = new AesGcmCodec(parseCodecKeys(b64(newKey), 'test'), { verify: false });
    await expect(operator.decode([legacy])).rejects.toThrow(/could not be opened/);
  });

  it('seals with a key derived for the codec (HKDF), not the raw key', async () => {
    const [sealed] = await new AesGcmCodec(newKey).encode([payload('{"x":1}')]);
    const data = Buffer.from(sealed!.data!);
    const withRawKey = createDecipheriv('aes-256-gcm', newKey, data.subarray(0, 12));
    withRawKey.setAuthTag(data.subarray(data.length - 16));
    withRawKey.update(data.subarray(12, data.length - 16));
    expect(() => withRawKey.final()).toThrow();
    expect(text((await new AesGcmCodec(newKey).decode([sealed!]))[0]!.data)).toBe('{"x":1}');
  });

  it('refuses malformed keys with the entry named, never its text', () => {
    const short = b64(randomBytes(16));
    const error = (() => {
      try {
        parseCodecKeys(`good:${b64(newKey)},bad:${short}`, 'SELLING_KIT_CODEC_KEY');
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(CodecKeyError);
    expect(error?.message).toMatch(/SELLING_KIT_CODEC_KEY.*"bad"/);
    expect(error?.message).not.toContain(short);
    expect(() => parseCodecKeys(`a:${b64(newKey)},a:${b64(oldKey)}`, 'x')).toThrow(/"a".*twice/);
    expect(() => parseCodecKeys('', 'x')).toThrow(CodecKeyError);
  });
});

describe('loading the key', () => {
  it('never mints a key unless asked: a client without a key fails, naming what to set', () => {
    const file = join(dir, 'none', 'codec.key');
    expect(() => loadCodecKey(file, { env: '' })).toThrow(/SELLING_KIT_CODEC_KEY/);
    expect(existsSync(file)).toBe(false);
  });

  it('the local dev stack creates the key file once (mode 0600) and reads it back', () => {
    const file = join(dir, 'dev', 'codec.key');
    const first = loadCodecKey(file, { create: true, env: '' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = loadCodecKey(file, { env: '' });
    expect(again.currentId).toBe(first.currentId);
    expect(again.keys.get(again.currentId)!.equals(first.keys.get(first.currentId)!)).toBe(true);
  });

  it('SELLING_KIT_CODEC_KEY (a keyring) wins over the key file', () => {
    const k = randomBytes(32);
    const ring = loadCodecKey(join(dir, 'dev', 'codec.key'), { env: `now:${b64(k)}` });
    expect(ring.currentId).toBe('now');
  });

  it('one default for SELLING_KIT_CODEC, shared by every entry point', () => {
    expect(CODEC_DEFAULT).toBe(true);
    expect(codecEnabled(undefined)).toBe(true);
    expect(codecEnabled('')).toBe(true);
    expect(codecEnabled('0')).toBe(false);
    expect(codecEnabled('1')).toBe(true);
  });
});

describe('token store key', () => {
  const tokens: SellerTokens = {
    baseUrl: 'http://127.0.0.1:1',
    clientId: 'client',
    clientSecret: 'secret-of-the-app',
    accessToken: 'access',
    refreshToken: 'refresh',
    expiresAt: 0,
  };

  it('a token file sealed with the raw key still opens; the next write seals it with the derived key', async () => {
    const raw = randomBytes(32);
    const path = join(dir, 'tokens.sealed');
    // Written as before HKDF: the store sealed with the raw codec key.
    await createFileTokenStore(path, raw).set('s1', tokens);
    const before = readFileSync(path);
    const store = createFileTokenStore(path, tokenStoreKeys(parseCodecKeys(b64(raw), 'test')));
    expect(store.get('s1')).toMatchObject({ accessToken: 'access' });
    await store.set('s2', { ...tokens, accessToken: 'second' });
    expect(readFileSync(path).equals(before)).toBe(false);
    // No longer opens with the raw key alone: sealed with the token-store key.
    expect(() => createFileTokenStore(path, raw).get('s2')).toThrow(/cannot be opened/);
    const reopened = createFileTokenStore(path, tokenStoreKeys(parseCodecKeys(b64(raw), 'test')));
    expect(reopened.get('s2')).toMatchObject({ accessToken: 'second' });
  });

  it('the token-store key differs from the codec key', () => {
    const raw = randomBytes(32);
    const [sealing] = tokenStoreKeys(parseCodecKeys(b64(raw), 'test'));
    expect(sealing!.equals(raw)).toBe(false);
  });
});
