// The PostgreSQL token store (workers on several hosts) on a real PostgreSQL (test/topology/postgres.ts):
// the file store's contract — compare-and-set on the version, one row per seller —, sealed rows bound to
// their seller, no password in errors, and two real worker-like processes (test/token-process.ts, which
// opens the store from the URL as worker-main does) rotating one seller 100 times against the
// simulator's token endpoint (a spent refresh token is refused with invalid_grant): 0 invalid_grant.
// @needs topology
import { randomBytes, randomUUID } from 'node:crypto';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import type { SellerTokens } from '../src/activities/index.ts';
import { createPgTokenStore, DEFAULT_TOKEN_TABLE, type PgTokenStore } from '../src/stores/token-store-pg.ts';
import { isDatabaseUrl, openTokenStore } from '../src/stores/token-store-open.ts';
import { startPostgres, type Postgres } from './topology/postgres.ts';
import { connectSeller, rotateInTurns, startTokenProcess, stopTokenProcesses } from './token-helpers.ts';

const key = randomBytes(32);
const DB = 'tokens';
let pg: Postgres;
let sim: RunningSimulator;
let url: string;
const stores: PgTokenStore[] = [];
const store = (k: Buffer | Buffer[] = key, table?: string) => {
  const s = createPgTokenStore(url, k, { table });
  stores.push(s);
  return s;
};

beforeAll(async () => {
  [pg, sim] = await Promise.all([
    startPostgres(),
    startSimulator({ port: 0, config: { fetchPictures: false } }),
  ]);
  await pg.query('postgres', `CREATE DATABASE ${DB}`);
  url = pg.url(DB);
}, 90_000);
afterAll(async () => {
  stopTokenProcesses();
  for (const s of stores) await s.close().catch(() => {});
  await sim?.close();
  await pg?.stop();
}, 60_000);

const sample = (tag: string): SellerTokens => ({
  baseUrl: 'http://127.0.0.1:1',
  clientId: 'client_x',
  clientSecret: `secret_${tag}`,
  accessToken: `pat_${tag}`,
  refreshToken: `prt_${tag}`,
  expiresAt: 1_000,
});

describe('PostgreSQL token store', () => {
  it('is chosen by a postgres:// URL; a path stays the file store', () => {
    expect(isDatabaseUrl(url)).toBe(true);
    expect(isDatabaseUrl('postgresql://u@h/db')).toBe(true);
    expect(isDatabaseUrl('/var/lib/selling-kit/tokens.enc')).toBe(false);
    const picked = openTokenStore(url, key) as PgTokenStore;
    stores.push(picked);
    expect(typeof picked.close).toBe('function');
  });

  it('creates its table on first use; compare-and-set: versions count up, stale versions are refused', async () => {
    const a = store();
    const b = store(); // another worker, its own pool
    const ref = `seller-${randomUUID()}`;
    expect(await a.get(ref)).toBeUndefined();
    expect(await a.set(ref, sample('1'), 0)).toBe(true);
    expect(await b.set(ref, sample('again'), 0)).toBe(false); // version 0 means "none stored yet"
    expect(await b.get(ref)).toMatchObject({ accessToken: 'pat_1', version: 1 });
    expect(await b.set(ref, sample('2'), 1)).toBe(true);
    expect(await a.set(ref, sample('late'), 1)).toBe(false);
    expect(await a.set(ref, { ...sample('3'), version: 99 })).toBe(true); // no expectation: next version
    expect(await b.get(ref)).toMatchObject({ accessToken: 'pat_3', clientSecret: 'secret_3', version: 3 });
    expect(await a.refs()).toContain(ref);
  });

  it('two stores compare-and-set one seller at once: every update kept, none lost', async () => {
    const ref = `race-${randomUUID()}`;
    const [a, b] = [store(), store()];
    await a.set(ref, sample('0'));
    const bump = async (s: PgTokenStore, tag: string) => {
      let refused = 0;
      for (let i = 0; i < 25;) {
        const t = (await s.get(ref))!;
        if (await s.set(ref, { ...t, accessToken: `${tag}-${i}` }, t.version)) i++;
        else refused++;
      }
      return refused;
    };
    await Promise.all([bump(a, 'a'), bump(b, 'b')]);
    expect((await a.get(ref))?.version).toBe(51);
  });

  it('rows are sealed: no secret in the table, a row copied under another seller does not open', async () => {
    const s = store();
    const ref = `sealed-${randomUUID()}`;
    await s.set(ref, sample('topsecret'));
    const { rows } = await pg.query(DB, `SELECT sealed FROM ${DEFAULT_TOKEN_TABLE} WHERE ref = '${ref}'`);
    const raw = (rows[0] as { sealed: Buffer }).sealed;
    for (const secret of ['pat_topsecret', 'prt_topsecret', 'secret_topsecret'])
      expect(raw.includes(Buffer.from(secret))).toBe(false);
    const other = `copied-${randomUUID()}`;
    await pg.query(
      DB,
      `INSERT INTO ${DEFAULT_TOKEN_TABLE} (ref, version, sealed) SELECT '${other}', 1, sealed FROM ${DEFAULT_TOKEN_TABLE} WHERE ref = '${ref}'`,
    );
    await expect(s.get(other)).rejects.toThrow(`the tokens of ${other} cannot be opened`);
    await expect(store(randomBytes(32)).get(ref)).rejects.toThrow(/another key/);
  });

  it('errors name the database without its password; a bad table name is refused', async () => {
    const wrong = createPgTokenStore(url.replace(pg.password, 'not-the-password'), key);
    stores.push(wrong);
    const error = (await wrong.get('x').catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(`postgres://${pg.user}@127.0.0.1:${pg.port}/${DB}`);
    expect(error.message).not.toContain('not-the-password');
    expect(() => createPgTokenStore(url, key, { table: 'x; DROP TABLE y' })).toThrow(/lowercase letters/);
  });

  it('two worker processes rotate one seller 100 times through the table: 0 × invalid_grant', async () => {
    const seller = connectSeller(sim);
    await store().set(seller.ref, seller.login());
    const workers = await Promise.all([startTokenProcess(url, [key]), startTokenProcess(url, [key])]);
    const failures = await rotateInTurns(workers, seller.ref, 100);
    expect(failures).toEqual([]);
    const stored = (await store().get(seller.ref))!;
    expect(stored.version).toBe(101);
    expect(seller.live()).toEqual([stored.refreshToken]);
    expect(await seller.shop(stored.accessToken)).toBe(200);
  }, 120_000);
});
