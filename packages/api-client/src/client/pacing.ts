// Client-side pacing so that steady traffic never meets a 429. One sliding window per
// (credential identity × rate group) mirrors the gateway's allowance; an OAuth application's requests
// also share one app-wide window across all its sellers.
//
// The gateway counts a request when it *arrives*, some time between our send and our answer, and the
// latency varies (a cold connection, a busy event loop). So a request holds its slot from the moment
// it is let through until `answer time + window`: if a new request is sent at t ≥ that, the gateway
// cannot count both in one window, whatever the latencies were. In flight, a request blocks its slot
// indefinitely. With L slots per window W and latency λ this allows L / (W + λ) per unit of time:
// slightly under the gateway's allowance, never over it.
//
// After a 429 the group pauses for the announced wait and its allowance drops (halved by default),
// then climbs back linearly over a few windows. Pure: it computes waits from the `now` it is given;
// the caller sleeps, then asks again.
import { APP_WIDE_LIMIT, RATE_LIMITS, type Allowance, type RateGroup } from '../core/rate-limits.ts';
import { TimestampLog } from '../core/timestamp-log.ts';

export interface PacingKey {
  /** The shop or seller: one allowance per identity and group. */
  identity: string;
  group: RateGroup;
  /** The OAuth application, for the cross-lister app-wide budget (undefined for API keys). */
  app?: string;
}

/**
 * What the request pipeline asks of a limiter. Implement it over a shared store to pace several
 * processes on one credential; return promises if the store is remote.
 */
export interface Pacer {
  /**
   * Takes a slot now and resolves to 0, or takes nothing and resolves to the milliseconds to wait
   * before asking again. Every 0 is followed by exactly one `release`.
   */
  acquire(key: PacingKey, now: number): number | Promise<number>;
  /** The request that took a slot has its answer (or failed). */
  release(key: PacingKey, now: number): void | Promise<void>;
  /** A 429 came back: pause the group (or the app-wide budget) and slow it down. */
  penalize(key: PacingKey, scope: 'group' | 'app', retryAfterMs: number, now: number): void | Promise<void>;
}

export interface PacingOptions {
  /** Allowance per group (defaults: the spec's table). Tests pass time-scaled windows. */
  allowances?: Partial<Record<RateGroup, Allowance>>;
  /** The cross-lister app-wide budget (default: the spec's 30 000/min); false = none. */
  appWide?: Allowance | false;
  /** Added to every window, ms (clock and timer granularity). Default 20. */
  marginMs?: number;
  /** Added to every window as a share of it. Default 0. */
  marginRatio?: number;
  /** Factor applied to the allowance after a 429. Default 0.5. */
  reduceFactor?: number;
  /** Lowest share of the allowance a group can drop to. Default 0.1. */
  minFactor?: number;
  /** Share of the full allowance regained per window without a 429. Default 0.25. */
  recoveryPerWindow?: number;
}

/** One window: requests in flight, and answer times still inside the window (oldest first). */
class Window {
  inFlight = 0;
  /** Answer times whose slot is still held (answer + window > now). */
  readonly answers = new TimestampLog();
  blockedUntil = 0;
  /** Allowance share after the last 429, and when recovery started. */
  factor = 1;
  reducedAt = 0;

  /** 0 when a slot is free now, else the ms until one may be. */
  waitMs(now: number, limit: number, windowMs: number): number {
    const blocked = this.blockedUntil - now;
    if (blocked > 0) return blocked;
    this.answers.prune(now, windowMs);
    const held = this.answers.size;
    const excess = this.inFlight + held - limit + 1;
    if (excess <= 0) return 0;
    // The `excess` oldest answers must leave the window; in-flight slots free no earlier than now + W.
    if (excess <= held) return Math.max(1, this.answers.at(excess - 1) + windowMs - now);
    return windowMs;
  }

