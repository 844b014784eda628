// The rate-limit probe (`--probe-rate-limit` only): the create/full-update group has the smallest
// allowance (200 per 10 s), so it is the cheapest to exhaust. Identical PUTs by SKU of the run's own
// listing (a no-op update) go out in small concurrent batches, bypassing the client's pacing, until the
// first 429 — then the burst stops and the answer's Retry-After and body are read.
import { RATE_LIMITS, RateLimitBody } from '@selling-kit/api-client';
import type { ProbeContext, RawReply } from './context.ts';
import { putBody } from './listing.ts';
import { isSuccess, showReply, type Check, type Probe } from './probe.ts';

const ALLOWANCE = RATE_LIMITS.create_update;
const BATCH = 20;
/** Never more than this many requests, 429 or not. */
const MAX_REQUESTS = ALLOWANCE.limit * 3;

interface Burst {
  accepted: number;
  /** This run's create/full-update requests in the window before the burst. */
  earlier: number;
  limited?: RawReply;
  /** Anything else than 2xx or 429 (the burst stops at once). */
  other?: RawReply;
}

const bursts = new WeakMap<ProbeContext, Burst>();

async function burst(ctx: ProbeContext): Promise<Burst> {
  const sku = ctx.ledger.sku('rate');
  const made = await ctx.upsert(sku, putBody(ctx.template));
  if (!isSuccess(made))
    throw new Error(`the rate-limit test listing could not be created: ${showReply(made)}`);
  const start = Date.now();
  const result: Burst = {
    accepted: 0,
    earlier: ctx.createUpdateSentAt.filter((t) => t > start - ALLOWANCE.windowMs).length,
  };
  const body = JSON.stringify(putBody(ctx.template));
  const path = `/api/v1/products/by-sku/${encodeURIComponent(sku)}/`;
  for (let sent = 0; sent < MAX_REQUESTS && !result.limited && !result.other; sent += BATCH) {
    const replies = await Promise.all(
      Array.from({ length: BATCH }, () => ctx.raw({ method: 'PUT', path, body })),
    );
    for (const r of replies) {
      if (r.status !== undefined && r.status >= 200 && r.status < 300) result.accepted++;
      else if (r.status === 429) result.limited ??= r;
      else result.other ??= r;
    }
  }
  return result;
}

function retryAfterOf(r: RawReply): string | undefined {
  const v = r.headers['retry-after'];
  return Array.isArray(v) ? v[0] : v;
}

export const rateLimitProbes: Probe[] = [
  {
    id: 'ratelimit.retry-after',
    spec: `Create or full update: "${ALLOWANCE.limit} requests per ${ALLOWANCE.windowMs / 1000} seconds" … "the gateway returns 429 and a Retry-After header states the wait."`,
    expected: `429 with Retry-After, after ≥ ${ALLOWANCE.limit} in the window`,
    choice: '',
    unavailable: (ctx) => (ctx.settings.probeRateLimit ? undefined : 'runs with --probe-rate-limit'),
    async run(ctx): Promise<Check> {
      const b = await burst(ctx);
      bursts.set(ctx, b);
      const counted = `${b.accepted} accepted${b.earlier ? ` (+${b.earlier} earlier)` : ''}`;
      if (!b.limited)
        return {
          answer: b.other ? `${showReply(b.other)} after ${counted}` : `no 429 after ${counted}`,
          ok: false,
        };
      const retryAfter = retryAfterOf(b.limited);
      const wait =
        retryAfter === undefined
          ? NaN
          : /^\d+$/.test(retryAfter)
            ? Number(retryAfter)
            : Date.parse(retryAfter);
      return {
        answer: `429 after ${counted}, Retry-After ${retryAfter ?? '(missing)'}`,
        ok: Number.isFinite(wait) && b.accepted + b.earlier >= ALLOWANCE.limit,
      };
    },
  },
  {
    id: 'ratelimit.body-format',
    spec: '"429 responses come from the gateway and use another format." "The body format of 429 responses: not shown."',
    expected: '{message, code: too_many_requests, group, retry_after_ms}',
    choice: 'the 429 body is {message, code: "too_many_requests", group, retry_after_ms} plus Retry-After',
    needs: ['ratelimit.retry-after'],
    unavailable: (ctx) => (ctx.settings.probeRateLimit ? undefined : 'runs with --probe-rate-limit'),
    async run(ctx) {
      const limited = bursts.get(ctx)?.limited;
      if (!limited) return { answer: 'no 429 to read', ok: false };
      const parsed = RateLimitBody.safeParse(limited.json);
      const keys =
        limited.json && typeof limited.json === 'object' ? Object.keys(limited.json).join(', ') : 'not JSON';
      return {
        answer: parsed.success ? `matches (group ${parsed.data.group})` : `differs: keys ${keys}`,
        ok: parsed.success,
      };
    },
  },
];
