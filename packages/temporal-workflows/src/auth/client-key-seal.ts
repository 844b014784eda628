// A client key record sealed for a shared store (the PostgreSQL keyring, client-keys-pg.ts): AES-256-GCM
// under the `client-keyring` key derived from a key of the master codec ring, with the record's id as
// additional authenticated data. Whoever can write the database but does not hold the master ring can
// neither read a client's MAC key nor forge or alter a grant (widen its shops, un-retire it), nor move a
// row under another id: any such row fails to open and is ignored. What the database writer can still do
// is delete a row (the key is then unknown: refused) or put back an older copy of one; client-keys-watch.ts
// keeps a retirement it has seen.
import { deriveKey, type CodecKeyring } from '../codec/codec.ts';
import { sealTokens, unsealTokens } from '../stores/token-store.ts';
import { isClientKeyRecord, type ClientKeyRecord } from './client-keys.ts';

/** A stored row: which ring key sealed it (a hint, tried first) and the sealed record. */
export interface SealedClientKey {
  id: string;
  ringKeyId: string;
  sealed: Buffer;
}

/** The ids of the ring, the current one first: the order keys are tried in. */
const ordered = (ring: CodecKeyring): string[] => [
  ring.currentId,
  ...[...ring.keys.keys()].filter((id) => id !== ring.currentId),
];

const keyOf = (ring: CodecKeyring, id: string): Buffer => deriveKey(ring.keys.get(id)!, 'client-keyring');

/** Seals `record` under the ring's current key, bound to its id. */
export function sealClientKey(ring: CodecKeyring, record: ClientKeyRecord): SealedClientKey {
  return {
    id: record.id,
    ringKeyId: ring.currentId,
    sealed: sealTokens(keyOf(ring, ring.currentId), JSON.stringify(record), record.id),
  };
}

/**
 * The record of a row, or undefined when no key of the ring opens it under its id (altered, copied under
 * another id, or sealed under a key no longer in the ring) or what it holds is not a record of that id.
 * The key the row names is tried first, then every other key of the ring (a row sealed before a rotation).
 */
export function openClientKey(ring: CodecKeyring, row: SealedClientKey): ClientKeyRecord | undefined {
  const ids = ordered(ring);
  const first = ids.includes(row.ringKeyId) ? [row.ringKeyId] : [];
  const keys = [...first, ...ids.filter((id) => id !== row.ringKeyId)].map((id) => keyOf(ring, id));
  const plain = unsealTokens(keys, row.sealed, row.id);
  if (plain === undefined) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(plain);
  } catch {
    return undefined;
  }
  return isClientKeyRecord(record) && record.id === row.id ? record : undefined;
}

/** The warning for a row that does not open: names the id, never the row's bytes. */
export const unopenedRowWarning = (id: string, where: string): string =>
  `client keyring ${where}: the row of client key ${id} does not open with any key of the master ring ` +
  '(altered, copied from another id, or sealed under a key no longer in SELLING_KIT_CODEC_KEY): ignored, ' +
  'its key is refused';