  /** Current allowance share: recovers linearly from the last reduction. */
  share(now: number, windowMs: number, recoveryPerWindow: number): number {
    if (this.factor >= 1 || now <= this.reducedAt) return this.factor;
    const share = this.factor + ((now - this.reducedAt) / windowMs) * recoveryPerWindow;
    if (share >= 1) {
      this.factor = 1;
      return 1;
    }
    return share;
  }

  release(now: number): void {
    if (this.inFlight > 0) this.inFlight--;
    // Answers normally arrive in time order; the log keeps them sorted if a clock step says otherwise.
    this.answers.add(now);
  }
}

export class SlidingWindowPacer implements Pacer {
  private readonly windows = new Map<string, Window>();
  private readonly allowances: Record<RateGroup, Allowance>;
  private readonly appWide: Allowance | false;
  private readonly marginMs: number;
  private readonly marginRatio: number;
  private readonly reduceFactor: number;
  private readonly minFactor: number;
  private readonly recoveryPerWindow: number;

  constructor(options: PacingOptions = {}) {
    this.allowances = { ...RATE_LIMITS, ...options.allowances };
    this.appWide = options.appWide === undefined ? APP_WIDE_LIMIT : options.appWide;
    this.marginMs = options.marginMs ?? 20;
    this.marginRatio = options.marginRatio ?? 0;
    this.reduceFactor = options.reduceFactor ?? 0.5;
    this.minFactor = options.minFactor ?? 0.1;
    this.recoveryPerWindow = options.recoveryPerWindow ?? 0.25;
  }

  acquire(key: PacingKey, now: number): number {
    const group = this.window(this.groupId(key));
    const groupAllowance = this.allowances[key.group];
    let wait = this.waitOf(group, groupAllowance, now);
    const appAllowance = key.app ? this.appWide : false;
    const app = appAllowance ? this.window(this.appId(key)) : undefined;
    if (app && appAllowance) wait = Math.max(wait, this.waitOf(app, appAllowance, now));
    if (wait > 0) return wait;
    group.inFlight++;
    if (app) app.inFlight++;
    return 0;
  }

  release(key: PacingKey, now: number): void {
    this.windows.get(this.groupId(key))?.release(now);
    if (key.app && this.appWide) this.windows.get(this.appId(key))?.release(now);
  }

  penalize(key: PacingKey, scope: 'group' | 'app', retryAfterMs: number, now: number): void {
    const allowance = scope === 'app' ? (key.app ? this.appWide : false) : this.allowances[key.group];
    if (!allowance) return;
    const w = this.window(scope === 'app' ? this.appId(key) : this.groupId(key));
    const until = now + Math.max(0, retryAfterMs);
    w.blockedUntil = Math.max(w.blockedUntil, until);
    const share = w.share(now, this.windowOf(allowance), this.recoveryPerWindow);
    w.factor = Math.max(this.minFactor, share * this.reduceFactor);
    w.reducedAt = until;
  }

  /** The effective allowance of a key right now (for tests and dashboards). */
  effectiveLimit(identity: string, group: RateGroup, now: number): number {
    const allowance = this.allowances[group];
    const w = this.windows.get(`${identity}|${group}`);
    if (!w) return allowance.limit;
    return this.limitOf(allowance, w.share(now, this.windowOf(allowance), this.recoveryPerWindow));
  }

  private waitOf(w: Window, allowance: Allowance, now: number): number {
    const windowMs = this.windowOf(allowance);
    const limit = this.limitOf(allowance, w.share(now, windowMs, this.recoveryPerWindow));
    return w.waitMs(now, limit, windowMs);
  }

  private groupId(key: PacingKey): string {
    return `${key.identity}|${key.group}`;
  }

  private appId(key: PacingKey): string {
    return `app:${key.app}`;
  }

  private windowOf(allowance: Allowance): number {
    return allowance.windowMs * (1 + this.marginRatio) + this.marginMs;
  }

  private limitOf(allowance: Allowance, share: number): number {
    return Math.max(1, Math.floor(allowance.limit * share));
  }

  private window(id: string): Window {
    let w = this.windows.get(id);
    if (!w) {
      w = new Window();
      this.windows.set(id, w);
    }
    return w;
  }
}
