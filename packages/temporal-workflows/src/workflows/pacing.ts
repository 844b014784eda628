// The pacing planner (pure, deterministic, no I/O): one "ring" per shop × rate group.
//
// The gateway's limit is a sliding window: at most `limit` requests in any `windowMs`. The allowance is
// cut into `slots` of `slotSize` requests (slots × slotSize ≤ limit). A slot may be used again only
// `windowMs` after the ANSWER to its last request came back (an upper bound of when the gateway
// counted it), so any window holds at most one use of each slot: never more than the allowance,
// however latency varies. Small slots waste little time per window (a slot's own duration), which is
// how the job gets ≥ 97 % of the allowance without a single 429.
//
// The ring is kept by the shop's lane workflow (shared by every job of the shop) or, for a job that
// does not share, by the job itself. A job asks for slots (`acquire`), sends each slot's requests no
// earlier than its `notBefore`, and reports back when each slot's last answer arrived. After a 429 the
// ring stops until Retry-After, halves the slots it hands out and wins back a tenth per clean window.
// An outside cap (the app-wide budget's share) is counted in requests: a share smaller than one slot is
// handed out as one smaller slot (`AcquireResult.slotSize`), never as "nothing, ask again at once".
//
// Budget pacing (lanes from 0.3). A share that fits one window of the ring's own allowance (at 500 sellers:
// 57 per minute against 200 per 10 s) is handed out as ONE "wide" slot carrying the whole share, reused one
// budget window after its last answer: one acquire and one send per budget window instead of six, which
// is what makes 500 sellers affordable in Temporal history events. The same argument holds for both
// limits: the wide slot is used at most once in any budget window (≤ the share there), and its one use
// is ≤ the share ≤ the ring's limit, so no window of the ring holds more than its allowance either. The
// two modes never overlap: a wide slot is granted only while no ring slot is held and one budget window
// after the ring's last use, and ring slots the same way after the wide slot's last use. The wide slot is
// sent before the share's lease ends (its deadline), so the allocator's cooling after that end covers it.
// It is handed out in parts of at most one ring slot each (`SlotGrant.size`), sent one after another.
import { RATE_LIMITS } from '@selling-kit/api-client/rate-limits';
import type { Allowance, BulkOperation, RateGroup } from '../types.ts';
import type { Lease } from '../types.ts';

/** create, upsert and full updates count against create_update; everything else against general. */
export const groupOf = (operation: BulkOperation): RateGroup =>
  operation === 'create' || operation === 'upsert' || operation === 'update' ? 'create_update' : 'general';

/**
 * The share of the general group kept back from bulk jobs: sales (mark-as-sold after a sale elsewhere)
 * go in that reserve and never wait behind bulk work.
 */
export const SALES_RESERVE = 0.05;

/** Bulk jobs' allowances per shop: the spec's table (the client core's), less the sales reserve. */
export const DEFAULT_ALLOWANCES: Record<RateGroup, Allowance> = {
  create_update: { ...RATE_LIMITS.create_update },
  general: {
    ...RATE_LIMITS.general,
    limit: Math.floor(RATE_LIMITS.general.limit * (1 - SALES_RESERVE)),
  },
};

/** A job's allowance: its own, or the spec's for its operation's rate group, less the sales reserve. */
export const allowanceOf = (input: { allowance?: Allowance; operation: BulkOperation }): Allowance =>
  input.allowance ?? DEFAULT_ALLOWANCES[groupOf(input.operation)];

