// The seller's auth workflow, the one owner of token rotation, with two worker PROCESSES sharing one token
// file (an in-process worker and src/worker/worker-main.ts): rotations land on either and all succeed; a seller
// who logs in again while both run is seen (reconnect, then refreshes work); tokens that live 2 s cause
// no refresh storm. Real dev server (global set-up), the simulator's token endpoint (rotation).
// @needs temporal
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCodecKeys } from '../src/codec/codec.ts';
import { tokenStoreKeyring } from '../src/auth/token-store-key.ts';
import { reconnectSeller } from '../src/client/client.ts';
import { createFileTokenStore } from '../src/stores/token-store.ts';
import { sellerAuthWorkflow, sellerAuthWorkflowId } from '../src/workflows/seller-auth.ts';
import { spawnReadyWorker, startEnv, type TestEnv } from './helpers.ts';
import { connectSeller, startTokenProcess, stopTokenProcesses } from './token-helpers.ts';
import { authStateQuery, refreshUpdate } from '../src/workflows/messages.ts';

// The keys worker-main.ts opens the token store with (its own key; the codec ring's old derivation), so
// every process opens the same file.
const codecKey = randomBytes(32).toString('base64');
const tokenStoreKey = randomBytes(32);
const keys = tokenStoreKeyring(tokenStoreKey, parseCodecKeys(codecKey, 'test'));
const workerFile = join(mkdtempSync(join(tmpdir(), 'sk-auth-')), 'tokens.sealed');
const workerStore = createFileTokenStore(workerFile, keys);
let env: TestEnv;
let workerProcess: ChildProcess | undefined;

/** A second worker process (src/worker/worker-main.ts) on the test's task queue, on the same token file. */
function spawnWorker(taskQueue: string): Promise<ChildProcess> {
  return spawnReadyWorker({
    SELLING_KIT_TASK_QUEUE: taskQueue,
    SELLING_KIT_TOKEN_STORE: workerFile,
    SELLING_KIT_CODEC_KEY: codecKey,
    SELLING_KIT_TOKEN_STORE_KEY: tokenStoreKey.toString('base64'),
    SELLING_KIT_CODEC: '0', // the test's client and in-process worker use no codec
  });
}

beforeAll(async () => {
  env = await startEnv('auth', { tokens: workerStore });
  workerProcess = await spawnWorker(env.taskQueue);
}, 180_000);
afterAll(async () => {
  stopTokenProcesses();
  if (workerProcess?.exitCode === null) workerProcess.kill('SIGTERM');
  await env?.close();
});

