// The bulk job's state (what a run carries to the next across continue-as-new), its constructor and its
// transitions: pure and deterministic, no I/O, no Temporal API, the clock passed in. Each transition
// changes the state and answers the effects the workflow must apply (pauses, report parts, in order).
// The workflow (bulk-listing.ts) is the loop of timers, activities and messages around them; tests build
// a job's state and drive its transitions here (test/bulk-job.test.ts), never by hand.
import type {
  Allowance,
  BatchResult,
  BulkProgress,
  FeedItem,
  FeedSnapshot,
  ItemResult,
  JobState,
  SlotBatch,
} from '../types.ts';
import type { AcceptedAttempts } from '../stores/job-store.ts';
import { countAnswers, serverErrorPause, unreachablePause, type AnswerTallies } from './api-health.ts';
import { backedOff, carriedError } from './carry-bytes.ts';
import { ABORTED, IN_DOUBT } from './item-codes.ts';
import type { PauseCause } from './job-metrics.ts';
import type { AcquireResult, Ring, SlotReport } from './pacing.ts';

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

/** The job's retry rules, from its input (bulk-listing.ts reads the defaults). */
export interface BulkRules {
  /** Tries of an item before it is reported failed (verification lookups count the same way). */
  maxTries: number;
  /** The shortest wait of the loop: the base of the backoff (1 s at the spec's windows). */
  minWaitMs: number;
  /** The waits before each verification round of a create in doubt. */
  verifyDelaysMs: readonly number[];
}

/**
 * What a transition asks of the workflow beyond the state it changed: pauses (with their reason and the
 * metric's cause), then report parts, each written as its own part in this order (the order is the
 * workflow's commands: it must not change for a recorded history to replay).
 */
export interface Effects {
  pauses: { reason: string; cause: PauseCause }[];
  reports: ItemResult[][];
}

const noEffects = (): Effects => ({ pauses: [], reports: [] });

/** An outcome the API itself caused (a 5xx, a reset), not a crash of ours or a cancel. */
const answeredBadly = (code: string | undefined) =>
  code !== undefined && code !== ABORTED && code !== IN_DOUBT;

/**
 * An item failed in a way that may pass next time: queued in `later` after its backoff (1 s, 2 s, 4 s …
 * at the spec's windows, never more than a minute), or counted failed after `maxTries` — then its report
 * line is returned.
 */
export function retryOrFail(
  s: BulkCarry,
  item: FeedItem,
  error: { code: string; message: string; errorId?: string },
  now: number,
  rules: BulkRules,
): ItemResult | undefined {
  const tries = (item.tries ?? 0) + 1;
  if (tries >= rules.maxTries) {
    s.counts.failed++;
    return {
      line: item.line,
      sku: item.sku,
      status: 'failed',
      code: error.code,
      message: `gave up after ${tries} tries: ${error.message}`,
      errorId: error.errorId,
    };
  }
  const notBefore = now + Math.min(60_000, rules.minWaitMs * 2 ** (tries - 1));
  // Sent again as a resend: the earlier send may have landed (a delete then finds nothing, a sale finds
  // the listing sold — both done). Its error is carried short (carry-bytes.ts).
  s.later.push(backedOff(item, error, tries, notBefore));
  s.later.sort((a, b) => a.notBefore! - b.notBefore!);
  return undefined;
}

/**
 * A verification round's answer applied to the creates in doubt it asked about: found → done; the SKU an
 * older listing's → failed; not asked (a 429, a failed GET) → the same round again, backing off, given up
 * as `unknown` after `maxTries`; absent after the last round → created again; else the next round.
 */
export function verified(
  s: BulkCarry,
  due: Unknown[],
  res: { found: number[]; taken: number[]; checked: number[] },
  now: number,
  rules: BulkRules,
): Effects {
  const effects = noEffects();
  const found = new Set(res.found);
  const taken = new Set(res.taken);
  const checked = new Set(res.checked);
  // Creates found applied: the API does apply them (not a server-error answer, api-health.ts).
  s.answers = countAnswers(s.answers, found.size, 0);
  for (const u of due) {
    if (found.has(u.item.line)) {
      s.counts.done++;
      s.counts.verified++;
    } else if (taken.has(u.item.line)) {
      // The SKU belonged to a listing older than the job: failed `sku_exists` (the activity's line).
      s.counts.failed++;
    } else if (!checked.has(u.item.line)) {
      u.misses = (u.misses ?? 0) + 1;
      if (u.misses < rules.maxTries) {
        u.dueAt = now + Math.min(60_000, rules.minWaitMs * 2 ** (u.misses - 1));
        continue;
      }
      // Given up, not failed: the listing may exist. Counted with the failed items.
      s.counts.failed++;
      effects.reports.push([
        {
          line: u.item.line,
          sku: u.item.sku,
          status: 'unknown',
          code: u.item.lastError?.code ?? 'outcome_unknown',
          message: `its outcome could not be verified after ${u.misses} lookups (GET by SKU kept failing): ${u.item.lastError?.message ?? ''}`,
          errorId: u.item.lastError?.errorId,
        },
      ]);
    } else if (u.rounds + 1 >= rules.verifyDelaysMs.length) {
      // Confirmed absent: create again (an "already exists" then means the first send landed late).
      const line = retryOrFail(
        s,
        { ...u.item, resend: true },
        u.item.lastError ?? { code: 'outcome_unknown', message: 'the API did not confirm the create' },
        now,
        rules,
      );
      if (line) effects.reports.push([line]);
    } else {
      u.rounds++;
      u.misses = 0;
      u.dueAt = now + rules.verifyDelaysMs[u.rounds]!;
      continue;
    }
    s.unknown.splice(s.unknown.indexOf(u), 1);
  }
  return effects;
}

