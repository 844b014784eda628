// A separate worker-like process for the token tests (run with `node`, driven over IPC): it holds
// its own file token store and its own activities, as a second worker process on the same host would.
// Per-process state is what is under test, so this must be a real process, not a second instance.
//   env TOKEN_STORE (the sealed file, or a postgres:// URL: token-store-open.ts), TOKEN_KEYS (base64 keys of 32 bytes, comma-separated; the first seals)
import { createAuthActivities } from '../src/activities/auth.ts';
import { openTokenStore } from '../src/stores/token-store-open.ts';
import type { SellerTokens } from '../src/activities/index.ts';
import { noJobStore } from './no-job-store.ts';

export type Request =
  | { id: number; op: 'refresh'; ref: string; version: number }
  | { id: number; op: 'get'; ref: string }
  | { id: number; op: 'set'; ref: string; tokens: SellerTokens; expectedVersion?: number }
  /** Compare-and-set `times` times, each on the version just read: how many tries were refused. */
  | { id: number; op: 'bump'; ref: string; times: number; tag: string };
/** A request as sent (the id is added by the sender). */
export type Ask = Request extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;
export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

const keys = process.env.TOKEN_KEYS!.split(',').map((k) => Buffer.from(k, 'base64'));
const store = openTokenStore(process.env.TOKEN_STORE!, keys.length === 1 ? keys[0]! : keys);
// The seller-auth activities as a worker builds them (they use only the token store).
const activities = createAuthActivities({
  deps: { credentials: () => undefined, tokens: store, jobStore: noJobStore },
});

async function handle(req: Request): Promise<unknown> {
  switch (req.op) {
    case 'refresh':
      return activities.refreshSellerTokens(req.ref, req.version);
    case 'get':
      return store.get(req.ref);
    case 'set':
      return store.set(req.ref, req.tokens, req.expectedVersion);
    case 'bump': {
      let refused = 0;
      for (let i = 0; i < req.times;) {
        const t = (await store.get(req.ref))!;
        const ok = await store.set(req.ref, { ...t, accessToken: `${req.tag}-${i}` }, t.version ?? 0);
        if (ok !== false) i++;
        else refused++;
      }
      return refused;
    }
  }
}

process.on('message', (req: Request) => {
  handle(req).then(
    (value) => process.send!({ id: req.id, ok: true, value } satisfies Reply),
    (e: unknown) =>
      process.send!({ id: req.id, ok: false, error: String((e as Error).message ?? e) } satisfies Reply),
  );
});
process.send!({ id: 0, ok: true, value: 'ready' } satisfies Reply);
