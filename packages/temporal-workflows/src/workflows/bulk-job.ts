// The bulk job's state (what a run carries to the next across continue-as-new) and its constructor: pure
// and deterministic, no I/O, no Temporal API. The workflow (bulk-listing.ts) is the loop of timers,
// activities and messages around it; tests build a job's state here too, never by hand.
import type { FeedItem, FeedSnapshot } from '../types.ts';
import type { AcceptedAttempts } from '../stores/job-store.ts';
import type { AnswerTallies } from './api-health.ts';
import type { Ring, SlotReport } from './pacing.ts';
import type { Allowance } from '../types.ts';

/** The carry's schema: a carry of another schema (an older release's run continuing as new) is refused. */
export const CARRY_VERSION = 4;

/** A create whose outcome is in doubt, waiting for its next GET by SKU. */
export interface Unknown {
  item: FeedItem;
  /** Verification rounds done (each found nothing). */
  rounds: number;
  /** When the next round is due (workflow clock). */
  dueAt: number;
  /** Rounds in a row that could not ask (the GET failed or met a 429). */
  misses?: number;
}

/** Carried across continue-as-new. */
export interface BulkCarry {
  /** CARRY_VERSION. */
  v: number;
  snapshot?: FeedSnapshot;
  offset: number;
  feedDone: boolean;
  queue: FeedItem[];
  /** Items waiting out their own backoff after a retryable failure (sorted by notBefore). */
  later: FeedItem[];
  unknown: Unknown[];
  counts: {
    total: number;
    done: number;
    failed: number;
    cancelled: number;
    rateLimited: number;
    verified: number;
  };
  /** The job's own ring when it does not share the shop's lane. */
  ring?: Ring;
  /** Slots granted last and how they were used: reported with the next request for slots. */
  report: SlotReport[];
  retryAfterMs?: number;
  rate: number;
  runs: number;
  paused: boolean;
  pauseReason?: string;
  cancelled: boolean;
  /** The last report part's number (parts are numbered 1, 2, … across runs). */
  seq: number;
  /** Parts whose accepted attempt is not the first: seq → attempt. */
  accepted: AcceptedAttempts;
  /** Recent windows' answers and server errors among them (api-health.ts). */
  answers: AnswerTallies;
  /** Windows in a row of which nothing reached the API and a request could not leave. */
  unreachable: number;
  /** When the job's first run started (epoch ms): a listing created before is never this job's. */
  startedAt: number;
  /** The shop's ring has granted this job slots before. */
  laneUsed?: boolean;
}

/** A job's state before its first run: nothing read, nothing sent, paced at the full allowance. */
export function newCarry(start: {
  allowance: Allowance;
  /** The job's own ring, when it does not share the shop's lane. */
  ring?: Ring;
  /** The first run's start (epoch ms). */
  startedAt: number;
}): BulkCarry {
  return {
    v: CARRY_VERSION,
    offset: 0,
    feedDone: false,
    queue: [],
    later: [],
    unknown: [],
    counts: { total: 0, done: 0, failed: 0, cancelled: 0, rateLimited: 0, verified: 0 },
    ring: start.ring,
    report: [],
    rate: start.allowance.limit,
    runs: 0,
    paused: false,
    cancelled: false,
    seq: 0,
    accepted: {},
    answers: [],
    unreachable: 0,
    startedAt: start.startedAt,
  };
}