export interface Ring {
  allowance: Allowance;
  slotSize: number;
  slots: number;
  /** Slots handed out per window now (fewer after a 429). */
  active: number;
  /** Extra cap from an outside budget (the app-wide share), in requests per window of this ring. */
  capPerWindow?: number;
  /** Order of that cap: the end of the lease it came from (a lane applies only newer ones). */
  capSeq?: number;
  /** The app-wide share as last leased (lanes from 0.3, which pace over the budget window with it). */
  share?: Lease;
  /** Budget pacing's one slot (see the header): when its last answer came, who holds it, since when. */
  wide?: WideSlot;
  /** Per slot: when the answer to its last request arrived (epoch ms), 0 = never used. */
  lastAt: number[];
  /** When the ring first handed out a slot (spread rings): never-used slot k opens k steps after it. */
  firstAt?: number;
  /** Per slot: the job holding it (granted, not yet reported), or null. */
  holder: (string | null)[];
  heldAt: number[];
  blockedUntil: number;
  recoveredAt: number;
  /** Job id → when it last asked: jobs asking recently share the ring fairly. */
  jobs: Record<string, number>;
}

export interface WideSlot {
  lastAt: number;
  holder: string | null;
  heldAt: number;
  /** The budget window it is reused after. */
  windowMs: number;
}

/** The number by which grants and reports name the wide slot (ring slots are 0 … slots − 1). */
export const WIDE_SLOT = -1;

export interface SlotGrant {
  slot: number;
  /** Do not send this slot's first request before this time (epoch ms). */
  notBefore: number;
  /** Requests this slot may carry, when not `AcquireResult.slotSize` (a part of the wide slot). */
  size?: number;
}

export interface SlotReport {
  slot: number;
  /** When the answer to the slot's last request arrived; null when the slot was not used. */
  lastAt: number | null;
}

export interface AcquireRequest {
  jobId: string;
  /** Slots wanted now (0: only report / release). */
  want: number;
  /** The slots granted last time, with when each was last used. */
  report: SlotReport[];
  /** The last batch met a 429 with this Retry-After (ms). */
  retryAfterMs?: number;
  /** The allowance the job was given: a lane started with another one adopts it (conservatively). */
  allowance?: Allowance;
  /** Deterministic id of this request (`<workflowId>/<runId>/<seq>`): a retried activity is answered once. */
  updateId?: string;
  /** The job has been granted slots by this ring before (see `acquire`: a lane restarted by hand). */
  usedBefore?: boolean;
  /**
   * The app-wide share the asking worker holds for this lane (0.3: the cap travels with the acquire, no
   * separate update). The lane applies it when it is newer than the one it has (by the lease's end).
   */
  share?: Lease;
}

export interface AcquireResult {
  slots: SlotGrant[];
  /** Requests each granted slot may carry (below the ring's own slot size when a small share caps it). */
  slotSize: number;
  /** Nothing granted: ask again after this long (ms), never a hot loop (see `minWaitMs`). */
  waitMs: number;
  /** Slots not started by this time are given up (their lease may have passed to another job). */
  deadline: number;
  /** Requests per window the ring hands out now. */
  rate: number;
}

export interface RingOptions {
  /** Slots per window (default 20): more slots, less idle time per window, more numbers in history. */
  maxSlots?: number;
  /** Added to every reuse distance (default `DEFAULT_MARGIN_MS`). */
  marginMs?: number;
}

export const DEFAULT_MAX_SLOTS = 20;

/**
 * Answers bound the gateway's count from above on ONE clock, but `lastAt` is read on one worker, reuse is
 * decided on the workflow's clock and the slot is sent from another worker: hosts' clocks differ (NTP keeps
 * them within tens of ms). The margin absorbs that skew; hosts must run NTP.
 */
export const DEFAULT_MARGIN_MS = 250;

/**
 * A ring's never-used slots open over this part of a window, not all at once: a slot reopens one window
 * after its own answer, so the first window's spacing is kept window after window. Two hundred creates sent
 * as one burst each window held a sale on the same worker behind them; spread over a quarter window the
 * shop's load is even, and no slot is later than the window in which it would have been used.
 */
export const FIRST_USE_SPREAD = 0.25;
/** The patch that turned it on (a lane's run, a job's own ring): histories before it replay without. */
export const FIRST_USE_SPREAD_PATCH = 'ring-first-use-spread';

