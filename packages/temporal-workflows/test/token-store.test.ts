// Sellers' OAuth tokens shared by several processes on one host: the file token store (always the current
// value, compare-and-set on the version, lock + re-read + merge, a failed write fails only itself), and
// the refresh activity run by two real worker-like processes (per-process state is what is under test)
// against the simulator's token endpoint (rotation: a spent refresh token is refused with invalid_grant).
// @needs minutes
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createClient } from '@selling-kit/api-client';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { createAuthActivities } from '../src/activities/auth.ts';
import type { SellerTokens, TokenStore } from '../src/activities/index.ts';
import { createFileTokenStore } from '../src/stores/token-store.ts';
import { connectSeller, rotateInTurns, startTokenProcess, stopTokenProcesses } from './token-helpers.ts';
import { noJobStore } from './no-job-store.ts';

const key = randomBytes(32);
const dir = mkdtempSync(join(tmpdir(), 'sk-tokens-'));
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, config: { fetchPictures: false } });
});
afterAll(async () => {
  stopTokenProcesses();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Another process with its own store on `file`. */
const tokenProcess = (file: string) => startTokenProcess(file, [key]);

/** The refresh activities as a worker builds them, on the given store (called directly: no Temporal). */
const authActivities = (tokens: TokenStore) =>
  createAuthActivities({ deps: { credentials: () => undefined, tokens, jobStore: noJobStore } });

const sample = (tag: string): SellerTokens => ({
  baseUrl: 'http://127.0.0.1:1',
  clientId: 'client_x',
  clientSecret: 'secret_x',
  accessToken: `pat_${tag}`,
  refreshToken: `prt_${tag}`,
  expiresAt: 1_000,
});

describe('file token store: one host, several processes', () => {
  it('every instance reads the current tokens; sets from two instances merge, none is lost', async () => {
    const file = join(dir, `merge-${randomUUID()}.sealed`);
    const a = createFileTokenStore(file, key);
    const b = createFileTokenStore(file, key); // created before the file exists, as a worker started first
    await a.set('x', sample('x1'));
    expect((await b.get('x'))?.accessToken).toBe('pat_x1');
    await b.set('y', sample('y1'));
    await a.set('x', sample('x2'));
    expect((await b.get('x'))?.accessToken).toBe('pat_x2');
    expect((await a.get('y'))?.accessToken).toBe('pat_y1');
    const c = createFileTokenStore(file, key);
    expect(c.refs().sort()).toEqual(['x', 'y']);
    expect((await c.get('x'))?.version).toBe(2);
  });

  it('compare-and-set: a set on a version that is no longer stored is refused and writes nothing', async () => {
    const file = join(dir, `cas-${randomUUID()}.sealed`);
    const a = createFileTokenStore(file, key);
    const b = createFileTokenStore(file, key);
    expect(await a.set('x', sample('1'))).toBe(true);
    expect((await a.get('x'))?.version).toBe(1);
    expect(await b.set('x', sample('stale'), 0)).toBe(false);
    expect(await b.set('x', sample('2'), 1)).toBe(true);
    expect(await a.set('x', sample('late'), 1)).toBe(false);
    expect(await createFileTokenStore(file, key).get('x')).toMatchObject({
      accessToken: 'pat_2',
      version: 2,
    });
  });

  it('a failed write rejects that set only; the next set writes', async () => {
    const sub = join(dir, `sub-${randomUUID()}`);
    const file = join(sub, 'tokens.sealed');
    const store = createFileTokenStore(file, key);
    writeFileSync(sub, 'not a directory'); // every write under it fails
    await expect(store.set('x', sample('lost'))).rejects.toThrow();
    rmSync(sub);
    expect(await store.set('x', sample('kept'))).toBe(true);
    expect((await createFileTokenStore(file, key).get('x'))?.accessToken).toBe('pat_kept');
  });

  it('a lock left behind by a dead process is taken over', async () => {
    const file = join(dir, `lock-${randomUUID()}.sealed`);
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => dead.on('exit', r));
    writeFileSync(`${file}.lock`, `${dead.pid} ${hostname()} crashed-mid-write`);
    expect(await createFileTokenStore(file, key).set('x', sample('after'))).toBe(true);
    expect((await createFileTokenStore(file, key).get('x'))?.accessToken).toBe('pat_after');
  });

  it('two processes compare-and-set one seller at once: every update kept, in order', async () => {
    const file = join(dir, `race-${randomUUID()}.sealed`);
    await createFileTokenStore(file, key).set('x', sample('0'));
    const [p, q] = await Promise.all([tokenProcess(file), tokenProcess(file)]);
    try {
      await Promise.all([
        p.call({ op: 'bump', ref: 'x', times: 25, tag: 'p' }),
        q.call({ op: 'bump', ref: 'x', times: 25, tag: 'q' }),
        p.call({ op: 'set', ref: 'only-p', tokens: sample('p') }),
        q.call({ op: 'set', ref: 'only-q', tokens: sample('q') }),
      ]);
      const store = createFileTokenStore(file, key);
      expect((await store.get('x'))?.version).toBe(51); // 1 + 25 + 25: no lost update
      expect(store.refs().sort()).toEqual(['only-p', 'only-q', 'x']);
    } finally {
      p.stop();
      q.stop();
    }
  }, 60_000);
});

describe('token rotation by several worker processes', () => {
  it('two processes rotate one seller 100 times through one store: 0 × invalid_grant, the stored pair works', async () => {
    const file = join(dir, `rotate-${randomUUID()}.sealed`);
    const seller = connectSeller(sim);
    await createFileTokenStore(file, key).set(seller.ref, seller.login());
    const workers = await Promise.all([tokenProcess(file), tokenProcess(file)]);
    const failures = await rotateInTurns(workers, seller.ref, 100);
    expect(failures).toEqual([]);
    const stored = (await createFileTokenStore(file, key).get(seller.ref))!;
    expect(stored.version).toBe(101);
    expect(seller.live()).toEqual([stored.refreshToken]);
    expect(await seller.shop(stored.accessToken)).toBe(200);
  }, 120_000);

  it('invalid_grant after another process rotated during this attempt: success with the stored tokens', async () => {
    const file = join(dir, `zombie-${randomUUID()}.sealed`);
    const seller = connectSeller(sim);
    const mine = createFileTokenStore(file, key);
    const theirs = createFileTokenStore(file, key);
    await theirs.set(seller.ref, seller.login());
    let raced = false;
    // Another worker (or an earlier attempt that outlived its timeout) rotates right after this attempt read.
    const racing: TokenStore = {
      async get(ref) {
        const t = await mine.get(ref);
        if (t && !raced) {
          raced = true;
          const client = createClient({ baseUrl: t.baseUrl, oauth: t, pacing: false });
          const next = await client.auth.refresh({ refreshToken: t.refreshToken });
          await client.close();
          await theirs.set(ref, { ...t, ...next, expiresAt: next.expiresAt! }, t.version ?? 0);
        }
        return t;
      },
      set: (ref, t, expected) => mine.set(ref, t, expected),
    };
    const { refreshSellerTokens } = authActivities(racing);
    const result = await refreshSellerTokens(seller.ref, 2);
    const stored = (await theirs.get(seller.ref))!;
    expect(result).toMatchObject({ expiresAt: stored.expiresAt, version: stored.version });
    expect(seller.live()).toEqual([stored.refreshToken]);
  }, 60_000);

  it('invalid_grant with the store unchanged is final: reauthorization required', async () => {
    const file = join(dir, `revoked-${randomUUID()}.sealed`);
    const seller = connectSeller(sim);
    const store = createFileTokenStore(file, key);
    const t = seller.login();
    await store.set(seller.ref, t);
    sim.world.refreshTokens.delete(t.refreshToken); // the seller revoked the app
    const { refreshSellerTokens } = authActivities(store);
    const error = await refreshSellerTokens(seller.ref, 2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as ApplicationFailure).type).toBe('ReauthorizationRequired');
  }, 60_000);
});
