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
import type { Allowance, BulkOperation, RateGroup } from '../types.ts';

/** create, upsert and full updates count against create_update; everything else against general. */
export const groupOf = (operation: BulkOperation): RateGroup =>
  operation === 'create' || operation === 'upsert' || operation === 'update' ? 'create_update' : 'general';

/**
 * The spec's allowances per shop. The general group keeps 5 % back from bulk jobs: sales (mark-as-sold
 * after a sale elsewhere) go in that reserve and never wait behind bulk work.
 */
export const DEFAULT_ALLOWANCES: Record<RateGroup, Allowance> = {
  create_update: { limit: 200, windowMs: 10_000 },
  general: { limit: 5_700, windowMs: 60_000 },
};

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
  /** Lanes before 0.2 kept the cap in slots (still read from carried rings). */
  cap?: number;
  /** Per slot: when the answer to its last request arrived (epoch ms), 0 = never used. */
  lastAt: number[];
  /** Per slot: the job holding it (granted, not yet reported), or null. */
  holder: (string | null)[];
  heldAt: number[];
  blockedUntil: number;
  recoveredAt: number;
  /** Job id → when it last asked: jobs asking recently share the ring fairly. */
  jobs: Record<string, number>;
}

export interface SlotGrant {
  slot: number;
  /** Do not send this slot's first request before this time (epoch ms). */
  notBefore: number;
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

/** Reports, 429s and a request for slots, in one step (one update per window). Mutates the ring. */
export function acquire(
  ring: Ring,
  req: AcquireRequest,
  now: number,
  marginMs = DEFAULT_MARGIN_MS,
): AcquireResult {
  const a = req.allowance;
  if (a && (a.limit !== ring.allowance.limit || a.windowMs !== ring.allowance.windowMs)) resize(ring, a, now);
  const W = ring.allowance.windowMs;
  // A ring that has never been used, asked by a job that it has served before: the lane was terminated or
  // reset by hand and started again empty, while the gateway still counts what its last run handed out.
  // Every slot waits one window, as if used just now (a lane that continues as new carries its ring).
  if (req.usedBefore && ring.lastAt.every((t) => t === 0) && ring.holder.every((h) => h === null))
    ring.lastAt = ring.lastAt.map(() => now);
  let used = false;
  for (const r of req.report) {
    if (r.slot < 0 || r.slot >= ring.slots) continue;
    if (ring.holder[r.slot] === req.jobId) ring.holder[r.slot] = null;
    if (r.lastAt !== null) {
      ring.lastAt[r.slot] = Math.max(ring.lastAt[r.slot]!, r.lastAt);
      used = true;
    }
  }
  if (req.retryAfterMs !== undefined) {
    ring.blockedUntil = Math.max(ring.blockedUntil, now + req.retryAfterMs);
    ring.active = Math.max(1, Math.floor(ring.active / 2));
    ring.recoveredAt = now + req.retryAfterMs;
  } else if (used && ring.active < ring.slots && now - ring.recoveredAt >= W) {
    ring.active = Math.min(ring.slots, ring.active + Math.max(1, Math.ceil(ring.slots / 10)));
    ring.recoveredAt = now;
  }
  // A job that died holding slots: take them back, as if used just now.
  const lease = leaseMs(ring);
  for (let i = 0; i < ring.slots; i++) {
    if (ring.holder[i] !== null && now > ring.heldAt[i]! + lease) {
      ring.holder[i] = null;
      ring.lastAt[i] = Math.max(ring.lastAt[i]!, now);
    }
  }
  if (req.want > 0) ring.jobs[req.jobId] = now;
  else delete ring.jobs[req.jobId];
  for (const [job, at] of Object.entries(ring.jobs))
    if (at < now - 2 * W && !ring.holder.includes(job)) delete ring.jobs[job];

  // A cap in requests: as many slots as it needs, each no bigger than its even part of the cap. A share
  // below one slot is one smaller slot; a share below one request is nothing.
  const cap = ring.capPerWindow ?? (ring.cap === undefined ? undefined : ring.cap * ring.slotSize);
  const capped = cap === undefined ? ring.slots : Math.ceil(Math.max(0, Math.floor(cap)) / ring.slotSize);
  const usable = Math.min(ring.active, capped);
  const size =
    cap === undefined || usable === 0 ? ring.slotSize : Math.min(ring.slotSize, Math.floor(cap / usable));
  const rate = usable * size;
  const result = (slots: SlotGrant[], waitMs: number): AcquireResult => ({
    slots,
    slotSize: size,
    waitMs,
    deadline: now + lease / 2,
    rate,
  });
  const floor = Math.max(1, Math.ceil(W / 4));
  if (req.want <= 0) return result([], floor);

  // Only the first `usable` slots are handed out: the ring then bounds a window to `usable` uses.
  const sharing = Math.max(1, Object.keys(ring.jobs).length);
  const mine = ring.holder.filter((h) => h === req.jobId).length;
  const n = Math.min(req.want, Math.ceil(usable / sharing) - mine);

  const free = ring.lastAt
    .map((at, slot) => ({ slot, at }))
    .filter(({ slot }) => slot < usable && ring.holder[slot] === null)
    .sort((a, b) => a.at - b.at || a.slot - b.slot);
  const granted: SlotGrant[] = [];
  for (const { slot, at } of free) {
    if (granted.length >= n) break;
    const notBefore = Math.max(now, at === 0 ? 0 : at + W + marginMs, ring.blockedUntil);
    // Hand out only what can be used within the next window; later slots are asked for later.
    if (notBefore > now + W) break;
    granted.push({ slot, notBefore });
    ring.holder[slot] = req.jobId;
    ring.heldAt[slot] = now;
  }
  if (granted.length > 0) return result(granted, 0);
  // Nothing now: ask again when the first free slot can be granted (up to one window before it opens), else
  // in a quarter window (slots held by others come back with their reports) — never sooner than `minWaitMs`.
  const next = free[0];
  if (!next || n <= 0) return result([], floor);
  return result([], Math.max(minWaitMs(W), Math.max(next.at + W + marginMs, ring.blockedUntil) - W - now));
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
  // A cap in requests does not depend on the slot size; a pre-0.2 cap in slots is converted as it was.
  if (ring.capPerWindow !== undefined) fresh.capPerWindow = ring.capPerWindow;
  else if (ring.cap !== undefined) fresh.cap = Math.floor((ring.cap * ring.slotSize) / fresh.slotSize);
  if (ring.capSeq !== undefined) fresh.capSeq = ring.capSeq;
  for (const key of ['cap', 'capPerWindow', 'capSeq'] as const) delete ring[key];
  Object.assign(ring, fresh);
}
