// One transaction on one pooled connection, for every PostgreSQL store of the kit (job store, token store,
// client keyring): BEGIN, the work, COMMIT — ROLLBACK when the work throws — and the connection released
// whatever happens. Errors pass through `named`, the store's own wording (its location, never a password).
import type pg from 'pg';

export async function inTransaction<R>(
  pool: pg.Pool,
  named: (e: unknown) => Error,
  work: (c: pg.PoolClient) => Promise<R>,
): Promise<R> {
  return withConnection(pool, named, async (client) => {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  });
}

/**
 * One pooled connection for `work`, released whatever happens. When `work` throws, a transaction it
 * began is rolled back (a ROLLBACK outside one only warns) and the error goes through `named`.
 */
export async function withConnection<R>(
  pool: pg.Pool,
  named: (e: unknown) => Error,
  work: (c: pg.PoolClient) => Promise<R>,
): Promise<R> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (e) {
    throw named(e);
  }
  try {
    return await work(client);
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw named(e);
  } finally {
    client.release();
  }
}

/** A write that proves the connection, the password and the role's INSERT right, then is rolled back. */
export async function probeWrite(
  pool: pg.Pool,
  named: (e: unknown) => Error,
  write: (c: pg.PoolClient) => Promise<unknown>,
): Promise<void> {
  const rolledBack = new Error('probe: rolled back');
  await inTransaction(
    pool,
    (e) => (e === rolledBack ? rolledBack : named(e)),
    async (c) => {
      await write(c);
      throw rolledBack;
    },
  ).catch((e: unknown) => {
    if (e !== rolledBack) throw e;
  });
}
