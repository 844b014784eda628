// Faults on demand: rules, configured through the admin surface, that make matching requests fail the
// ways a real network, gateway or upstream system does. Probability draws come from a PRNG seeded with
// `config.seed`, so the same seed and the same request sequence reproduce the same faults.
import { randomUUID } from 'node:crypto';
import { z } from 'zod/v4';
import type { Clock } from './clock.ts';
import { SeededRandom } from './random.ts';

export const FAULT_TYPES = [
  /** 500 generic_error; the handler does not run. */
  'error_500',
  /**
   * 500 after the write: the handler runs (state changes, webhooks fire), then its answer is replaced by
   * the 500 an `error_500` rule answers (same codes). What a real upstream does when it fails after
   * committing: a 5xx does not prove that nothing happened.
   */
  'error_500_after_commit',
  /** 502 unexpected_response (an internal service answered oddly); the handler does not run. */
  'error_502',
  /**
   * 422 with `code` (default validation) and `message`; the handler does not run. Stands for codes the
   * service passes through from other systems (the spec: offer submissions "can also fail with 422 and
   * further codes passed through from the offers system"), including codes no client knows.
   */
  'error_422',
  /** 504 before the write: the handler does not run. */
  'timeout_before_commit',
  /** 504 after the write: the handler runs (state changes), its response is replaced by a 504. */
  'timeout_after_commit',
  /** The socket is destroyed before the handler runs. */
  'reset_before_commit',
  /** The handler runs, then the socket is destroyed instead of answering. */
  'reset_after_commit',
  /** The answer is delayed by `latencyMs` (+ up to `jitterMs`) real milliseconds. */
  'latency',
  /** The gateway answers 429 (with Retry-After = the storm's remaining time) to every matching request. */
  'rate_limit_storm',
] as const;
export type FaultType = (typeof FAULT_TYPES)[number];

/** The codes an `error_500` (or `error_500_after_commit`) rule may answer with (the spec's server-side codes). */
export const SERVER_FAULT_CODES = [
  'generic_error',
  'depop_json_deserialization',
  'missing_address_configuration',
  'missing_partner_configuration',
] as const;

/** The faults answering a 500 with one of SERVER_FAULT_CODES. */
const isServerError = (type: FaultType) => type === 'error_500' || type === 'error_500_after_commit';

export const FaultRuleInput = z
  .object({
    type: z.enum(FAULT_TYPES),
    /** Operation id (`products.create`) or a glob over ids (`products.*`). */
    operationId: z.string().min(1).optional(),
    /** HTTP method, any case. */
    method: z.string().min(1).optional(),
    /** Glob over the request path: `*` = within one segment, `**` = anything. */
    path: z.string().min(1).optional(),
    /**
     * Exact SKU of the request: the `sku` of a JSON body (create) or of a by-sku path. A poison item:
     * `{ type: 'error_500', sku: 'X' }` refuses every request for that one SKU.
     */
    sku: z.string().min(1).optional(),
    /** Chance that a matching request triggers the fault (default 1). */
    probability: z.number().min(0).max(1).optional(),
    /** Fires at most this many times ("the next N requests"), then the rule is spent. */
    count: z.number().int().positive().optional(),
    /** Rule lifetime in simulated ms from its creation (required for a storm without a count). */
    durationMs: z.number().positive().optional(),
    latencyMs: z.number().int().nonnegative().optional(),
    jitterMs: z.number().int().nonnegative().optional(),
    /** Storm with a count and no duration: the wait announced in each 429 (simulated ms, default 1000). */
    retryAfterMs: z.number().int().positive().optional(),
    /**
     * error_500, error_500_after_commit: the code of the 500, one of SERVER_FAULT_CODES (default
     * generic_error). error_422: any code (default validation), known to the kit or not.
     */
    code: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a code of letters, digits, _ . - (at most 64)')
      .optional(),
    /** error_422 only: the error message (default: one naming the code). */
    message: z.string().min(1).max(500).optional(),
  })
  .strict()
  .refine(
    (r) =>
      !isServerError(r.type) ||
      r.code === undefined ||
      (SERVER_FAULT_CODES as readonly string[]).includes(r.code),
    { message: `error_500 codes: ${SERVER_FAULT_CODES.join(', ')}`, path: ['code'] },
  )
  .refine((r) => r.code === undefined || isServerError(r.type) || r.type === 'error_422', {
    message: 'code is for error_500, error_500_after_commit and error_422 only',
    path: ['code'],
  })
  .refine((r) => r.message === undefined || r.type === 'error_422', {
    message: 'message is for error_422 only',
    path: ['message'],
  })
  .refine((r) => r.type !== 'latency' || r.latencyMs !== undefined, {
    message: 'latency faults need latencyMs',
  })
  .refine((r) => r.type !== 'rate_limit_storm' || r.durationMs !== undefined || r.count !== undefined, {
    message: 'a rate_limit_storm needs durationMs or count',
  });
export type FaultRuleInput = z.infer<typeof FaultRuleInput>;

export interface FaultRule extends FaultRuleInput {
  id: string;
  createdAt: number;
  /** Simulated time after which the rule no longer fires (from durationMs). */
  expiresAt?: number;
  fired: number;
  /** Matching requests seen (fired or not). */
  matched: number;
}