/** The shortest wait answered when nothing is granted, however soon a slot opens (no 1 ms timers). */
const minWaitMs = (W: number) => Math.max(1, Math.min(250, Math.ceil(W / 4)));

export function newRing(allowance: Allowance, options: RingOptions = {}): Ring {
  const maxSlots = Math.max(1, options.maxSlots ?? DEFAULT_MAX_SLOTS);
  const slotSize = Math.max(1, Math.ceil(allowance.limit / maxSlots));
  const slots = Math.max(1, Math.floor(allowance.limit / slotSize));
  return {
    allowance,
    slotSize,
    slots,
    active: slots,
    lastAt: new Array<number>(slots).fill(0),
    holder: new Array<string | null>(slots).fill(null),
    heldAt: new Array<number>(slots).fill(0),
    blockedUntil: 0,
    recoveredAt: 0,
    jobs: {},
  };
}

/** A slot held longer than this is taken back (its job died): 4 windows, at least a minute. */
export const leaseMs = (ring: Ring) => Math.max(60_000, 4 * ring.allowance.windowMs);

/**
 * A lease from the app-wide budget (handed in with an acquire, or by the old `cap` update): a cap in
 * requests per window of this ring, applied only when it is newer than the ring's (by the lease's end,
 * whichever worker renewed it). `pacing` (lanes from 0.3) keeps the share too, for budget pacing.
 */
export function applyShare(ring: Ring, share: Lease, pacing: boolean): void {
  if (ring.capSeq !== undefined && share.until <= ring.capSeq) return; // an older lease
  ring.capPerWindow = Math.max(0, Math.floor((share.perWindow * ring.allowance.windowMs) / share.windowMs));
  ring.capSeq = share.until;
  if (pacing) ring.share = share;
}

/**
 * Whether the ring paces over the budget window now (see the header): its share fits one window of its
 * own allowance, the budget window is the longer one, and the lease covers a grant made one budget window
 * ahead (leases of allocators before 0.3 are too short: such a lane paces as before).
 */
export function budgetPaced(ring: Ring): boolean {
  const s = ring.share;
  return (
    s !== undefined &&
    s.windowMs > ring.allowance.windowMs &&
    s.perWindow <= ring.allowance.limit &&
    s.leaseMs >= 2 * s.windowMs
  );
}

/**
 * When the holder of a share should renew it: half-way through the lease, or earlier when told to. A lease
 * long enough for budget pacing is renewed while it still has two budget windows left: the lane grants one
 * window ahead and a job asks again only after that send, so a lease renewed later could lapse between two
 * asks under load (a lapsed lease's share cools for a window before its shop gets it back).
 */
export const renewalDue = (share: Lease) =>
  Math.min(
    share.reviewAt ?? Infinity,
    share.until - Math.max(share.leaseMs / 2, share.leaseMs >= 2 * share.windowMs ? 2 * share.windowMs : 0),
  );

/** A wide slot held longer than this is taken back (its job died): a budget window plus a ring lease. */
const wideHoldMs = (ring: Ring, wide: WideSlot) => wide.windowMs + leaseMs(ring);

/** Reports, 429s and a request for slots, in one step (one update per window). Mutates the ring. */
export function acquire(
  ring: Ring,
  req: AcquireRequest,
  now: number,
  marginMs = DEFAULT_MARGIN_MS,
  /** Never-used slots open over `FIRST_USE_SPREAD` of a window (`patched(FIRST_USE_SPREAD_PATCH)`). */
  spreadFirstUse = false,
): AcquireResult {
  const a = req.allowance;
  if (a && (a.limit !== ring.allowance.limit || a.windowMs !== ring.allowance.windowMs)) resize(ring, a, now);
  restartAsUsed(ring, req, now);
  const used = applyReports(ring, req);
  adjustActive(ring, req, now, used);
  takeBackDead(ring, now);
  noteAsking(ring, req, now);
  return grant(ring, req, now, marginMs, spreadFirstUse);
}

