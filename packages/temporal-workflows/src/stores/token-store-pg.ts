// The token store for workers on several hosts: one PostgreSQL table, one row per seller
// (`ref`, `version`, `sealed`), with the file store's contract (see TokenStore in activities/clients.ts):
// - get() reads the row now (another worker's rotation or a new login is seen at once);
// - set() is a compare-and-set done by the database in one statement: `UPDATE … WHERE version = $expected`
//   (or `INSERT … ON CONFLICT DO NOTHING` for version 0), so of two workers rotating the same seller
//   exactly one write wins and the other is told `false`, whatever host each runs on;
// - the tokens are sealed with AES-256-GCM like the file store (the codec's token-store key), bound to
//   the row's ref (AAD): the database never holds a secret in plaintext, and a row copied under another
//   ref does not open.
// The table is created on first use (under an advisory lock, so workers starting together do not race).
// Chosen by SELLING_KIT_TOKEN_STORE=postgres://… (token-store-open.ts).
import { probeWrite } from './pg-transaction.ts';
import { openPool, plainIdentifier, tableExists, tablesOnce } from './pg-setup.ts';
import { randomUUID } from 'node:crypto';
import type { SellerTokens, TokenStore } from '../activities/index.ts';
import { sealTokens, tokenKeys, unsealTokens } from './token-store.ts';

export const DEFAULT_TOKEN_TABLE = 'selling_kit_seller_tokens';

export interface PgTokenStoreOptions {
  /** Table name (letters, digits, underscores); default DEFAULT_TOKEN_TABLE. */
  table?: string;
  /** Connections kept by this process (default 4: a set() holds one for one statement). */
  poolSize?: number;
}

export interface PgTokenStore extends TokenStore {
  get(ref: string): Promise<SellerTokens | undefined>;
  set(ref: string, tokens: SellerTokens, expectedVersion?: number): Promise<boolean>;
  refs(): Promise<string[]>;
  /** Proves the store usable: a row written and rolled back (connection, password, table, INSERT right). */
  probe(): Promise<void>;
  /** Closes the pool (the worker's shutdown). */
  close(): Promise<void>;
}

/** `postgres://user:secret@host:5432/db?x` → `postgres://user@host:5432/db`: for messages (never the password). */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

export function createPgTokenStore(
  url: string,
  key: Buffer | readonly Buffer[],
  options: PgTokenStoreOptions = {},
): PgTokenStore {
  const keys = tokenKeys(key);
  const table = plainIdentifier(options.table ?? DEFAULT_TOKEN_TABLE, 'token store table');
  const where = redactDatabaseUrl(url);
  const pool = openPool(url, {
    max: options.poolSize ?? 4,
    lost: (message) => console.error(`token store ${where}: ${message}`),
  });
  const named = (e: unknown) => new Error(`token store ${where}: ${(e as Error).message}`);
  const ensureTable = tablesOnce({
    pool,
    named,
    lock: table,
    current: (c) => tableExists(c, table),
    create: async (c) => {
      await c.query(
        `CREATE TABLE IF NOT EXISTS ${table} (
           ref text PRIMARY KEY,
           version integer NOT NULL CHECK (version > 0),
           sealed bytea NOT NULL,
           updated_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
    },
  });

  const query = async (text: string, values: unknown[]) => {
    await ensureTable();
    try {
      return await pool.query(text, values);
    } catch (e) {
      throw named(e);
    }
  };
  const aad = (ref: string) => `selling-kit-seller-tokens:${ref}`;

  return {
    async get(ref) {
      const { rows } = await query(`SELECT version, sealed FROM ${table} WHERE ref = $1`, [ref]);
      const row = rows[0] as { version: number; sealed: Buffer } | undefined;
      if (!row) return undefined;
      const plain = unsealTokens(keys, row.sealed, aad(ref));
      if (plain === undefined)
        throw new Error(
          `token store ${where}: the tokens of ${ref} cannot be opened (another key, or damaged)`,
        );
      return { ...(JSON.parse(plain) as SellerTokens), version: row.version };
    },
    async set(ref, tokens, expectedVersion) {
      const { version: _ignored, ...rest } = tokens;
      const sealed = sealTokens(keys[0]!, JSON.stringify(rest), aad(ref));
      if (expectedVersion === undefined) {
        await query(
          `INSERT INTO ${table} AS t (ref, version, sealed) VALUES ($1, 1, $2)
           ON CONFLICT (ref) DO UPDATE SET version = t.version + 1, sealed = EXCLUDED.sealed, updated_at = now()`,
          [ref, sealed],
        );
        return true;
      }
      const result =
        expectedVersion === 0
          ? await query(
              `INSERT INTO ${table} (ref, version, sealed) VALUES ($1, 1, $2) ON CONFLICT (ref) DO NOTHING`,
              [ref, sealed],
            )
          : await query(
              `UPDATE ${table} SET version = version + 1, sealed = $2, updated_at = now()
               WHERE ref = $1 AND version = $3`,
              [ref, sealed, expectedVersion],
            );
      return result.rowCount === 1;
    },
    async refs() {
      const { rows } = await query(`SELECT ref FROM ${table} ORDER BY ref`, []);
      return rows.map((r: { ref: string }) => r.ref);
    },
    async probe() {
      await ensureTable();
      await probeWrite(pool, named, (c) =>
        c.query(`INSERT INTO ${table} (ref, version, sealed) VALUES ($1, 1, $2)`, [
          `selling-kit-probe:${randomUUID()}`,
          Buffer.alloc(1),
        ]),
      );
    },
    close: () => pool.end(),
  };
}
