// The client keyring in PostgreSQL (src/auth/client-keys-pg.ts, client-key-seal.ts, client-keys-watch.ts,
// keyring-codec.ts) on a real, throw-away PostgreSQL (test/topology/postgres.ts): rows sealed under the
// master ring and bound to their id — a row altered, forged or copied under another id by a database
// writer is ignored with a warning naming the id, never an exception; a row sealed under an older ring key
// still opens; `import` is idempotent; the worker's copy finds a key issued after it was read on the first
// payload that names it, keeps a retirement even if an older row comes back, and a worker whose keyring
// has never been read fails the task (retried) rather than refusing for good.
// @needs topology
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Payload } from '@temporalio/common';
import { AesGcmCodec, parseCodecKeys, type CodecKeyring } from '../src/codec/codec.ts';
import { openClientKey, sealClientKey } from '../src/auth/client-key-seal.ts';
import {
  issueClientKey,
  newClientKeyRecord,
  readClientKeys,
  retireClientKey,
} from '../src/auth/client-keys.ts';
import { clientKeysLocation } from '../src/auth/client-keyring.ts';
import {
  CLIENT_KEYS_TABLE,
  ClientKeyringUnavailable,
  createPgClientKeys,
} from '../src/auth/client-keys-pg.ts';
import { watchClientKeys } from '../src/auth/client-keys-watch.ts';
import { KeyringCodec } from '../src/auth/keyring-codec.ts';
import { clientCredentialFor } from '../src/auth/worker-auth.ts';
import { REFUSED_FIELD } from '../src/contract.ts';
import { freePort, usePostgresDatabase } from './topology/postgres.ts';
import { jsonPayload as json, toWorkflow } from './payloads.ts';

const DB = 'keys';
const db = usePostgresDatabase(DB);

const b64 = () => randomBytes(32).toString('base64');
const k1 = b64();
const k2 = b64();
const oldRing = parseCodecKeys(`k1:${k1}`, 'test');
/** After a rotation: k2 seals, k1 still opens. */
const ring = parseCodecKeys(`k2:${k2},k1:${k1}`, 'test');
const newSchema = () => `k_${randomUUID().replaceAll('-', '').slice(0, 16)}`;

/** A store on a schema of its own, its warnings collected. */
function storeOn(schema = newSchema(), keys: CodecKeyring = ring) {
  const warnings: string[] = [];
  const store = createPgClientKeys({ url: db.url, ring: keys, schema, warn: (m) => warnings.push(m) });
  return { store, schema, warnings, sql: (q: string) => db.server.query(DB, q) };
}

describe('a sealed row (client-key-seal.ts)', () => {
  const record = newClientKeyRecord({ id: 'n8n', shops: ['a'] });

  it('opens with the ring that sealed it, and after a rotation with the older key', () => {
    const sealed = sealClientKey(oldRing, record);
    expect(sealed.ringKeyId).toBe('k1');
    expect(sealed.sealed.includes(Buffer.from(record.key, 'base64'))).toBe(false);
    expect(sealed.sealed.toString('latin1')).not.toContain(record.key);
    expect(openClientKey(ring, sealed)).toEqual(record);
    // The id it names is only a hint: a wrong one still finds the key.
    expect(openClientKey(ring, { ...sealed, ringKeyId: 'k2' })).toEqual(record);
    expect(openClientKey(parseCodecKeys(`k2:${k2}`, 'test'), sealed)).toBeUndefined();
  });

  it('does not open when altered, or copied under another id', () => {
    const sealed = sealClientKey(ring, record);
    const flipped = Buffer.from(sealed.sealed);
    flipped[20]! ^= 1;
    expect(openClientKey(ring, { ...sealed, sealed: flipped })).toBeUndefined();
    expect(openClientKey(ring, { ...sealed, id: 'other' })).toBeUndefined();
    expect(openClientKey(ring, { ...sealed, sealed: Buffer.alloc(3) })).toBeUndefined();
  });
});