/**
 * A ring that has never been used, asked by a job that it has served before: the lane was terminated or
 * reset by hand and started again empty, while the gateway still counts what its last run handed out.
 * Every slot waits one window, as if used just now (a lane that continues as new carries its ring); a
 * lane with an app share waits one budget window (its last run may have paced over it).
 */
function restartAsUsed(ring: Ring, req: AcquireRequest, now: number): void {
  const empty = ring.lastAt.every((t) => t === 0) && ring.holder.every((h) => h === null) && !ring.wide;
  if (!req.usedBefore || !empty) return;
  ring.lastAt = ring.lastAt.map(() => now);
  if (ring.share) ring.wide = { lastAt: now, holder: null, heldAt: 0, windowMs: ring.share.windowMs };
}

/** The job's reports: its slots released, each slot's last answer noted. True if any slot was used. */
function applyReports(ring: Ring, req: AcquireRequest): boolean {
  let used = false;
  for (const r of req.report) {
    if (r.slot === WIDE_SLOT && ring.wide) {
      if (ring.wide.holder === req.jobId) ring.wide.holder = null;
      if (r.lastAt !== null) {
        ring.wide.lastAt = Math.max(ring.wide.lastAt, r.lastAt);
        used = true;
      }
      continue;
    }
    if (r.slot < 0 || r.slot >= ring.slots) continue;
    if (ring.holder[r.slot] === req.jobId) ring.holder[r.slot] = null;
    if (r.lastAt !== null) {
      ring.lastAt[r.slot] = Math.max(ring.lastAt[r.slot]!, r.lastAt);
      used = true;
    }
  }
  return used;
}

/** After a 429: stop until Retry-After and halve the active slots; a tenth won back per clean window. */
function adjustActive(ring: Ring, req: AcquireRequest, now: number, used: boolean): void {
  if (req.retryAfterMs !== undefined) {
    ring.blockedUntil = Math.max(ring.blockedUntil, now + req.retryAfterMs);
    ring.active = Math.max(1, Math.floor(ring.active / 2));
    ring.recoveredAt = now + req.retryAfterMs;
  } else if (used && ring.active < ring.slots && now - ring.recoveredAt >= ring.allowance.windowMs) {
    ring.active = Math.min(ring.slots, ring.active + Math.max(1, Math.ceil(ring.slots / 10)));
    ring.recoveredAt = now;
  }
}

/** A job that died holding slots (or the wide slot): take them back, as if used just now. */
function takeBackDead(ring: Ring, now: number): void {
  const lease = leaseMs(ring);
  for (let i = 0; i < ring.slots; i++) {
    if (ring.holder[i] !== null && now > ring.heldAt[i]! + lease) {
      ring.holder[i] = null;
      ring.lastAt[i] = Math.max(ring.lastAt[i]!, now);
    }
  }
  const wide = ring.wide;
  if (wide && wide.holder !== null && now > wide.heldAt + wideHoldMs(ring, wide)) {
    wide.holder = null;
    wide.lastAt = Math.max(wide.lastAt, now);
  }
}

/** Jobs asking recently share the ring fairly; one gone quiet for two windows (holding nothing) leaves. */
function noteAsking(ring: Ring, req: AcquireRequest, now: number): void {
  if (req.want > 0) ring.jobs[req.jobId] = now;
  else delete ring.jobs[req.jobId];
  for (const [job, at] of Object.entries(ring.jobs))
    if (at < now - 2 * ring.allowance.windowMs && !ring.holder.includes(job) && ring.wide?.holder !== job)
      delete ring.jobs[job];
}

