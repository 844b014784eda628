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
//
// At scale (0.3; issue 12 §5: 500 sellers of one app). The server admits at most 10 updates in flight per
// workflow (`history.maxInFlightUpdates`), and this allocator is ONE workflow, so its load must not grow
// with the number of shops: (1) a worker sends its lease requests in batches (`leases`, one update in
// flight per worker and app; activities/lanes.ts), so the allocator sees about one update per worker at a
// time however many lanes renew; (2) leases last at least 2.5 budget windows (`LEDGER.minLeaseWindows`),
// renewed with two windows left (pacing.ts `renewalDue`), so a lane pacing over the budget window renews
// once per send and a lease never lapses between two of its asks, even under load; (3) the cap travels
// with the lane's next acquire (no second update per renewal). A key granted less than it wants is told
// when more may be free (`reviewAt`: when cooling capacity frees), so it asks again then, not on a timer.
// Sharding the allocator was not needed for this: one allocator keeps the ledger exact (no split budget).
// A cut share stays committed until the OLD lease's end plus one window (0.3): a lane may still send what
// it was granted under the old lease until that end (grants are made up to one budget window ahead).
import { continueAsNew, deprecatePatch, patched, setHandler } from '@temporalio/workflow';
import { entityRunEnds } from './entity-run.ts';
import { appBudgetWorkflowId } from '../contract.ts';
import { APP_WIDE_LIMIT, type Allowance } from '@selling-kit/api-client/rate-limits';
import { REFUSING_UPDATE, refuseInput } from './refuse.ts';
import type { Lease } from '../types.ts';
import { budgetQuery, leasesUpdate, leaseUpdate, type BudgetInput, type BudgetState } from './messages.ts';

/** The ledger's rules: allocators recorded before 0.3 replay with the rules they ran with. */
export interface LedgerRules {
  /** A cut share stays committed until the old lease's end (not the cut) plus one budget window. */
  coolCutsFromLeaseEnd: boolean;
  /** Leases last at least this many budget windows (lanes pacing over the budget window grant one ahead). */
  minLeaseWindows: number;
  /** The headroom of an allocator started without one. */
  defaultHeadroom: number;
  /** Tell a key granted less than it wants when more may be free. */
  review: boolean;
}
export const LEDGER_0_2: LedgerRules = {
  coolCutsFromLeaseEnd: false,
  minLeaseWindows: 0,
  defaultHeadroom: 0.1,
  review: false,
};
/**
 * SPEC GAP (choice): the spec gives an app one budget for all its requests and says nothing of a reserve.
 * Bulk jobs lease all but 2 % of it; the 2 % (600 per minute at 30,000) is for the app's requests outside
 * bulk jobs. An app sending more of those raises `headroom`.
 */
export const DEFAULT_HEADROOM = 0.02;
export const LEDGER: LedgerRules = {
  coolCutsFromLeaseEnd: true,
  minLeaseWindows: 2.5,
  defaultHeadroom: DEFAULT_HEADROOM,
  review: true,
};

/** The spec's app-wide limit (the client core's table). */
export const APP_WIDE_ALLOWANCE: Allowance = { ...APP_WIDE_LIMIT };

/**
 * A fresh ledger (`rules` as for `lease`). Given `startedAt` (an allocator that starts without a carried state), the whole budget
 * counts as cooling for one window: what the app sent just before is unknown.
 */
export function newBudget(
  input: BudgetInput,
  startedAt?: number,
  rules: LedgerRules = LEDGER_0_2,
): BudgetState {
  const state: BudgetState = {
    allowance: input.allowance ?? APP_WIDE_ALLOWANCE,
    headroom: input.headroom ?? rules.defaultHeadroom,
    leaseMs: input.leaseMs ?? 30_000,
    leases: {},
    cooling: [],
  };
  if (startedAt !== undefined)
    state.cooling.push({ perWindow: budgetOf(state), freeAt: startedAt + state.allowance.windowMs });
  return state;
}

const budgetOf = (state: BudgetState) => Math.floor(state.allowance.limit * (1 - state.headroom));

/**
 * A lease key (`<shopId>:<group>`) asks for `want` requests per budget window (pure; mutates the state).
 * `rules`: the workflow passes its run's; without them, the ledger of allocators before 0.3.
 */
export function lease(
  state: BudgetState,
  key: string,
  want: number,
  now: number,
  rules: LedgerRules = LEDGER_0_2,
): Lease {
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
  // What a cut gives up was granted under the old lease, which may still be sent until that lease's end.
  const cutFrom = rules.coolCutsFromLeaseEnd ? Math.max(now, mine?.until ?? now) : now;
  if (mine && grant < mine.perWindow)
    state.cooling.push({ perWindow: mine.perWindow - grant, freeAt: cutFrom + W });
  const leaseMs = Math.max(state.leaseMs, Math.ceil(rules.minLeaseWindows * W));
  // Two renewals in one workflow task read the same clock: the later one still ends later.
  const until = Math.max(now + leaseMs, (mine?.until ?? 0) + 1);
  state.leases[key] = { perWindow: grant, want, until };
  const granted: Lease = { perWindow: grant, windowMs: W, until, leaseMs };
  if (rules.review && grant < want) {
    // Capacity frees when cooling ends (none cooling: at the usual renewal).
    const frees = Math.min(...state.cooling.map((c) => c.freeAt));
    if (frees < until) granted.reviewAt = Math.max(now + 1, frees);
  }
  return granted;
}

/** Per task queue, like the lanes (shop-lane.ts `laneWorkflowId`): a gone deployment's allocator never blocks another. */
export { appBudgetWorkflowId };

export async function appBudgetWorkflow(input: BudgetInput, carry?: BudgetState): Promise<void> {
  refuseInput(input, carry);
  // Runs recorded before 0.3 replay with the ledger they ran with (the new rules start at the next run).
  const rules = patched('app-budget-batched-leases') ? LEDGER : LEDGER_0_2;
  const state = carry ?? warmStart(input, rules);
  let handled = 0;
  setHandler(budgetQuery, () => state);
  setHandler(
    leaseUpdate,
    ({ shopId, key, want }) => {
      handled++;
      return lease(state, key ?? shopId, want, Date.now(), rules);
    },
    REFUSING_UPDATE,
  );
  setHandler(
    leasesUpdate,
    ({ requests }) => {
      handled++;
      const now = Date.now();
      return requests.map(({ shopId, key, want }) => lease(state, key ?? shopId, want, now, rules));
    },
    REFUSING_UPDATE,
  );
  await entityRunEnds(() => handled);
  await continueAsNew<typeof appBudgetWorkflow>(input, state);
}

/**
 * A fresh allocator warms up (0.2's `app-budget-warm-up`: deprecated in 0.4, as every allocator a 0.3
 * worker asks was started with it; README, "Changing workflow code"). Called where the marker was recorded.
 */
function warmStart(input: BudgetInput, rules: LedgerRules): BudgetState {
  deprecatePatch('app-budget-warm-up');
  return newBudget(input, Date.now(), rules);
}
