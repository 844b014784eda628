// The gateway's rate limiter: the spec's allowances per shop/seller and group, plus the app-wide
// budget of each OAuth client (cross-listers only).
//
// SPEC GAP (window algorithm): the spec says "N requests per window" without the algorithm. Ours is a
// sliding log: a request is allowed when fewer than N requests were allowed in the last window (on the
// simulated clock). It never lets more than N through in any window, and the wait it announces is exact:
// the moment the oldest counted request leaves the window. Rejected requests are not counted.
import { TimestampLog, type Allowance, type RateGroup } from '@selling-kit/api-client/core';
import type { SimulatorConfig } from '../config.ts';
import type { Clock } from './clock.ts';
import type { Principal } from '../state.ts';

/** The app-wide budget's group name in counters and 429 bodies. */
export const APP_WIDE_GROUP = 'app_wide';

/** Timestamps of the requests allowed in the current window, oldest first. */
class SlidingLog {
  private readonly times = new TimestampLog();

  /** Simulated ms until one more request fits, or 0 when it fits now. */
  waitMs(now: number, allowance: Allowance): number {
    this.times.prune(now, allowance.windowMs);
    const count = this.times.size;
    if (count < allowance.limit) return 0;
    // (count - limit + 1) entries must leave the window; the last of them is at this index.
    return Math.max(1, this.times.at(count - allowance.limit) + allowance.windowMs - now);
  }

  record(now: number): void {
    this.times.add(now);
  }

  size(now: number, windowMs: number): number {
    this.times.prune(now, windowMs);
    return this.times.size;
  }
}

export interface RateCounter {
  allowed: number;
  limited: number;
}

export type RateDecision =
  | { allowed: true }
  | {
      allowed: false;
      /** Group that rejected (the request's group or `app_wide`). */
      group: string;
      /** Simulated milliseconds until a retry is allowed. */
      retryAfterSimMs: number;
    };

export class RateLimiter {
  private readonly logs = new Map<string, SlidingLog>();
  private readonly counters = new Map<string, Map<string, RateCounter>>();
  private readonly config: SimulatorConfig;
  private readonly clock: Clock;

  constructor(config: SimulatorConfig, clock: Clock) {
    this.config = config;
    this.clock = clock;
  }

  /**
   * SPEC GAP (what "per shop or seller" keys on): an API key counts against its shop (`shop:<sellerId>`);
   * an OAuth token against the connected seller within that application (`oauth:<clientId>:seller:<id>`),
   * so two cross-listers serving one seller do not share an allowance.
   */
  static keyOf(principal: Principal): string {
    return principal.kind === 'oauth'
      ? `oauth:${principal.clientId}:seller:${principal.sellerId}`
      : `shop:${principal.sellerId}`;
  }

  /** Checks and, when allowed, counts one request. Does nothing while limits are disabled. */
  check(principal: Principal, group: RateGroup): RateDecision {
    if (!this.config.rateLimitsEnabled) return { allowed: true };
    const now = this.clock.now();
    const key = RateLimiter.keyOf(principal);
    const allowance = this.config.rateLimits[group];
    const log = this.log(`${key}|${group}`);
    let wait = log.waitMs(now, allowance);
    let rejectedBy: string = group;
    let appLog: SlidingLog | undefined;
    let appKey: string | undefined;
    if (principal.kind === 'oauth' && principal.clientId) {
      appKey = `app:${principal.clientId}`;
      appLog = this.log(`${appKey}|${APP_WIDE_GROUP}`);
      const appWait = appLog.waitMs(now, this.config.appWideLimit);
      if (appWait > wait) {
        wait = appWait;
        rejectedBy = APP_WIDE_GROUP;
      }
    }
    if (wait > 0) {
      this.count(key, group).limited++;
      if (appKey && rejectedBy === APP_WIDE_GROUP) this.count(appKey, APP_WIDE_GROUP).limited++;
      return { allowed: false, group: rejectedBy, retryAfterSimMs: wait };
    }
    log.record(now);
    this.count(key, group).allowed++;
    if (appLog && appKey) {
      appLog.record(now);
      this.count(appKey, APP_WIDE_GROUP).allowed++;
    }
    return { allowed: true };
  }

  /** Requests currently counted in the window of a key and group (for tests and the admin surface). */
  inWindow(key: string, group: RateGroup | typeof APP_WIDE_GROUP): number {
    const allowance = group === APP_WIDE_GROUP ? this.config.appWideLimit : this.config.rateLimits[group];
    return this.logs.get(`${key}|${group}`)?.size(this.clock.now(), allowance.windowMs) ?? 0;
  }

  /** `{ "<key>": { "<group>": { allowed, limited } } }` */
  snapshot(): Record<string, Record<string, RateCounter>> {
    const out: Record<string, Record<string, RateCounter>> = {};
    for (const [key, groups] of this.counters) {
      out[key] = {};
      for (const [group, c] of groups) out[key][group] = { ...c };
    }
    return out;
  }

  /** Forgets every window and counter. */
  reset(): void {
    this.logs.clear();
    this.counters.clear();
  }

  /** Forgets counters only (windows keep running). */
  resetCounters(): void {
    this.counters.clear();
  }

  private log(id: string): SlidingLog {
    return entry(this.logs, id, () => new SlidingLog());
  }

  private count(key: string, group: string): RateCounter {
    const groups = entry(this.counters, key, () => new Map<string, RateCounter>());
    return entry(groups, group, () => ({ allowed: 0, limited: 0 }));
  }
}

/**
 * `map`'s value for `key`, made by `create` and stored on first use: the windows and counters above
 * start when a principal first calls. (TC39's Map.prototype.getOrInsertComputed, not yet in Node.)
 */
function entry<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  const known = map.get(key);
  if (known !== undefined) return known;
  const made = create();
  map.set(key, made);
  return made;
}

/** Whole seconds for the Retry-After header and exact ms for the body, both in REAL time. */
export function retryAfter(clock: Clock, simMs: number): { seconds: number; ms: number } {
  const ms = Math.max(1, Math.ceil(clock.toRealMs(simMs)));
  return { seconds: Math.ceil(ms / 1000), ms };
}