describe('the PostgreSQL keyring (client-keys-pg.ts)', () => {
  it('issues, lists and retires; an id is never reused; the table holds no key in plaintext', async () => {
    const { store, schema, sql } = storeOn();
    const issued = await store.issue({ id: 'cli-a', shops: ['a'], sellers: ['s1'] });
    await expect(store.issue({ id: 'cli-a', shops: ['b'] })).rejects.toThrow(/is taken/);
    expect(await store.list()).toEqual([issued]);
    const retired = await store.retire('cli-a');
    expect(retired.retiredAt).toEqual(expect.any(String));
    expect(await store.retire('cli-a')).toEqual(retired); // already retired: unchanged
    await expect(store.retire('nobody')).rejects.toThrow(/no client key "nobody"/);
    const { rows } = await sql(
      `SELECT id, ring_key_id, encode(sealed, 'base64') AS s FROM ${schema}.${CLIENT_KEYS_TABLE}`,
    );
    expect(rows).toEqual([{ id: 'cli-a', ring_key_id: 'k2', s: expect.any(String) }]);
    expect(JSON.stringify(rows)).not.toContain(issued.key);
    expect(JSON.stringify(rows)).not.toContain('"a"');
    await store.close();
  });

  it('a row altered, forged or copied under another id by a database writer: ignored with a warning naming it', async () => {
    const { store, schema, warnings, sql } = storeOn();
    const t = `${schema}.${CLIENT_KEYS_TABLE}`;
    await store.issue({ id: 'narrow', shops: ['a'] });
    await store.issue({ id: 'other', shops: ['b'] });
    // Altered: one bit of the sealed record (e.g. trying to widen its shops).
    await sql(`UPDATE ${t} SET sealed = set_byte(sealed, 30, get_byte(sealed, 30) # 1) WHERE id = 'narrow'`);
    // Copied: another client's row under a new id.
    await sql(
      `INSERT INTO ${t} (id, ring_key_id, sealed) SELECT 'copied', ring_key_id, sealed FROM ${t} WHERE id = 'other'`,
    );
    // Forged: a writer without the master ring makes up a row.
    await sql(
      `INSERT INTO ${t} (id, ring_key_id, sealed) VALUES ('forged', 'k2', '\\x${randomBytes(80).toString('hex')}')`,
    );
    const listed = await store.list();
    expect(listed.map((r) => r.id)).toEqual(['other']);
    for (const id of ['narrow', 'copied', 'forged'])
      expect(warnings).toContainEqual(expect.stringContaining(`the row of client key ${id} does not open`));
    await expect(store.retire('narrow')).rejects.toThrow(/the row of client key narrow does not open/);
    await store.close();
  });

  it('rows sealed under an older ring key still open after the rotation; reseal moves them to the new key', async () => {
    const schema = newSchema();
    const before = storeOn(schema, oldRing);
    const issued = await before.store.issue({ id: 'old', shops: ['a'] });
    await before.store.close();
    const after = storeOn(schema, ring);
    expect(await after.store.list()).toEqual([issued]);
    // Retiring seals again under the current key; `reseal` does so for every row, before k1 leaves the ring.
    const second = storeOn(schema, oldRing);
    await second.store.issue({ id: 'old-2', shops: ['a'] });
    await second.store.close();
    await after.store.retire('old');
    const ringKeys = async () =>
      (await after.sql(`SELECT id, ring_key_id FROM ${schema}.${CLIENT_KEYS_TABLE} ORDER BY id`)).rows;
    expect(await ringKeys()).toEqual([
      { id: 'old', ring_key_id: 'k2' },
      { id: 'old-2', ring_key_id: 'k1' },
    ]);
    expect(await after.store.reseal()).toEqual({ resealed: ['old-2'], unopened: [] });
    expect(await after.store.reseal()).toEqual({ resealed: [], unopened: [] });
    expect(await ringKeys()).toEqual([
      { id: 'old', ring_key_id: 'k2' },
      { id: 'old-2', ring_key_id: 'k2' },
    ]);
    const k2Only = storeOn(schema, parseCodecKeys(`k2:${k2}`, 'test'));
    expect((await k2Only.store.list()).map((r) => r.id)).toEqual(['old', 'old-2']);
    await k2Only.store.close();
    await after.store.close();
  });

  it('imports a file keyring once: again, nothing changes; a retirement in the file is carried over', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sk-keys-import-')), 'client-keys.json');
    const a = issueClientKey(file, { id: 'a', shops: ['a'] });
    issueClientKey(file, { id: 'b', shops: ['b'] });
    const { store } = storeOn();
    const clash = await store.issue({ id: 'c', shops: ['c'] });
    const c = issueClientKey(file, { id: 'c', shops: ['c'] }); // same id, another key
    expect(await store.importRecords(readClientKeys(file))).toEqual({
      imported: ['a', 'b'],
      present: [],
      conflicting: ['c'],
    });
    retireClientKey(file, 'a');
    expect(await store.importRecords(readClientKeys(file))).toEqual({
      imported: [],
      present: ['a', 'b'],
      conflicting: ['c'],
    });
    const byId = new Map((await store.list()).map((r) => [r.id, r]));
    expect(byId.get('a')).toMatchObject({ key: a.key, retiredAt: expect.any(String) });
    expect(byId.get('c')!.key).toBe(clash.key);
    expect(byId.get('c')!.key).not.toBe(c.key);
    await store.close();
  });

  it('an unreachable database: an error naming it without its password', async () => {
    const port = await freePort();
    const store = createPgClientKeys({ url: `postgres://u:s3cret-pw@127.0.0.1:${port}/x`, ring });
    const error = await store.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientKeyringUnavailable);
    expect((error as Error).message).toContain(`postgres://u@127.0.0.1:${port}/x`);
    expect((error as Error).message).not.toContain('s3cret-pw');
    await store.close();
  });
});

