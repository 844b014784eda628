// Payload encryption: every payload (workflow inputs, results, signals, activity arguments, failure
// messages) is sealed with AES-256-GCM before it reaches the Temporal server, so history holds no
// plaintext — not shop ids, feed paths or anything a future input may carry. Whoever holds the key can
// read history through the codec endpoint (codec-server.ts).
//
// Keys form a keyring: SELLING_KIT_CODEC_KEY is `id:base64,id:base64,…` (the first one seals, every one
// opens what it sealed: rotate by putting a new key first and keeping the old ones until no history
// needs them) or one bare base64 key, whose id is derived from it (`keyFingerprint`). Rotate well before
// 2^32 payloads per key (the limit of random 96-bit IVs). Every key is also found by its fingerprint, so
// a client that knows only the bare key (the n8n nodes) writes ids any ring holding that key resolves.
//
// Each key of the ring is never used as is: HKDF derives one key for the codec (`codec`) and one that
// signs what the worker writes (`worker-auth`). Compatibility: payloads sealed before the derivation (the
// raw key; payloads carry the id "selling-kit-1") still open, because opening falls back to the raw key
// when the derived one does not authenticate; token stores sealed under the old `token-store` derivation
// still open (auth/token-store-key.ts: new writes use the token store's own key).
//
// Authentication (auth/payload-auth.ts): every payload names its writer inside the seal, with a MAC. The
// worker's codec (`verify`) refuses, in place of the payload, what is unsealed, unsigned, signed by a
// retired or unknown client key, or names a shop the client key does not grant (auth/payload-checks.ts);
// a client's codec (`AesGcmCodec.forClient`) seals with the derived codec key and signs with its client
// key, and cannot check the worker's signature (it has no worker-auth key): it opens and strips.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
// CommonJS: a default import works both under Node's ESM loader and under jest.
import proto from '@temporalio/proto';
import {
  AUTH_ID_FIELD,
  AUTH_MAC_FIELD,
  AUTH_TO_FIELD,
  parseClientCredential,
  payloadMac,
  WORKER_AUTH_ID,
  type ClientCredential,
} from '../auth/payload-auth.ts';
import { PayloadChecks, type ClientAuthMode, type ClientKeyLookup } from '../auth/payload-checks.ts';

const { temporal } = proto;

const ENCODING = 'binary/encrypted';
const KEY_ID_FIELD = 'encryption-key-id';
/** The id every payload carried before the keyring (sealed with the raw key). */
export const LEGACY_KEY_ID = 'selling-kit-1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_SALT = 'selling-kit';
const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Encryption is on unless SELLING_KIT_CODEC says otherwise: one default for every entry point. */
export const CODEC_DEFAULT = true;

/** SELLING_KIT_CODEC → on/off: "0", "false", "off", "no" turn it off; unset or empty is CODEC_DEFAULT. */
export function codecEnabled(setting: string | undefined): boolean {
  if (setting === undefined || setting.trim() === '') return CODEC_DEFAULT;
  return !['0', 'false', 'off', 'no'].includes(setting.trim().toLowerCase());
}

/** A key problem, named without ever showing a key: `codec_key_missing` or `bad_codec_key`. */
export class CodecKeyError extends Error {
  readonly code: 'codec_key_missing' | 'bad_codec_key';
  constructor(code: CodecKeyError['code'], message: string) {
    super(message);
    this.name = 'CodecKeyError';
    this.code = code;
  }
}

/** Raw 32-byte keys by id; `currentId` seals. */
export interface CodecKeyring {
  currentId: string;
  keys: ReadonlyMap<string, Buffer>;
}

/** The id a bare key gets: the first 8 hex digits of its SHA-256 (says nothing usable about the key). */
export const keyFingerprint = (key: Buffer): string =>
  createHash('sha256').update(key).digest('hex').slice(0, 8);

/** The key for one purpose, derived from a ring key (HKDF-SHA-256). */
export const deriveKey = (
  key: Buffer,
  purpose: 'codec' | 'worker-auth' | 'token-store' | 'client-keyring',
): Buffer => Buffer.from(hkdfSync('sha256', key, HKDF_SALT, purpose, 32));

/** A ring of one key (its id: the fingerprint). */
export const keyringOf = (key: Buffer): CodecKeyring => {
  if (key.length !== 32)
    throw new CodecKeyError('bad_codec_key', `a codec key must be 32 bytes, got ${key.length}`);
  return { currentId: keyFingerprint(key), keys: new Map([[keyFingerprint(key), key]]) };
};

/**
 * `id:base64,id:base64,…` or one bare base64 key (commas or line breaks between entries; the first
 * seals). `source` names where the text came from in errors, which never quote a key.
 */
