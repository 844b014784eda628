// The byte format of authenticated payloads, defined once for every codec that writes or reads them
// (the worker's and CLI's codec.ts, the n8n Bulk Job node's transport codec, which bundles this file):
// the names of the metadata fields, the exact bytes the MAC covers, the client credential string
// `selling-kit keys issue` prints, and which workflow a payload may be read by. Only node:crypto: no
// Temporal import, so the n8n bundle stays small.
//
// A payload's writer is named inside the seal: before sealing, `selling-kit-auth-id` (a client id, or
// `worker`), `selling-kit-auth-to` (the id of the workflow it is written for: the SDK's serialization
// context) and `selling-kit-auth-mac` are added to the inner payload's metadata. The MAC is
//   HMAC-SHA256(authKey, "skauth2" ‖ u32be(len id) ‖ id ‖ u32be(len to) ‖ to ‖ u32be(len encoding) ‖ encoding ‖ data)
// with id, to and encoding in UTF-8 (lengths in bytes): the length prefixes make the boundaries
// unambiguous; the id is bound so a MAC cannot be replayed under another writer's name, and `to` so a
// payload copied out of one workflow's history (another shop's job, a worker's child start) is refused
// by every other workflow (payload-checks.ts).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const AUTH_ID_FIELD = 'selling-kit-auth-id';
export const AUTH_MAC_FIELD = 'selling-kit-auth-mac';
export const AUTH_TO_FIELD = 'selling-kit-auth-to';
/** The writer id of payloads the worker (or the operator's CLI, holding the master ring) writes. */
export const WORKER_AUTH_ID = 'worker';
const MAC_DOMAIN = 'skauth2';

/** A client id: letters, digits, "_" and "-" (no "." — it separates the credential's parts). */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** A CLI (or another client process) acting as a client: the credential string. */
export const CLIENT_KEY_ENV = 'SELLING_KIT_CLIENT_KEY';
/** The credential string's version prefix. */
export const CLIENT_CREDENTIAL_PREFIX = 'skc1';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/** The bytes a payload's MAC covers. */
export function macInput(id: string, to: string, encoding: Uint8Array, data: Uint8Array): Buffer {
  const idBytes = Buffer.from(id, 'utf8');
  const toBytes = Buffer.from(to, 'utf8');
  return Buffer.concat([
    Buffer.from(MAC_DOMAIN, 'utf8'),
    u32(idBytes.length),
    idBytes,
    u32(toBytes.length),
    toBytes,
    u32(encoding.length),
    encoding,
    data,
  ]);
}

export const payloadMac = (
  key: Buffer,
  id: string,
  to: string,
  encoding: Uint8Array,
  data: Uint8Array,
): Buffer =>
  createHmac('sha256', key)
    .update(macInput(id, to, encoding, data))
    .digest();

/** Constant-time check of a MAC (a wrong length is simply false). */
export function macMatches(
  key: Buffer,
  id: string,
  to: string,
  encoding: Uint8Array,
  data: Uint8Array,
  mac: Uint8Array,
): boolean {
  const expected = payloadMac(key, id, to, encoding, data);
  return mac.length === expected.length && timingSafeEqual(expected, mac);
}

/** A schedule's runs are named `<its workflow id>-<the start time, RFC 3339 in whole seconds, UTC>`. */
const SCHEDULED_RUN_SUFFIX = /^-\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/**
 * May a payload written for workflow `to` be read by workflow `reader`? The same id; or a run a schedule
 * started: a schedule's action is sealed for the workflow id it names, its runs append their start time.
 */
export const addressedTo = (to: string, reader: string): boolean =>
  to === reader || (to !== '' && reader.startsWith(to) && SCHEDULED_RUN_SUFFIX.test(reader.slice(to.length)));

/** What a client holds: its id, the codec key it seals with (and that key's id), its MAC key. */
export interface ClientCredential {
  clientId: string;
  codecKeyId: string;
  /** The DERIVED `codec` purpose key (32 bytes), never a master key. */
  codecKey: Buffer;
  /** The client's own MAC key (32 bytes). */
  clientKey: Buffer;
}

/** `skc1.<clientId>.<codecKeyId>.<base64url(codecKey ‖ clientKey)>` */
export const formatClientCredential = (c: ClientCredential): string =>
  [
    CLIENT_CREDENTIAL_PREFIX,
    c.clientId,
    c.codecKeyId,
    Buffer.concat([c.codecKey, c.clientKey]).toString('base64url'),
  ].join('.');

/** A problem with a credential string, never quoting it. */
export class ClientCredentialError extends Error {
  readonly code = 'bad_client_key';
  constructor(message: string) {
    super(message);
    this.name = 'ClientCredentialError';
  }
}

/** The credential string's parts, or a ClientCredentialError saying what is wrong (`source` names it). */
export function parseClientCredential(text: string, source: string): ClientCredential {
  const parts = text.trim().split('.');
  const [prefix, clientId] = parts;
  const material = parts.length >= 4 ? parts[parts.length - 1]! : '';
  const codecKeyId = parts.slice(2, -1).join('.'); // a key id may hold "."
  const bytes = Buffer.from(material, 'base64url');
  if (
    prefix !== CLIENT_CREDENTIAL_PREFIX ||
    !clientId ||
    !CLIENT_ID_PATTERN.test(clientId) ||
    !codecKeyId ||
    !/^[A-Za-z0-9_-]+$/.test(material) ||
    bytes.length !== 64
  )
    throw new ClientCredentialError(
      `${source} is not a client key: it is the one line \`selling-kit keys issue\` prints (skc1.<id>.<key id>.<key>)`,
    );
  return { clientId, codecKeyId, codecKey: bytes.subarray(0, 32), clientKey: bytes.subarray(32) };
}
