// The app-wide budget of a cross-lister (OAuth) application: all requests of the app, across all its
// sellers, share 30,000 per minute (spec). One entity workflow per app (`app-budget:<taskQueue>:<appId>`) leases
// each active shop a share, in requests per budget window, for a short time (`leaseMs`); the shop's
// lane caps its slots at the share. Shares are max-min fair: a shop gets what it asks for while the
// budget lasts, and everybody is cut to budget ÷ shops when it does not. Capacity a shop gives up (a
// smaller share, a lapsed lease) is handed out again only one budget window later, since the gateway
// still counts what the shop sent in that window. The ledger is pure (`lease`), so it is tested alone.
// Leases are keyed by shop AND rate group (`<shopId>:<group>`): each lane of a shop holds its own share.
// A fresh allocator cannot know what was sent in the last window (a terminated or reset one forgot it),
// so it starts with the whole budget cooling for one window.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineUpdate,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Allowance } from '../types.ts';

export interface BudgetInput {
  appId: string;
  /** Default the spec's 30,000 per 60 s. */
  allowance?: Allowance;
  /** Kept back for requests outside bulk jobs (verifications, sales, reconciliations). Default 0.1. */
  headroom?: number;
  /** How long a share holds before it must be renewed (default 30 s). */
  leaseMs?: number;
}

export interface BudgetState {
  allowance: Allowance;
  headroom: number;
  leaseMs: number;
  /** By key: `<shopId>:<group>` (before 0.2: the shop id alone). */
  leases: Record<string, { perWindow: number; want: number; until: number }>;
  /** Capacity given up recently: free again at `freeAt`. */
  cooling: { perWindow: number; freeAt: number }[];
}

export interface Lease {
  /** Requests this shop may send per budget window. */
  perWindow: number;
  /** The budget window those requests are counted in, ms. */
  windowMs: number;
  /** When the lease ends; strictly later on every renewal of a key, so it also orders caps (`capSeq`). */
  until: number;
  leaseMs: number;
}

export const APP_WIDE_ALLOWANCE: Allowance = { limit: 30_000, windowMs: 60_000 };

/**
 * A fresh ledger. Given `startedAt` (an allocator that starts without a carried state), the whole budget
 * counts as cooling for one window: what the app sent just before is unknown.
 */
export function newBudget(input: BudgetInput, startedAt?: number): BudgetState {
  const state: BudgetState = {
    allowance: input.allowance ?? APP_WIDE_ALLOWANCE,
    headroom: input.headroom ?? 0.1,
    leaseMs: input.leaseMs ?? 30_000,
    leases: {},
    cooling: [],
  };
  if (startedAt !== undefined)
    state.cooling.push({ perWindow: budgetOf(state), freeAt: startedAt + state.allowance.windowMs });
  return state;
}

const budgetOf = (state: BudgetState) => Math.floor(state.allowance.limit * (1 - state.headroom));

/** A lease key (`<shopId>:<group>`) asks for `want` requests per budget window (pure; mutates the state). */
export function lease(state: BudgetState, key: string, want: number, now: number): Lease {
  const W = state.allowance.windowMs;
  for (const [id, l] of Object.entries(state.leases)) {
    // Other keys' lapsed leases cool down; the asking key's own traffic is its own lease's business.
    if (l.until <= now && id !== key) {
      delete state.leases[id];
      state.cooling.push({ perWindow: l.perWindow, freeAt: l.until + W });
    }
  }
  state.cooling = state.cooling.filter((c) => c.freeAt > now);
  const budget = budgetOf(state);
  const mine = state.leases[key];
  const others = Object.entries(state.leases).filter(([id]) => id !== key);
  const committed =
    others.reduce((n, [, l]) => n + l.perWindow, 0) + state.cooling.reduce((n, c) => n + c.perWindow, 0);
  const fair = Math.floor(budget / (others.length + 1));
  // Contended: some other shop holds less than it asks for and less than its fair share.
  const contended = others.some(([, l]) => l.perWindow < Math.min(l.want, fair));
  let grant = Math.max(0, Math.min(want, budget - committed));
  if (contended) grant = Math.min(grant, fair);
  grant = Math.floor(grant);
  if (mine && grant < mine.perWindow)
    state.cooling.push({ perWindow: mine.perWindow - grant, freeAt: now + W });
  // Two renewals in one workflow task read the same clock: the later one still ends later.
  const until = Math.max(now + state.leaseMs, (mine?.until ?? 0) + 1);
  state.leases[key] = { perWindow: grant, want, until };
  return { perWindow: grant, windowMs: W, until, leaseMs: state.leaseMs };
}

/** `key` is `<shopId>:<group>`; a request without one (workers before 0.2) is keyed by its shop. */
export const leaseUpdate = defineUpdate<Lease, [{ shopId: string; key?: string; want: number }]>('lease');
export const budgetQuery = defineQuery<BudgetState>('budget');
/** Per task queue, like the lanes (shop-lane.ts `laneWorkflowId`): a gone deployment's allocator never blocks another. */
export const appBudgetWorkflowId = (taskQueue: string, appId: string) => `app-budget:${taskQueue}:${appId}`;

export async function appBudgetWorkflow(input: BudgetInput, carry?: BudgetState): Promise<void> {
  // A fresh start warms up (runs recorded before the warm-up replay without it: what they handed out
  // must not change under them).
  const state = carry ?? newBudget(input, patched('app-budget-warm-up') ? Date.now() : undefined);
  let handled = 0;
  setHandler(budgetQuery, () => state);
  setHandler(leaseUpdate, ({ shopId, key, want }) => {
    handled++;
    return lease(state, key ?? shopId, want, Date.now());
  });
  await condition(() => handled >= 500 || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  await continueAsNew<typeof appBudgetWorkflow>(input, state);
}