export function parseCodecKeys(text: string, source: string): CodecKeyring {
  const entries = text
    .split(/[,\n]/)
    .map((e) => e.trim())
    .filter(Boolean);
  if (!entries.length) throw new CodecKeyError('codec_key_missing', `${source} holds no key`);
  const keys = new Map<string, Buffer>();
  entries.forEach((entry, i) => {
    const colon = entry.indexOf(':');
    const named = colon >= 0 ? entry.slice(0, colon) : undefined;
    const encoded = colon >= 0 ? entry.slice(colon + 1) : entry;
    const label = `${source}: entry ${i + 1}${named !== undefined ? ` ("${named}")` : ''}`;
    if (named !== undefined && !KEY_ID_PATTERN.test(named))
      throw new CodecKeyError('bad_codec_key', `${label}: a key id is 1-64 letters, digits, ".", "_" or "-"`);
    const key = Buffer.from(encoded, 'base64');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length !== 32)
      throw new CodecKeyError('bad_codec_key', `${label} is not the base64 of 32 bytes (AES-256)`);
    const id = named ?? keyFingerprint(key);
    if (keys.has(id)) throw new CodecKeyError('bad_codec_key', `${label}: the key id "${id}" appears twice`);
    keys.set(id, key);
  });
  return { currentId: [...keys.keys()][0]!, keys };
}

/**
 * The keyring from SELLING_KIT_CODEC_KEY, else from the key file. Without either, a clear error — unless
 * `create` (the local dev stack only): then a fresh key is written to the file (mode 0600) and used.
 * Clients never create one: a key minted on another host would start jobs the worker cannot read.
 */
export function loadCodecKey(
  keyFile: string,
  options: { create?: boolean; env?: string } = {},
): CodecKeyring {
  const env = options.env ?? process.env.SELLING_KIT_CODEC_KEY;
  if (env?.trim()) return parseCodecKeys(env, 'SELLING_KIT_CODEC_KEY');
  if (!existsSync(keyFile)) {
    if (!options.create)
      throw new CodecKeyError(
        'codec_key_missing',
        `no codec key: set SELLING_KIT_CODEC_KEY to the worker's key (base64 of 32 bytes, e.g. from ` +
          `\`openssl rand -base64 32\`), or put it in ${keyFile}`,
      );
    mkdirSync(dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
  }
  return parseCodecKeys(readFileSync(keyFile, 'utf8'), keyFile);
}

/**
 * The token-store keys of the codec ring's derivation (0.4 and before), derived then raw: stores sealed
 * before the token store had its own key still open with them (auth/token-store-key.ts).
 */
export function tokenStoreKeys(ring: CodecKeyring): Buffer[] {
  const ordered = [
    ring.keys.get(ring.currentId)!,
    ...[...ring.keys].filter(([id]) => id !== ring.currentId).map(([, k]) => k),
  ];
  return ordered.flatMap((k) => [deriveKey(k, 'token-store'), k]);
}

function open(key: Buffer, data: Buffer): Buffer | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    return undefined; // wrong key or altered data: GCM's tag says which is not possible to tell
  }
}

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : undefined);

/** What a codec does on top of sealing: who it signs as, and (the worker's) checks on decode. */
export interface CodecAuthOptions {
  /**
   * The worker's checks (default true): refuse unsealed, unsigned, badly signed, retired or out-of-scope
   * payloads (a refusal value in their place, see contract.ts refusedInput). The operator's CLI reads
   * with `verify: false`: it opens and strips, as a client does.
   */
  verify?: boolean;
  /** The client keyring (auth/client-keys.ts watchedClientKeys); none: only `worker` signatures pass. */
  clientKeys?: ClientKeyLookup;
  /** SELLING_KIT_CLIENT_AUTH: `migrate` accepts sealed payloads without a signature (0.4 work in flight). */
  clientAuth?: ClientAuthMode;
  /** Where refusals and migration warnings go (default console.warn); never a key or payload content. */
  warn?: (message: string) => void;
}

export class AesGcmCodec implements PayloadCodec {
  /** The id written on every payload this codec seals. */
  readonly keyId: string;
  private readonly sealing: Buffer;
  /** Per id (and per fingerprint): the keys to try, derived first, then raw. */
  private readonly opening = new Map<string, Buffer[]>();
  private readonly ids: string[];
  private readonly signer: { id: string; key: Buffer };
  private readonly checks?: PayloadChecks;