describe('the seller auth workflow with two worker processes sharing the token file', () => {
  /** The seller's auth workflow, as a job of an OAuth shop `shopId` (tokens `ref`) starts it. */
  const start = (ref: string, shopId = `tok-${randomUUID()}`) =>
    env.client.workflow.start(sellerAuthWorkflow, {
      taskQueue: env.taskQueue,
      workflowId: sellerAuthWorkflowId(shopId),
      args: [{ sellerId: shopId, tokenRef: ref }],
    });

  it('30 on-demand rotations, each on whichever worker process takes it: all succeed, the stored pair works', async () => {
    expect(workerProcess?.exitCode).toBeNull();
    const seller = connectSeller(env.sim);
    await createFileTokenStore(workerFile, keys).set(seller.ref, seller.login());
    const handle = await start(seller.ref);
    let state = await handle.query(authStateQuery);
    for (let i = 0; i < 30; i++) {
      // As a job's client does after a 401: the version of the tokens it holds, read from the store.
      const seenVersion = (await workerStore.get(seller.ref))!.version ?? 0;
      state = await handle.executeUpdate(refreshUpdate, { args: [{ seenVersion }] });
      expect(state).toMatchObject({ state: 'active', refreshes: i + 1 });
    }
    // Both worker processes took refreshes (their identities on the activity's started events).
    const events = (await handle.fetchHistory()).events ?? [];
    const identities = new Set(
      events
        .filter((e) => e.activityTaskStartedEventAttributes)
        .map((e) => e.activityTaskStartedEventAttributes!.identity),
    );
    expect(identities.size).toBe(2);
    const stored = (await workerStore.get(seller.ref))!;
    expect(stored.version).toBe(state.version);
    expect(seller.live()).toEqual([stored.refreshToken]);
    expect(await seller.shop(stored.accessToken)).toBe(200);
    await handle.terminate();
  }, 120_000);

  it('a seller who logs in again (another process writes new tokens) is seen: reconnect, then refreshes work', async () => {
    const seller = connectSeller(env.sim);
    const first = seller.login();
    await createFileTokenStore(workerFile, keys).set(seller.ref, first);
    const shopId = `tok-${randomUUID()}`;
    const handle = await start(seller.ref, shopId);
    env.sim.world.refreshTokens.delete(first.refreshToken); // revoked
    const revoked = await handle.executeUpdate(refreshUpdate, { args: [{ seenVersion: 1 }] });
    expect(revoked.state).toBe('reauthorization_required');
    // `selling-kit auth login` in another process while both workers run.
    const cli = await startTokenProcess(workerFile, keys);
    const again = seller.login();
    try {
      expect(await cli.call({ op: 'set', ref: seller.ref, tokens: again })).toBe(true);
    } finally {
      cli.stop();
    }
    expect((await workerStore.get(seller.ref))?.refreshToken).toBe(again.refreshToken);
    expect(await reconnectSeller(env.client, shopId)).toMatchObject({ state: 'active', version: 2 });
    for (let i = 0; i < 4; i++) {
      const s = await handle.executeUpdate(refreshUpdate, {
        args: [{ seenVersion: (await handle.query(authStateQuery)).version }],
      });
      expect(s.state).toBe('active');
    }
    const stored = (await workerStore.get(seller.ref))!;
    expect(seller.live()).toEqual([stored.refreshToken]);
    expect(stored.refreshToken).not.toBe(again.refreshToken);
    await handle.terminate();
  }, 120_000);

  it('tokens that live 2 s: after a proactive refresh the next one waits at least 30 s (no refresh storm)', async () => {
    const saved = env.sim.config.accessTokenTtlSec;
    env.sim.config.accessTokenTtlSec = 2;
    try {
      const seller = connectSeller(env.sim, 2_000);
      await workerStore.set(seller.ref, seller.login());
      const handle = await start(seller.ref); // refreshAheadMs: the default 5 minutes, longer than the token lives
      // After the first proactive refresh completes, the workflow's next command: a timer, or a refresh.
      let next: { eventType?: unknown; timerStartedEventAttributes?: unknown } | undefined;
      for (let i = 0; i < 300 && !next; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const events = (await handle.fetchHistory()).events ?? [];
        const done = events.findIndex((e) => e.activityTaskCompletedEventAttributes && isRefresh(events, e));
        if (done < 0) continue;
        next = events
          .slice(done + 1)
          .find((e) => e.timerStartedEventAttributes || e.activityTaskScheduledEventAttributes);
      }
      expect(next?.timerStartedEventAttributes).toBeTruthy(); // not a refresh right away
      const attrs = next!.timerStartedEventAttributes as { startToFireTimeout?: { seconds?: unknown } };
      expect(Number(attrs.startToFireTimeout?.seconds)).toBeGreaterThanOrEqual(29);
      await handle.terminate();
    } finally {
      env.sim.config.accessTokenTtlSec = saved;
    }
  }, 120_000);
});

describe('a token endpoint that never answers', () => {
  it('each refresh attempt gives up by itself and is aborted before the next attempt sends (no overlap)', async () => {
    // Answers nothing: every request stays open until its sender gives up.
    const requests: { req: IncomingMessage; closed: boolean }[] = [];
    const server = createServer((req) => {
      const r = { req, closed: false };
      requests.push(r);
      req.socket.on('close', () => (r.closed = true));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const seller = connectSeller(env.sim);
    const ref = seller.ref;
    await workerStore.set(ref, {
      ...seller.login(),
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    });
    const shopId = `hang-${randomUUID()}`;
    const handle = await env.client.workflow.start(sellerAuthWorkflow, {
      taskQueue: env.taskQueue,
      workflowId: sellerAuthWorkflowId(shopId),
      args: [{ sellerId: shopId, tokenRef: ref }],
    });
    try {
      void handle.executeUpdate(refreshUpdate, { args: [{ seenVersion: 1 }] }).catch(() => undefined);
      let openWhenSecondCame = -1;
      for (let i = 0; i < 900 && openWhenSecondCame < 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        if (requests.length >= 2) openWhenSecondCame = requests.slice(0, 1).filter((r) => !r.closed).length;
      }
      expect(requests.length).toBeGreaterThanOrEqual(2);
      expect(openWhenSecondCame).toBe(0); // the first request was closed before the second was sent
      // The second request is the activity's second attempt (not a client retry inside the first), and the
      // first attempt ended by the client's own time limit, not by Temporal's start-to-close timeout.
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      expect(pending).toHaveLength(1);
      expect(pending[0]!.attempt).toBe(2);
      expect(pending[0]!.lastFailure?.timeoutFailureInfo).toBeFalsy();
      expect(pending[0]!.lastFailure?.message).toBeTruthy();
    } finally {
      await handle.terminate().catch(() => undefined);
      server.closeAllConnections();
      server.close();
    }
  }, 150_000);
});

type HistoryEvent = {
  eventId?: unknown;
  activityTaskCompletedEventAttributes?: { scheduledEventId?: unknown } | null;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null;
};
/** Is this completion that of a refreshSellerTokens activity? */
function isRefresh(events: HistoryEvent[], completed: HistoryEvent): boolean {
  const id = String(completed.activityTaskCompletedEventAttributes!.scheduledEventId);
  const scheduled = events.find((e) => String(e.eventId) === id);
  return scheduled?.activityTaskScheduledEventAttributes?.activityType?.name === 'refreshSellerTokens';
}