/** The slots granted now (or how long to wait before asking again), once the ring is up to date. */
function grant(
  ring: Ring,
  req: AcquireRequest,
  now: number,
  marginMs: number,
  spreadFirstUse: boolean,
): AcquireResult {
  const W = ring.allowance.windowMs;
  const lease = leaseMs(ring);
  const wide = ring.wide;
  const floor = Math.max(1, Math.ceil(W / 4));
  const share = ring.share;
  /** No share to hand out: ask again when the allocator said more may be free (or the floor). */
  const shareWait = () => Math.max(floor, share ? renewalDue(share) - now : 0);
  if (budgetPaced(ring)) return grantWide(ring, req, now, marginMs, floor, shareWait);

  // A cap in requests: as many slots as it needs, each no bigger than its even part of the cap. A share
  // below one slot is one smaller slot; a share below one request is nothing.
  const cap = ring.capPerWindow;
  const capped = cap === undefined ? ring.slots : Math.ceil(Math.max(0, Math.floor(cap)) / ring.slotSize);
  const usable = Math.min(ring.active, capped);
  const size =
    cap === undefined || usable === 0 ? ring.slotSize : Math.min(ring.slotSize, Math.floor(cap / usable));
  const rate = usable * size;
  // Slots leave before the share's lease ends (lanes from 0.3): the allocator's cooling after it covers them.
  const deadline = Math.min(now + lease / 2, share?.until ?? Infinity);
  const result = (slots: SlotGrant[], waitMs: number): AcquireResult => ({
    slots,
    slotSize: size,
    waitMs,
    deadline,
    rate,
  });
  if (req.want <= 0) return result([], floor);
  if (share && usable === 0) return result([], shareWait());
  // Budget pacing's slot, when it was used: every ring slot waits one budget window after it.
  if (wide?.holder) return result([], floor);
  const afterWide = wide && wide.lastAt > 0 ? wide.lastAt + wide.windowMs + marginMs : 0;

  // Only the first `usable` slots are handed out: the ring then bounds a window to `usable` uses.
  const sharing = Math.max(1, Object.keys(ring.jobs).length);
  const mine = ring.holder.filter((h) => h === req.jobId).length;
  const n = Math.min(req.want, Math.ceil(usable / sharing) - mine);

  // A never-used slot k opens k steps into the first quarter window, whoever asks for it and when: the
  // spacing holds however the ring's first slots are handed out (one job, several, one slot at a time).
  const firstUseStep = spreadFirstUse ? (W * FIRST_USE_SPREAD) / ring.slots : 0;
  if (spreadFirstUse && ring.firstAt === undefined && ring.lastAt.some((t) => t === 0)) ring.firstAt = now;
  const opens = (at: number, slot: number) =>
    Math.max(
      at === 0 ? (ring.firstAt ?? 0) + firstUseStep * slot : at + W + marginMs,
      ring.blockedUntil,
      afterWide,
    );
  const free = ring.lastAt
    .map((at, slot) => ({ slot, at }))
    .filter(({ slot }) => slot < usable && ring.holder[slot] === null)
    // Spread, a never-used slot may open after a used one: the slots go in the order they open.
    .sort((a, b) =>
      spreadFirstUse
        ? opens(a.at, a.slot) - opens(b.at, b.slot) || a.slot - b.slot
        : a.at - b.at || a.slot - b.slot,
    );
  const granted: SlotGrant[] = [];
  for (const { slot, at } of free) {
    if (granted.length >= n) break;
    const notBefore = Math.max(now, opens(at, slot));
    // Hand out only what can be used within the next window (and before the lease ends); later slots are
    // asked for later.
    if (notBefore > now + W || notBefore >= deadline) break;
    granted.push({ slot, notBefore });
    ring.holder[slot] = req.jobId;
    ring.heldAt[slot] = now;
  }
  if (granted.length > 0) return result(granted, 0);
  // Nothing now: ask again when the first free slot can be granted (up to one window before it opens), else
  // in a quarter window (slots held by others come back with their reports) — never sooner than `minWaitMs`.
  const next = free[0];
  if (!next || n <= 0) return result([], floor);
  if (share && opens(next.at, next.slot) >= deadline) return result([], shareWait());
  return result([], Math.max(minWaitMs(W), opens(next.at, next.slot) - W - now));
}