describe('which keyring (client-keyring.ts)', () => {
  it('SELLING_KIT_CLIENT_KEYS wins; unset, the job store database; else <home>/client-keys.json', () => {
    const pgUrl = 'postgres://u:p@db:5432/sk';
    expect(
      clientKeysLocation({ SELLING_KIT_CLIENT_KEYS: '/k.json', SELLING_KIT_JOB_STORE: pgUrl }, '/h'),
    ).toEqual({
      kind: 'file',
      path: '/k.json',
    });
    expect(clientKeysLocation({ SELLING_KIT_CLIENT_KEYS: 'postgresql://x/y' }, '/h')).toEqual({
      kind: 'postgres',
      url: 'postgresql://x/y',
    });
    expect(clientKeysLocation({ SELLING_KIT_JOB_STORE: pgUrl }, '/h')).toEqual({
      kind: 'postgres',
      url: pgUrl,
    });
    expect(clientKeysLocation({ SELLING_KIT_JOB_STORE: '/jobs' }, '/h')).toEqual({
      kind: 'file',
      path: '/h/client-keys.json',
    });
    // The CLI passes its own job store setting (`selling-kit dev`: a folder under its home).
    expect(clientKeysLocation({ SELLING_KIT_JOB_STORE: pgUrl }, '/h', '/h/dev/jobs')).toEqual({
      kind: 'file',
      path: '/h/client-keys.json',
    });
  });
});

const decoded = (p: Payload) =>
  JSON.parse(Buffer.from(p.data ?? []).toString('utf8')) as Record<string, unknown>;
const refusalOf = (p: Payload) =>
  (decoded(p)[REFUSED_FIELD] as { code: string; message: string } | undefined)?.code;

