// Opening a PostgreSQL store of the kit (job store, token store, client keyring): the pool, the check that
// keeps a configured name safe to put into SQL, and the tables created once per process. Tables are
// created under an advisory lock, so workers starting together do not race; an existing, current layout
// is used as it is with no DDL at all, so a role with only SELECT / INSERT / UPDATE / DELETE on the
// tables (no CREATE on the schema, PostgreSQL 15's default for public) runs every worker once an
// operator has created them.
import pg from 'pg';
import { withConnection } from './pg-transaction.ts';

/** A schema or table name, checked before it is put into SQL: only a plain identifier is accepted. */
export function plainIdentifier(name: string, what: string, fail = (m: string) => new Error(m)): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw fail(`${what} "${name}" must be lowercase letters, digits and underscores`);
  return name;
}

/**
 * A store's own pool. An idle pool does not keep the process alive (the worker closes it at shutdown
 * anyway); a connection dropped while idle (database restarted) is replaced by the next query, and is
 * told to `lost` — without that listener the pool's error event would end the process.
 */
export function openPool(
  url: string,
  options: { max: number; applicationName?: string; lost: (message: string) => void },
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    allowExitOnIdle: true,
    connectionTimeoutMillis: 10_000,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
  });
  pool.on('error', (e) => options.lost(`idle connection lost (${e.message})`));
  return pool;
}

export interface TableSetup {
  pool: pg.Pool;
  /** The store's wording of an error (its location, never a password). */
  named: (e: unknown) => Error;
  /** The advisory lock's key: one per store and schema. */
  lock: string;
  /** True when the tables are there and current: nothing to do (no transaction, no DDL). */
  current: (c: pg.PoolClient) => Promise<boolean>;
  /** The DDL, inside the transaction and under the lock (IF NOT EXISTS: another worker may have run it). */
  create: (c: pg.PoolClient) => Promise<void>;
}

/**
 * The tables, made at the first call of the returned function; later calls wait for the same promise. A
 * failure is not remembered: the next call tries again (the database may come up later).
 */
export function tablesOnce(setup: TableSetup): () => Promise<void> {
  let ready: Promise<void> | undefined;
  return () =>
    (ready ??= createTables(setup).catch((e: unknown) => {
      ready = undefined;
      throw e;
    }));
}

function createTables({ pool, named, lock, current, create }: TableSetup): Promise<void> {
  return withConnection(pool, named, async (client) => {
    if (await current(client)) return;
    await client.query('BEGIN');
    // Workers starting together: one creates, the others wait here and then find everything made.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lock]);
    await create(client);
    await client.query('COMMIT');
  });
}

/** Whether a table exists (to_regclass: no error, and no privilege needed on it). */
export async function tableExists(c: pg.PoolClient, table: string): Promise<boolean> {
  const found = await c.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [table]);
  return !!found.rows[0]?.t;
}