/**
 * Budget pacing (see the header): the wide slot, carrying the whole share, once per budget window — never
 * while a ring slot is held, and one budget window after the ring's last use.
 */
function grantWide(
  ring: Ring,
  req: AcquireRequest,
  now: number,
  marginMs: number,
  floor: number,
  shareWait: () => number,
): AcquireResult {
  const share = ring.share!;
  const Wb = share.windowMs;
  const wide = (ring.wide ??= { lastAt: 0, holder: null, heldAt: 0, windowMs: Wb });
  wide.windowMs = Math.max(wide.windowMs, Wb);
  // After a 429 the share shrinks with the ring's active slots, and wins back with them.
  const size = Math.floor((share.perWindow * ring.active) / ring.slots);
  const deadline = Math.min(now + leaseMs(ring) / 2 + Wb, share.until);
  const result = (slots: SlotGrant[], waitMs: number): AcquireResult => ({
    slots,
    slotSize: Math.max(1, size),
    waitMs,
    deadline,
    rate: Math.floor((size * ring.allowance.windowMs) / Wb),
  });
  if (req.want <= 0) return result([], floor);
  if (size < 1) return result([], shareWait());
  // Held by another job of the shop, or a ring slot still out: their reports come first.
  if (wide.holder !== null || ring.holder.some((h) => h !== null)) return result([], floor);
  const ringLast = Math.max(0, ...ring.lastAt);
  const notBefore = Math.max(
    now,
    wide.lastAt > 0 ? wide.lastAt + wide.windowMs + marginMs : 0,
    ringLast > 0 ? ringLast + Wb + marginMs : 0,
    ring.blockedUntil,
  );
  // It must leave (all its parts) before the lease ends; the holder renews half-way through, so this waits
  // for that.
  if (notBefore + ring.allowance.windowMs >= deadline) return result([], shareWait());
  if (notBefore > now + Wb) return result([], Math.max(minWaitMs(Wb), notBefore - Wb - now));
  wide.holder = req.jobId;
  wide.heldAt = now;
  // In parts no bigger than a ring slot, which the send activity starts one after another: a seller never
  // has more requests in flight than one slot (500 sellers × 58 at once ran a worker out of sockets).
  // Together they are one use: the next waits for the last part's answer.
  const parts = Math.ceil(size / ring.slotSize);
  const part = (i: number) => Math.floor((size * (i + 1)) / parts) - Math.floor((size * i) / parts);
  return {
    ...result(
      Array.from({ length: parts }, (_, i) => ({ slot: WIDE_SLOT, notBefore, size: part(i) })),
      0,
    ),
    slotSize: Math.ceil(size / parts),
  };
}

/**
 * A new allowance (e.g. higher limits agreed with the marketplace): a fresh ring whose every slot counts
 * as used at the latest use of the old one, so the change itself can never overshoot.
 */
function resize(ring: Ring, allowance: Allowance, now: number) {
  const last = Math.max(0, ...ring.lastAt, ...ring.holder.map((h) => (h === null ? 0 : now)));
  const fresh = newRing(allowance, { maxSlots: ring.slots });
  fresh.lastAt.fill(last);
  fresh.blockedUntil = ring.blockedUntil;
  fresh.jobs = ring.jobs;
  // A cap in requests does not depend on the slot size.
  if (ring.capPerWindow !== undefined) fresh.capPerWindow = ring.capPerWindow;
  if (ring.capSeq !== undefined) fresh.capSeq = ring.capSeq;
  if (ring.share) fresh.share = ring.share;
  if (ring.wide) fresh.wide = ring.wide;
  for (const key of ['capPerWindow', 'capSeq', 'share', 'wide'] as const) delete ring[key];
  Object.assign(ring, fresh);
}
