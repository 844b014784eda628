// The client keyring in PostgreSQL: one keyring for every worker of a deployment on several hosts (a key
// issued or retired once is known to all), in the job store's database by default (client-keyring.ts
// says which). One table, `<schema>.selling_kit_client_keys` (schema default `public`, as the job store):
// a row per client key (`id`, `ring_key_id`, `sealed`, `updated_at`), the record sealed under the master
// ring (client-key-seal.ts), so the database never holds a client's MAC key in plaintext and a writer
// without the master ring cannot grant anything. Created on first use like the job store's tables: an
// existing table means no DDL at all (a role with only SELECT / INSERT / UPDATE on it is enough), else
// made under an advisory lock so processes starting together do not race. Written by `selling-kit keys`
// (which holds the master ring), read by workers (client-keys-watch.ts). Statements are parameterised;
// the schema name is checked to be a plain identifier; errors name the database without its password.
import { inTransaction } from '../stores/pg-transaction.ts';
import { openPool, plainIdentifier, tableExists, tablesOnce } from '../stores/pg-setup.ts';
import type pg from 'pg';
import type { CodecKeyring } from '../codec/codec.ts';
import { redactDatabaseUrl } from '../stores/token-store-pg.ts';
import { openClientKey, sealClientKey, unopenedRowWarning, type SealedClientKey } from './client-key-seal.ts';
import {
  ClientKeysError,
  idTaken,
  newClientKeyRecord,
  retired,
  type ClientKeyRecord,
  type IssueOptions,
} from './client-keys.ts';

export const CLIENT_KEYS_TABLE = 'selling_kit_client_keys';

/** The database failed (unreachable, refused a statement): not a problem of a key. */
export class ClientKeyringUnavailable extends ClientKeysError {
  constructor(message: string) {
    super(message);
    this.name = 'ClientKeyringUnavailable';
  }
}

export interface PgClientKeysOptions {
  url: string;
  /** The master codec ring: seals what is written, opens what is read (any of its keys). */
  ring: CodecKeyring;
  /** PostgreSQL schema holding the table (lowercase letters, digits, underscores); default `public`. */
  schema?: string;
  /** Where rows that do not open are reported (default console.warn). */
  warn?: (message: string) => void;
}

/** What `importRecords` did, by id. */
export interface ImportResult {
  imported: string[];
  /** Already in the store with the same key: retired there too when the file says so. */
  present: string[];
  /** Already in the store with another key (an id is never reused): left as the store has it. */
  conflicting: string[];
}

export interface PgClientKeys {
  /** `postgres://user@host:port/db` (never the password). */
  readonly location: string;
  /** Creates the table when missing; no DDL when it exists. */
  migrate(): Promise<void>;
  /** Every record that opens; rows that do not are left out, each with a warning naming its id. */
  list(): Promise<ClientKeyRecord[]>;
  /** Every record that opens, and the ids of the rows that do not (the caller warns). */
  read(): Promise<{ records: ClientKeyRecord[]; unopened: string[] }>;
  issue(options: IssueOptions): Promise<ClientKeyRecord>;
  retire(id: string): Promise<ClientKeyRecord>;
  /** Copies records (a file keyring's) into the table; running it again changes nothing. */
  importRecords(records: readonly ClientKeyRecord[]): Promise<ImportResult>;
  /**
   * Seals every row again under the ring's current key (after a master ring rotation, before the old key is
   * dropped: a row only an old key opens would no longer open). Rows that do not open are left as they are.
   */
  reseal(): Promise<{ resealed: string[]; unopened: string[] }>;
  close(): Promise<void>;
}

export function createPgClientKeys(options: PgClientKeysOptions): PgClientKeys {
  const db = openKeyTable(options);
  const { location, warn } = db;
  const read = () => readAll(db);
  return {
    location,
    migrate: db.migrate,
    read,

    async list() {
      const { records, unopened } = await read();
      for (const id of unopened) warn(unopenedRowWarning(id, location));
      return records;
    },

    async issue(issue) {
      const record = newClientKeyRecord(issue);
      return db.tx(async (c) => {
        const { rowCount } = await write(db, c, record, issue.replace ? 'update' : 'nothing');
        if (rowCount !== 1) throw idTaken(issue.id);
        return record;
      });
    },

    async retire(id) {
      return db.tx(async (c) => {
        const found = await locked(db, c, id);
        if (!found) throw new ClientKeysError(`no client key "${id}" in the client keyring ${location}`);
        if (found.retiredAt) return found;
        const record = retired(found);
        await write(db, c, record, 'update');
        return record;
      });
    },

    importRecords: (records) => importAll(db, records),
    reseal: () => resealAll(db),
    close: () => db.pool.end(),
  };
}

/** The keyring's table as this process uses it. */
interface KeyTable {
  pool: pg.Pool;
  table: string;
  location: string;
  ring: CodecKeyring;
  warn: (message: string) => void;
  named: (e: unknown) => Error;
  migrate: () => Promise<void>;
  /** One transaction on one connection (after the migration); rolled back when `work` throws. */
  tx: <R>(work: (c: pg.PoolClient) => Promise<R>) => Promise<R>;
}