describe("the worker's copy (client-keys-watch.ts, keyring-codec.ts)", () => {
  it('a key issued after the worker read the table is accepted on the first payload naming it', async () => {
    const { store, schema } = storeOn();
    await store.issue({ id: 'early', shops: ['a'] });
    const warnings: string[] = [];
    const notes: string[] = [];
    const source = createPgClientKeys({ url: db.url, ring, schema, warn: (m) => warnings.push(m) });
    const watched = watchClientKeys(source, { warn: (m) => warnings.push(m), note: (m) => notes.push(m) });
    await watched.ready;
    expect(watched.get('early')?.shops).toEqual(['a']);
    const codec = new KeyringCodec(ring, watched, { warn: (m) => warnings.push(m) });
    const late = await store.issue({ id: 'late', shops: ['a'] });
    const client = AesGcmCodec.forClient(clientCredentialFor(ring, late));
    const ctx = toWorkflow('keyring-test');
    const [opened] = await codec.decode(await client.encode([json({ shopId: 'a' })], ctx), ctx);
    expect(decoded(opened!)).toEqual({ shopId: 'a' });
    // The first attempt's refusal was held back: nothing was refused.
    expect(warnings).toEqual([]);
    expect(notes).toContainEqual(expect.stringContaining('late added'));
    // A made-up id: refused (one warning), after one more read at most.
    const stranger = AesGcmCodec.forClient(
      clientCredentialFor(ring, newClientKeyRecord({ id: 'stranger', shops: ['a'] })),
    );
    const [refused] = await codec.decode(await stranger.encode([json({ shopId: 'a' })], ctx), ctx);
    expect(refusalOf(refused!)).toBe('unauthenticated_input');
    expect(warnings).toEqual([expect.stringContaining('client key stranger is not in the worker')]);
    watched.stop();
    await source.close();
    await store.close();
  });

  it('a retirement is seen at the next read and kept when an older copy of the row comes back', async () => {
    const { store, schema, sql } = storeOn();
    const t = `${schema}.${CLIENT_KEYS_TABLE}`;
    const record = await store.issue({ id: 'rollback', shops: ['a'] });
    const { rows: before } = await sql(`SELECT encode(sealed, 'hex') AS s FROM ${t}`);
    const warnings: string[] = [];
    const source = createPgClientKeys({ url: db.url, ring, schema });
    const watched = watchClientKeys(source, { warn: (m) => warnings.push(m), note: () => {}, refreshMs: 50 });
    await watched.ready;
    const codec = new KeyringCodec(ring, watched, { warn: (m) => warnings.push(m) });
    const client = AesGcmCodec.forClient(clientCredentialFor(ring, record));
    const ctx = toWorkflow('keyring-test');
    const start = async () =>
      (await codec.decode(await client.encode([json({ shopId: 'a' })], ctx), ctx))[0]!;
    expect(refusalOf(await start())).toBeUndefined();
    await store.retire('rollback');
    while (!watched.get('rollback')?.retiredAt) await new Promise((r) => setTimeout(r, 20));
    expect(refusalOf(await start())).toBe('client_key_retired');
    // A database writer puts back the row as it was before the retirement.
    await sql(`UPDATE ${t} SET sealed = decode('${before[0].s}', 'hex')`);
    while (!warnings.some((w) => w.includes('shows as active again')))
      await new Promise((r) => setTimeout(r, 20));
    expect(refusalOf(await start())).toBe('client_key_retired');
    watched.stop();
    await source.close();
    await store.close();
  });

  it('a tampered row: warned once (naming it), never thrown; the worker goes on with the others', async () => {
    const { store, schema, sql } = storeOn();
    const t = `${schema}.${CLIENT_KEYS_TABLE}`;
    await store.issue({ id: 'good', shops: ['a'] });
    await store.issue({ id: 'bad', shops: ['a'] });
    await sql(`UPDATE ${t} SET sealed = set_byte(sealed, 40, get_byte(sealed, 40) # 1) WHERE id = 'bad'`);
    const warnings: string[] = [];
    let reads = 0;
    const source = createPgClientKeys({ url: db.url, ring, schema });
    const counted = { location: source.location, read: () => (reads++, source.read()) };
    const watched = watchClientKeys(counted, {
      warn: (m) => warnings.push(m),
      note: () => {},
      refreshMs: 20,
    });
    await watched.ready;
    while (reads < 4) await new Promise((r) => setTimeout(r, 20));
    expect(watched.get('good')).toBeDefined();
    expect(watched.get('bad')).toBeUndefined();
    expect(warnings).toEqual([expect.stringContaining('the row of client key bad does not open')]);
    watched.stop();
    await source.close();
    await store.close();
  });

  it('a keyring never read (database down since the start): the decode throws (the task is retried)', async () => {
    const port = await freePort();
    const warnings: string[] = [];
    const source = createPgClientKeys({ url: `postgres://u:pw@127.0.0.1:${port}/x`, ring });
    const watched = watchClientKeys(source, { warn: (m) => warnings.push(m), note: () => {} });
    const codec = new KeyringCodec(ring, watched, { warn: (m) => warnings.push(m) });
    const client = AesGcmCodec.forClient(
      clientCredentialFor(ring, newClientKeyRecord({ id: 'x', shops: ['a'] })),
    );
    const ctx = toWorkflow('keyring-test');
    await expect(codec.decode(await client.encode([json({ shopId: 'a' })], ctx), ctx)).rejects.toThrow(
      /the client keyring has not been read yet/,
    );
    expect(warnings).toContainEqual(expect.stringContaining('client keys are refused until it can'));
    // What the worker itself wrote needs no client keyring.
    const own = new AesGcmCodec(ring, { verify: false });
    const [mine] = await codec.decode(await own.encode([json({ ok: 1 })], ctx), ctx);
    expect(decoded(mine!)).toEqual({ ok: 1 });
    watched.stop();
    await source.close();
  });
});