/**
 * A window's outcomes counted: final ones (ok, failed), 429s and unsent items queued first again, retries
 * backed off, creates in doubt waiting for verification. Pauses on a refused credential, on an API that
 * answers (nearly) only server errors, and when nothing reaches it (api-health.ts). `part` is the window's
 * report part: a retried attempt's is the one that counts.
 */
export function settled(
  s: BulkCarry,
  result: BatchResult,
  batch: SlotBatch[],
  part: number,
  now: number,
  rules: BulkRules,
): Effects {
  const effects = noEffects();
  const items = new Map(batch.flatMap((b) => b.items.map((i) => [i.line, i] as const)));
  const again: FeedItem[] = [];
  const retry = (item: FeedItem, error: { code: string; message: string; errorId?: string }) => {
    const line = retryOrFail(s, item, error, now, rules);
    if (line) effects.reports.push([line]);
  };
  if (result.attempt > 1) s.accepted[part] = result.attempt;
  s.counts.done += result.ok.length;
  /** This window's answers from the API, and server errors among them. */
  let answers = result.ok.length;
  let serverErrors = 0;
  /** The reason of the last request that could not leave (the host, our side), if any. */
  let unsent: string | undefined;
  for (const o of result.outcomes) {
    const item = items.get(o.line)!;
    switch (o.status) {
      case 'ok':
        s.counts.done++;
        answers++;
        break;
      case 'failed':
        s.counts.failed++;
        answers++;
        break;
      case 'rate_limited':
        s.counts.rateLimited++;
        again.push(item);
        break;
      case 'retry':
        if (o.sent) {
          if (answeredBadly(o.code)) {
            answers++;
            serverErrors++;
          }
          retry(item, { code: o.code ?? 'server_error', message: o.reason, errorId: o.errorId });
        } else if (o.code) {
          // Could not leave (the host cannot be reached; our side failed): a try of the item's own.
          unsent = o.reason;
          retry(item, { code: o.code, message: o.reason });
        } else again.push(item); // not sent: the deadline passed, or the job was cancelled
        break;
      case 'reauthorization_required':
        answers++;
        again.push(item);
        effects.pauses.push({ reason: `reauthorization required: ${o.message}`, cause: 'reauthorize' });
        break;
      case 'unknown':
        if (answeredBadly(o.code)) {
          answers++;
          serverErrors++;
        }
        s.unknown.push({
          item: {
            ...item,
            lastError: carriedError({
              code: o.code ?? 'outcome_unknown',
              message: o.reason ?? 'no answer the create can be judged by',
              errorId: o.errorId,
            }),
          },
          rounds: 0,
          dueAt: now + rules.verifyDelaysMs[0]!,
        });
        break;
    }
  }
  if (result.retryAfterMs !== undefined) s.retryAfterMs = result.retryAfterMs;
  s.queue.unshift(...again);
  s.answers = countAnswers(s.answers, answers, serverErrors);
  if (answers > 0) s.unreachable = 0;
  else if (unsent !== undefined) s.unreachable++;
  if (s.paused || effects.pauses.length > 0) return effects;
  const unwell =
    serverErrorPause(s.answers) ??
    (unsent !== undefined ? unreachablePause(s.unreachable, unsent) : undefined);
  if (unwell) effects.pauses.push({ reason: unwell, cause: 'api' });
  return effects;
}

/** Items the job holds and has not settled. */
export const pendingOf = (s: BulkCarry): number =>
  s.counts.total - s.counts.done - s.counts.failed - s.counts.cancelled;

/** The job's progress as queries, updates and its result answer it; the ETA at the current rate. */
export function progressOf(
  s: BulkCarry,
  at: { jobId: string; state: JobState; reason: string | undefined; windowMs: number },
): BulkProgress {
  const pending = pendingOf(s);
  return {
    jobId: at.jobId,
    state: at.state,
    reason: at.reason,
    total: s.counts.total,
    done: s.counts.done,
    failed: s.counts.failed,
    cancelled: s.counts.cancelled,
    pending,
    currentRate: s.rate,
    windowMs: at.windowMs,
    rateLimited: s.counts.rateLimited,
    verified: s.counts.verified,
    etaMs: Math.ceil(pending / Math.max(1, s.rate)) * at.windowMs,
    runs: s.runs,
  };
}

/** Items whose backoff has ended join the queue, in the order they became due. */
export function releaseDue(s: BulkCarry, now: number): void {
  while (s.later.length && s.later[0]!.notBefore! <= now) s.queue.push(s.later.shift()!);
}

/** Nothing left: the feed read to its end, nothing queued, backing off or in doubt. */
export const drained = (s: BulkCarry): boolean =>
  s.queue.length === 0 && s.later.length === 0 && s.unknown.length === 0 && s.feedDone;

/**
 * The window's batch: each granted slot takes its share of the queue (a part of a wide slot, budget pacing,
 * carries its own size); a slot left without items is reported unused.
 */
export function fillWindow(s: BulkCarry, grant: Pick<AcquireResult, 'slots' | 'slotSize'>): SlotBatch[] {
  const batch: SlotBatch[] = [];
  for (const g of grant.slots) {
    const items = s.queue.splice(0, Math.max(1, g.size ?? grant.slotSize));
    if (items.length) batch.push({ slot: g.slot, notBefore: g.notBefore, items });
    else s.report.push({ slot: g.slot, lastAt: null });
  }
  return batch;
}

/** A window that did not leave: its items back at the head of the queue, its slots reported unused. */
export function handBack(s: BulkCarry, batch: SlotBatch[]): void {
  s.report.push(...batch.map((b) => ({ slot: b.slot, lastAt: null })));
  s.queue.unshift(...batch.flatMap((b) => b.items));
}
