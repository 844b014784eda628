// Helpers of the token tests: a cross-lister's seller (an OAuth app and a seller in the simulator's world,
// token pairs issued as a consent would, what the simulator still accepts) and separate processes holding
// a file token store (test/token-process.ts).
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  addAddress,
  createOAuthClient,
  createSeller,
  grantTokens,
  type AccessTokenRecord,
  type RunningSimulator,
} from '@selling-kit/simulator';
import type { SellerTokens } from '../src/activities/index.ts';
import type { Ask, Reply } from './token-process.ts';

const children: ChildProcess[] = [];

/** Stops every process startTokenProcess() started. */
export function stopTokenProcesses(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}

/**
 * A process of its own (another worker, or `selling-kit auth login`) with a file token store on `file`,
 * sealed with `keys` (the first seals), and the seller-auth activities: driven over IPC.
 */
export async function startTokenProcess(file: string, keys: readonly Buffer[]) {
  const child = fork(fileURLToPath(new URL('./token-process.ts', import.meta.url)), [], {
    env: { ...process.env, TOKEN_STORE: file, TOKEN_KEYS: keys.map((k) => k.toString('base64')).join(',') },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  const waiting = new Map<number, (reply: Reply) => void>();
  child.on('message', (reply: Reply) => {
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  await new Promise<void>((resolve, reject) => {
    waiting.set(0, () => resolve());
    child.once('exit', (code) => reject(new Error(`token process exited early (${code})`)));
  });
  let next = 1;
  return {
    call<T>(req: Ask): Promise<T> {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, (r) => (r.ok ? resolve(r.value as T) : reject(new Error(r.error))));
        child.send({ ...req, id });
      });
    },
    stop: () => child.kill('SIGTERM'),
  };
}

type TokenProcess = Awaited<ReturnType<typeof startTokenProcess>>;

/**
 * `times` refreshes of one seller, the processes taking turns, each asking for the next version as the
 * auth workflow does; stops the processes and returns the failures' messages.
 */
export async function rotateInTurns(workers: TokenProcess[], ref: string, times: number): Promise<string[]> {
  const failures: string[] = [];
  try {
    let version = 1;
    for (let i = 0; i < times; i++) {
      const r = await workers[i % workers.length]!.call<{ version?: number }>({
        op: 'refresh',
        ref,
        version: version + 1,
      }).catch((e: Error) => (failures.push(e.message), undefined));
      version = r?.version ?? version + 1;
    }
  } finally {
    workers.forEach((w) => w.stop());
  }
  return failures;
}

/**
 * A fresh access/refresh token pair of the OAuth app `clientId` for seller `sellerId`, put straight into
 * the simulator's world as its consent page would grant them: the access token lives `accessTtlMs` of
 * simulated time, the refresh token a year. The token tests and the OAuth scale bench both seed sellers so.
 */
export function grantTokenPair(
  sim: RunningSimulator,
  grant: { clientId: string; sellerId: number; scopes: AccessTokenRecord['scopes']; accessTtlMs: number },
): { accessToken: string; refreshToken: string } {
  const now = sim.world.clock.now();
  return grantTokens(sim.world, {
    clientId: grant.clientId,
    sellerId: grant.sellerId,
    scopes: grant.scopes,
    accessExpiresAt: now + grant.accessTtlMs,
    refreshExpiresAt: now + 365 * 86_400_000,
  });
}

export function connectSeller(sim: RunningSimulator, expiresInMs = 3_600_000) {
  const world = sim.world;
  const app = createOAuthClient(world, `partner-${randomUUID().slice(0, 6)}`, ['http://127.0.0.1/cb']);
  const seller = createSeller(world, { username: `tok-${randomUUID().slice(0, 6)}` });
  addAddress(world, seller);
  return {
    app,
    seller,
    ref: `seller-${seller.id}-${randomUUID().slice(0, 4)}`,
    /** A fresh pair, as the consent page (a new `auth login`) gives. */
    login(): SellerTokens {
      const { accessToken, refreshToken } = grantTokenPair(sim, {
        clientId: app.clientId,
        sellerId: seller.id,
        scopes: ['products_read', 'shop_read'],
        accessTtlMs: 3_600_000,
      });
      return {
        baseUrl: sim.url,
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        accessToken,
        refreshToken,
        expiresAt: Date.now() + expiresInMs,
      };
    },
    /** The seller's refresh tokens the simulator still accepts. */
    live: () =>
      [...world.refreshTokens.values()]
        .filter((r) => r.clientId === app.clientId && r.sellerId === seller.id && !r.used)
        .map((r) => r.token),
    /** GET /shop/ with an access token: 200 when the API takes it. */
    shop: async (accessToken: string) =>
      (await fetch(`${sim.url}/api/v1/shop/`, { headers: { authorization: `Bearer ${accessToken}` } }))
        .status,
  };
}