export interface FaultOutcome {
  /** The fault that decides the answer (anything but latency), if any. */
  rule?: FaultRule;
  /** Real milliseconds to wait before going on (sum of the firing latency rules). */
  delayMs: number;
}

const NO_FAULT: FaultOutcome = { delayMs: 0 };

function globToRegExp(glob: string, segment: string): RegExp {
  let src = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        src += '.*';
        i++;
      } else src += `[^${segment}]*`;
    } else src += ch.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${src}$`);
}

interface CompiledRule {
  rule: FaultRule;
  op?: RegExp;
  path?: RegExp;
  method?: string;
}

export class FaultInjector {
  private rules: CompiledRule[] = [];
  /** Rules that expired or used up their count (kept for the counters). */
  private spent: FaultRule[] = [];
  private readonly random: SeededRandom;
  private readonly clock: Clock;
  private readonly totals = new Map<FaultType, number>();
  private seed: number;

  constructor(seed: number, clock: Clock) {
    this.seed = seed;
    this.random = new SeededRandom(seed);
    this.clock = clock;
  }

  /** True when at least one rule is configured (lets the hot path skip matching). */
  get active(): boolean {
    return this.rules.length > 0;
  }

  add(input: FaultRuleInput): FaultRule {
    const now = this.clock.now();
    const rule: FaultRule = {
      ...input,
      id: `fault_${randomUUID()}`,
      createdAt: now,
      expiresAt: input.durationMs !== undefined ? now + input.durationMs : undefined,
      fired: 0,
      matched: 0,
    };
    this.rules.push({
      rule,
      op: input.operationId ? globToRegExp(input.operationId, '.') : undefined,
      path: input.path ? globToRegExp(input.path, '/') : undefined,
      method: input.method?.toUpperCase(),
    });
    return rule;
  }

  remove(id: string): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((r) => r.rule.id !== id);
    return this.rules.length < before;
  }

  /** Active rules (not yet expired or spent). */
  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r.rule }));
  }

  /** Removes every rule; `seed` restarts the random sequence (default: the current seed). */
  clear(seed?: number): void {
    this.rules = [];
    this.spent = [];
    this.reseed(seed ?? this.seed);
  }

  reseed(seed: number): void {
    this.seed = seed;
    this.random.reseed(seed);
  }

  /** Forgets rules, counters and restarts the random sequence. */
  reset(seed?: number): void {
    this.clear(seed);
    this.totals.clear();
  }

  /** Decides what happens to one request (`sku`: its SKU, if any). Spent and expired rules are dropped. */
  pick(operationId: string, method: string, path: string, sku?: string): FaultOutcome {
    if (this.rules.length === 0) return NO_FAULT;
    const now = this.clock.now();
    let delayMs = 0;
    let decided: FaultRule | undefined;
    let spent = false;
    for (const c of this.rules) {
      const rule = c.rule;
      if (rule.expiresAt !== undefined && now >= rule.expiresAt) {
        spent = true;
        continue;
      }
      if (rule.count !== undefined && rule.fired >= rule.count) continue;
      if (c.op && !c.op.test(operationId)) continue;
      if (c.method && c.method !== method) continue;
      if (c.path && !c.path.test(path)) continue;
      if (rule.sku !== undefined && rule.sku !== sku) continue;
      if (decided && rule.type !== 'latency') continue;
      rule.matched++;
      const p = rule.probability ?? 1;
      if (p < 1 && this.random.next() >= p) continue;
      rule.fired++;
      this.totals.set(rule.type, (this.totals.get(rule.type) ?? 0) + 1);
      if (rule.count !== undefined && rule.fired >= rule.count) spent = true;
      if (rule.type === 'latency') {
        delayMs += (rule.latencyMs ?? 0) + (rule.jitterMs ? this.random.int(0, rule.jitterMs) : 0);
      } else {
        decided = rule;
      }
    }
    if (spent) {
      const keep: CompiledRule[] = [];
      for (const c of this.rules) {
        const r = c.rule;
        const gone =
          (r.expiresAt !== undefined && now >= r.expiresAt) || (r.count !== undefined && r.fired >= r.count);
        if (gone) this.spent.push(r);
        else keep.push(c);
      }
      this.rules = keep;
    }
    return decided || delayMs ? { rule: decided, delayMs } : NO_FAULT;
  }

  /** Simulated ms a storm still lasts (its Retry-After), or its fixed retryAfterMs. */
  stormWaitMs(rule: FaultRule): number {
    if (rule.expiresAt !== undefined) return Math.max(1, rule.expiresAt - this.clock.now());
    return rule.retryAfterMs ?? 1000;
  }

  /** `{ total, byType: { error_500: n, … }, rules: [active…], spent: [expired or used up…] }` */
  counters(): { total: number; byType: Record<string, number>; rules: FaultRule[]; spent: FaultRule[] } {
    const byType = Object.fromEntries(this.totals);
    const total = [...this.totals.values()].reduce((a, b) => a + b, 0);
    return { total, byType, rules: this.list(), spent: this.spent.map((r) => ({ ...r })) };
  }
}