  constructor(keys: CodecKeyring | Buffer, options: CodecAuthOptions = {}) {
    const ring = Buffer.isBuffer(keys) ? keyringOf(keys) : keys;
    const current = ring.keys.get(ring.currentId);
    if (!current)
      throw new CodecKeyError('bad_codec_key', `the current key id "${ring.currentId}" has no key`);
    this.keyId = ring.currentId;
    this.sealing = deriveKey(current, 'codec');
    this.ids = [...ring.keys.keys()];
    for (const [id, key] of ring.keys) {
      if (key.length !== 32)
        throw new CodecKeyError(
          'bad_codec_key',
          `the key "${id}" must be 32 bytes (AES-256), got ${key.length}`,
        );
      const candidates = [deriveKey(key, 'codec'), key];
      this.opening.set(id, candidates);
      if (!this.opening.has(keyFingerprint(key))) this.opening.set(keyFingerprint(key), candidates);
    }
    this.signer = { id: WORKER_AUTH_ID, key: deriveKey(current, 'worker-auth') };
    if (options.verify !== false)
      this.checks = new PayloadChecks({
        workerKeys: [...ring.keys.values()].map((k) => deriveKey(k, 'worker-auth')),
        clientKeys: options.clientKeys ?? (() => undefined),
        clientAuth: options.clientAuth ?? 'on',
        warn: options.warn ?? console.warn,
      });
  }

  /**
   * A client's codec from its credential (`skc1.…`, or its parts): seals with the derived codec key under
   * its id, signs with the client key; opens what the worker wrote without checking its signature.
   */
  static forClient(credential: ClientCredential | string, source = 'the client key'): AesGcmCodec {
    const c = typeof credential === 'string' ? parseClientCredential(credential, source) : credential;
    const codec = Object.create(AesGcmCodec.prototype) as AesGcmCodec;
    Object.assign(codec, {
      keyId: c.codecKeyId,
      sealing: c.codecKey,
      opening: new Map([[c.codecKeyId, [c.codecKey]]]),
      ids: [c.codecKeyId],
      signer: { id: c.clientId, key: c.clientKey },
      checks: undefined,
    });
    return codec;
  }

  /** Who this codec signs as: `worker` or a client id. */
  get signsAs(): string {
    return this.signer.id;
  }

  /**
   * Seals and signs, for the workflow the SDK says the payloads are for (`context`: the target of a start,
   * signal, update or child; the workflow scheduling an activity). None given: written for no workflow,
   * which every workflow refuses to read from a client, and reads from the worker only where the SDK gives
   * no context either.
   */
  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const to = context?.workflowId ?? '';
    return payloads.map((payload) => {
      // Copies: payloads made in the workflow sandbox may hold arrays or another realm's typed arrays.
      const encoding = Buffer.from(payload.metadata?.encoding ?? []);
      const data = Buffer.from(payload.data ?? []);
      const signed: Payload = {
        ...payload,
        metadata: {
          ...payload.metadata,
          [AUTH_ID_FIELD]: bytes(this.signer.id),
          [AUTH_TO_FIELD]: bytes(to),
          [AUTH_MAC_FIELD]: payloadMac(this.signer.key, this.signer.id, to, encoding, data),
        },
      };
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.sealing, iv);
      const plain = temporal.api.common.v1.Payload.encode(signed).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { encoding: bytes(ENCODING), [KEY_ID_FIELD]: bytes(this.keyId) }, data: sealed };
    });
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    const reader = context?.workflowId;
    return payloads.map((payload) => {
      // With checks on (the worker), hostile bytes must never throw: a throwing codec fails the workflow
      // task over and over. They become a refusal; operator and client codecs still throw, to say why.
      if (!this.checks) return this.open(payload, reader);
      try {
        return this.open(payload, reader);
      } catch (e) {
        return this.checks.unreadable(e instanceof Error ? e.message : String(e));
      }
    });
  }

  private open(payload: Payload, reader: string | undefined): Payload {
    const encoding = text(payload.metadata?.encoding);
    if (encoding !== ENCODING || !payload.data) return this.checks?.unsealed() ?? payload;
    const id = text(payload.metadata?.[KEY_ID_FIELD]) ?? LEGACY_KEY_ID;
    const data = Buffer.from(payload.data);
    for (const key of this.candidates(id)) {
      const plain = open(key, data);
      if (!plain) continue;
      const inner = temporal.api.common.v1.Payload.decode(plain) as Payload;
      const {
        [AUTH_ID_FIELD]: writer,
        [AUTH_TO_FIELD]: to,
        [AUTH_MAC_FIELD]: mac,
        ...metadata
      } = inner.metadata ?? {};
      const opened: Payload = { ...inner, metadata };
      const signed = { writer: text(writer), to: text(to), mac: mac ?? undefined };
      return this.checks?.check(opened, signed, reader) ?? opened;
    }
    throw new Error(
      `a payload sealed with codec key id "${id}" could not be opened: the key under that id is not ` +
        'the one that sealed it, or the payload was altered',
    );
  }

  private candidates(id: string): Buffer[] {
    const known = this.opening.get(id);
    if (known) return known;
    // Sealed before the keyring: any key of the ring may be the one (usually the oldest).
    if (id === LEGACY_KEY_ID) return [...new Set([...this.opening.values()].flat())];
    throw new Error(
      `a payload is sealed with codec key id "${id}", which is not in this keyring (ids: ` +
        `${this.ids.join(', ')}): add that key to SELLING_KIT_CODEC_KEY as "${id}:<base64>"`,
    );
  }
}