function openKeyTable(options: PgClientKeysOptions): KeyTable {
  const fail = (m: string) => new ClientKeysError(m);
  const schema = plainIdentifier(options.schema ?? 'public', 'client keyring schema', fail);
  const warn = options.warn ?? console.warn;
  const location = redactDatabaseUrl(options.url);
  const table = `${schema}.${CLIENT_KEYS_TABLE}`;
  // A worker reads every few seconds, the CLI runs one command: one connection is plenty.
  const pool = openPool(options.url, {
    max: 2,
    applicationName: 'selling-kit-client-keys',
    lost: (message) => warn(`client keyring ${location}: ${message}`),
  });
  const named = (e: unknown) =>
    e instanceof ClientKeysError
      ? e
      : new ClientKeyringUnavailable(`client keyring ${location}: ${(e as Error)?.message ?? String(e)}`);
  const migrate = tablesOnce({
    pool,
    named,
    lock: `selling-kit-client-keys:${schema}`,
    current: (c) => tableExists(c, table),
    create: async (c) => {
      if (schema !== 'public') await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await c.query(
        `CREATE TABLE IF NOT EXISTS ${table} (
           id text PRIMARY KEY,
           ring_key_id text NOT NULL,
           sealed bytea NOT NULL,
           updated_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
    },
  });
  const tx = async <R>(work: (c: pg.PoolClient) => Promise<R>): Promise<R> => {
    await migrate();
    return inTransaction(pool, named, work);
  };
  return { pool, table, location, ring: options.ring, warn, named, migrate, tx };
}

interface Row {
  id: string;
  ring_key_id: string;
  sealed: Buffer;
}
const sealedOf = (r: Row): SealedClientKey => ({ id: r.id, ringKeyId: r.ring_key_id, sealed: r.sealed });

/** Seals a record under the ring's current key and writes it (a row already there: left, or replaced). */
function write(db: KeyTable, c: pg.PoolClient, record: ClientKeyRecord, conflict: 'nothing' | 'update') {
  const s = sealClientKey(db.ring, record);
  return c.query(
    `INSERT INTO ${db.table} (id, ring_key_id, sealed) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO ${
       conflict === 'nothing'
         ? 'NOTHING'
         : 'UPDATE SET ring_key_id = EXCLUDED.ring_key_id, sealed = EXCLUDED.sealed, updated_at = now()'
     }`,
    [s.id, s.ringKeyId, s.sealed],
  );
}

/** The record stored under `id`, locked for this transaction; undefined when there is none. */
async function locked(db: KeyTable, c: pg.PoolClient, id: string): Promise<ClientKeyRecord | undefined> {
  const { rows } = await c.query<Row>(
    `SELECT id, ring_key_id, sealed FROM ${db.table} WHERE id = $1 FOR UPDATE`,
    [id],
  );
  if (!rows[0]) return undefined;
  const record = openClientKey(db.ring, sealedOf(rows[0]));
  if (!record) throw new ClientKeysError(unopenedRowWarning(id, db.location));
  return record;
}

async function readAll(db: KeyTable): Promise<{ records: ClientKeyRecord[]; unopened: string[] }> {
  await db.migrate();
  let rows: Row[];
  try {
    ({ rows } = await db.pool.query<Row>(`SELECT id, ring_key_id, sealed FROM ${db.table} ORDER BY id`));
  } catch (e) {
    throw db.named(e);
  }
  const records: ClientKeyRecord[] = [];
  const unopened: string[] = [];
  for (const r of rows) {
    const record = openClientKey(db.ring, sealedOf(r));
    if (record) records.push(record);
    else unopened.push(r.id);
  }
  return { records, unopened };
}

async function importAll(db: KeyTable, records: readonly ClientKeyRecord[]): Promise<ImportResult> {
  const result: ImportResult = { imported: [], present: [], conflicting: [] };
  for (const record of records)
    await db.tx(async (c) => {
      const found = await locked(db, c, record.id);
      if (!found) {
        await write(db, c, record, 'nothing');
        result.imported.push(record.id);
      } else if (found.key !== record.key) result.conflicting.push(record.id);
      else {
        // A key retired in the file stays retired; one retired in the store is never revived.
        if (record.retiredAt && !found.retiredAt)
          await write(db, c, { ...found, retiredAt: record.retiredAt }, 'update');
        result.present.push(record.id);
      }
    });
  return result;
}

async function resealAll(db: KeyTable): Promise<{ resealed: string[]; unopened: string[] }> {
  const { ring } = db;
  /** The current key alone: whether a row is already sealed under it. */
  const current: CodecKeyring = {
    currentId: ring.currentId,
    keys: new Map([[ring.currentId, ring.keys.get(ring.currentId)!]]),
  };
  return db.tx(async (c) => {
    const { rows } = await c.query<Row>(
      `SELECT id, ring_key_id, sealed FROM ${db.table} ORDER BY id FOR UPDATE`,
    );
    const result = { resealed: [] as string[], unopened: [] as string[] };
    for (const row of rows) {
      const record = openClientKey(ring, sealedOf(row));
      if (!record) result.unopened.push(row.id);
      else if (row.ring_key_id !== ring.currentId || !openClientKey(current, sealedOf(row))) {
        await write(db, c, record, 'update');
        result.resealed.push(row.id);
      }
    }
    return result;
  });
}
