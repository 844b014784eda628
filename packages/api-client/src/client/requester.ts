// The one request function every resource goes through: local validation → pacing → auth → send →
// map the answer → retry per the spec's table. Transport-free and n8n-safe: the network, the clock,
// sleeping and randomness are injected.
//
// The spec's retry table, as implemented here:
//   400/403/404/409/414/422 → never retried.
//   401 unauthorized        → with a refreshable credential: one refresh (single-flight), one replay.
//   429                     → wait Retry-After (the gateway body's exact ms when present), slow the
//                             group down, retry (any call: a 429 was not processed).
//   500/502/503             → exponential backoff with full jitter, bounded.
//   504, timeouts           → idempotent calls: backoff and retry. Non-idempotent calls: the outcome
//                             is unknown; verify (products.create: GET by SKU) and repeat only when
//                             confirmed absent, else OutcomeUnknownError.
//   network, not sent       → backoff and retry (connection refused never reached the server).
import { randomUUID } from 'node:crypto';
import type { z } from 'zod/v4';
import {
  OutcomeUnknownError,
  PartnerAccessDeniedError,
  ProductNotFoundError,
  RateLimitedError,
  RequestAbortedError,
  SellingApiError,
  TransportError,
  UnauthorizedError,
  errorFromResponse,
  LocalValidationError,
} from '../core/errors.ts';
import type { Operation } from '../core/operations.ts';
import {
  buildUrl,
  encodeQuery,
  parseBody,
  parseRetryAfter,
  REQUEST_ID_HEADER,
  type QueryValue,
} from '../core/request.ts';
import {
  redactForm,
  redactHeaders,
  redactValue,
  scrubValues,
  secretFormValues,
  type SecretScrubber,
} from '../core/redact.ts';
import type { Sleep, Transport, TransportResponse } from '../core/transport.ts';
import { validateOperation, type ValidationContext } from '../core/validate.ts';
import type { RuleOptions, RuleViolation } from '../core/rules/violations.ts';
import { backoffDelay, type RetryOptions } from './backoff.ts';
import type { AuthProvider } from './credentials.ts';
import type { LogEvent, LogEventInput, Logger } from './logging.ts';
import type { Pacer, PacingKey } from './pacing.ts';

/** Per-call overrides. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Time limit of each attempt, ms. */
  timeoutMs?: number;
  /** Time limit of the whole call (attempts, waits, verification), ms. */
  totalTimeoutMs?: number;
  /** Overrides `retry.maxRetries` for this call. */
  maxRetries?: number;
  /** false skips local pre-validation for this call. */
  validate?: boolean;
  /** Extra headers (lower-case names win over the client's). */
  headers?: Record<string, string>;
}

export interface VerifyContext {
  signal?: AbortSignal;
  sleep: Sleep;
  requestId: string;
}

export type VerifyOutcome<T> = { found: true; value: T; checks: number } | { found: false; checks: number };

export interface Call<T> {
  op: Operation;
  pathParams?: Record<string, string | number>;
  query?: Record<string, QueryValue>;
  /** JSON body. */
  body?: unknown;
  /** Form body (the token endpoint). */
  form?: Record<string, string>;
  options?: RequestOptions;
  /** Response schema (default: the operation's). */
  response?: z.ZodType<T>;
  /** What the caller knows for the context-dependent rules (current prices, the product, the order). */
  context?: ValidationContext;
  /** Extra local checks, run with the schema and rule checks. */
  rules?: () => RuleViolation[];
  /** For non-idempotent calls whose outcome is unknown: look for the effect. */
  verify?: (ctx: VerifyContext) => Promise<VerifyOutcome<T>>;
  /** Waits before re-trying a product_not_found (the key belongs to a listing created moments ago). */
  notFoundRetryDelays?: number[];
  /** Treat an unknown outcome as retryable (the token endpoint: a repeat cannot make things worse). */
  retryUnknownOutcome?: boolean;
  /** Credential for this call (default: the client's). */
  auth?: AuthProvider;
}

export interface RequesterConfig {
  baseUrl: string;
  transport: Transport;
  sleep: Sleep;
  now: () => number;
  random: () => number;
  retry: RetryOptions;
  timeoutMs: number;
  totalTimeoutMs: number;
  validate: boolean;
  /** Options of the spec's rules (minimum percentage off). */
  ruleOptions: RuleOptions;
  strictResponses: boolean;
  pacer: Pacer | undefined;
  logger: Logger | undefined;
  debug: boolean;
  headers: Record<string, string>;
  scrubber: SecretScrubber;
}

type Decision =
  | { kind: 'retry'; reason: 'server_error' | 'gateway_timeout' | 'network'; error: SellingApiError }
  | { kind: 'unknown'; error: SellingApiError };

const isSuccess = (status: number) => status >= 200 && status < 300;

export class Requester {
  readonly config: RequesterConfig;
  readonly auth: AuthProvider | undefined;
  /** Replaces the client's and this credential's secrets in any text. */
  readonly scrub: (text: string) => string;
  private readonly baseLength: number;

  constructor(config: RequesterConfig, auth: AuthProvider | undefined) {
    this.config = config;
    this.auth = auth;
    this.baseLength = config.baseUrl.replace(/\/+$/, '').length;
    const base = config.scrubber.scrub;
    this.scrub = auth ? (text) => scrubValues(base(text), auth.secrets()) : base;
  }

  /** Same settings and shared pacer, another credential. */
  withAuth(auth: AuthProvider | undefined): Requester {
    return new Requester(this.config, auth);
  }

  /** Validation only: throws LocalValidationError when the call breaks a rule or a limit. */
  preflight(call: Call<unknown>): void {
    if (!(call.options?.validate ?? this.config.validate)) return;
    const violations = validateOperation(
      call.op,
      { pathParams: call.pathParams, query: call.query, body: call.body },
      { ...this.config.ruleOptions, ...call.context },
    );
    if (call.rules) violations.push(...call.rules());
    if (violations.length) throw new LocalValidationError(violations, call.op.id);
  }

  // eslint-disable-next-line max-lines-per-function, complexity -- over the house's limit: to be split (issue 25)
  async call<T>(call: Call<T>): Promise<T> {
    this.preflight(call as Call<unknown>);
    const cfg = this.config;
    const { op } = call;
    const auth = call.auth ?? this.auth;
    if (op.auth === 'bearer' && !auth) {
      throw new SellingApiError({
        code: 'no_credential',
        message: `${op.id} needs a credential: pass apiKey, oauth or auth to the client`,
        operationId: op.id,
      });
    }
    const options = call.options ?? {};
    const signal = options.signal;
    const requestId = randomUUID();
    const maxRetries = options.maxRetries ?? cfg.retry.maxRetries;
    const deadline = cfg.now() + (options.totalTimeoutMs ?? cfg.totalTimeoutMs);
    const url = buildUrl(cfg.baseUrl, op.path, call.pathParams, call.query);
    const path = url.slice(this.baseLength);
    const { body, contentType } = serialise(call);
    const base = { requestId, operationId: op.id, method: op.method, path };
    const callSecrets = call.form ? secretFormValues(call.form) : [];
    const scrub = callSecrets.length ? (t: string) => scrubValues(this.scrub(t), callSecrets) : this.scrub;
    const log = cfg.logger ? (e: LogEventInput) => this.emit(e) : undefined;

    let attempt = 0;
    let retries = 0;
    let rateRetries = 0;
    let notFoundRetries = 0;
    let replayedAfter401 = false;
    let lastError: SellingApiError | undefined;
    const pacingKey: PacingKey | undefined =
      cfg.pacer && op.group && auth ? { identity: auth.identity, group: op.group, app: auth.app } : undefined;

    const fail = (error: SellingApiError): never => {
      error.attempts = attempt;
      error.operationId ??= op.id;
      error.requestId ??= requestId;
      throw error;
    };
    const sleepOrFail = async (ms: number) => {
      if (ms <= 0) return;
      try {
        await cfg.sleep(ms, signal);
      } catch (e) {
        fail(e instanceof SellingApiError ? e : new RequestAbortedError(undefined, e));
      }
    };
    const remaining = () => deadline - cfg.now();
    /**
     * After a retryable failure or an unknown outcome: the call's value when a verification found it;
     * undefined when the loop goes on (one more retry counted); throws when it must stop.
     */
    const settleFailure = async (decision: Decision): Promise<{ value: T } | undefined> => {
      const out = await this.afterFailure(call, decision, {
        attempt,
        retries,
        maxRetries,
        base,
        signal,
        remaining,
      });
      if (out.done) return { value: out.value };
      if (out.fail) fail(out.fail);
      retries++;
      return undefined;
    };
    const deadlineError = () =>
      lastError ??
      new TransportError({
        kind: 'timeout',
        requestSent: false,
        message: `${op.id} did not complete within its total time limit`,
      });

    for (;;) {
      if (signal?.aborted) fail(new RequestAbortedError(undefined, signal.reason));
      attempt++;

      // Pacing: wait for a free slot in the credential's window for this group (and the app's).
      if (pacingKey) {
        for (;;) {
          const acquired = cfg.pacer!.acquire(pacingKey, cfg.now());
          const waitMs = typeof acquired === 'number' ? acquired : await acquired;
          if (waitMs <= 0) break;
          // Longer than this call may wait (a window used up, or paused after a 429 with a long
          // Retry-After): say so as a rate limit with its wait, not as a timeout. Nothing was sent.
          if (waitMs >= remaining())
            fail(
              lastError ??
                new RateLimitedError({
                  code: 'too_many_requests',
                  message: `${op.id} was not sent: the ${pacingKey.group} allowance of this credential is used up or paused for another ${Math.ceil(waitMs / 1000)} s, longer than the call may wait`,
                  retryAfterMs: waitMs,
                  group: pacingKey.group,
                  operationId: op.id,
                  requestId,
                }),
            );
          log?.({ type: 'pacing', level: 'debug', ...base, group: pacingKey.group, waitMs });
          await sleepOrFail(waitMs);
        }
      }

      // Read after the pacing wait: a token refreshed meanwhile is the one sent. A failure here (a
      // seller to re-authorise) gives the slot just taken back before it surfaces.
      let authorization: string | undefined;
      try {
        authorization = op.auth === 'bearer' && auth ? await auth.authorization() : undefined;
      } catch (e) {
        if (pacingKey) await this.release(pacingKey);
        throw e;
      }
      const headers: Record<string, string> = {
        accept: 'application/json',
        ...cfg.headers,
        ...options.headers,
        [REQUEST_ID_HEADER]: requestId,
      };
      if (contentType) headers['content-type'] = contentType;
      if (authorization) headers.authorization = authorization;
      const attemptTimeout = Math.min(options.timeoutMs ?? cfg.timeoutMs, remaining());
      if (attemptTimeout <= 0) {
        if (pacingKey) await this.release(pacingKey);
        fail(deadlineError());
      }

      log?.({
        type: 'request',
        level: 'debug',
        ...base,
        attempt,
        ...(cfg.debug
          ? { headers: redactHeaders(headers), body: debugValue(this.debugBody(call), scrub) }
          : {}),
      });
      const started = cfg.now();
      let res: TransportResponse;
      let decision: Decision;
      try {
        res = await cfg.transport.send({
          method: op.method,
          url,
          headers,
          body,
          signal,
          timeoutMs: attemptTimeout,
        });
        if (pacingKey) await this.release(pacingKey);
      } catch (e) {
        if (pacingKey) await this.release(pacingKey);
        const error = toTransportError(e, signal, scrub);
        if (error instanceof RequestAbortedError) fail(error);
        log?.({
          type: 'transport_error',
          level: 'warn',
          ...base,
          attempt,
          durationMs: cfg.now() - started,
          kind: error.kind,
          message: error.message,
        });
        lastError = error;
        decision =
          !error.requestSent || op.idempotent || call.retryUnknownOutcome
            ? { kind: 'retry', reason: 'network', error }
            : { kind: 'unknown', error };
        const found = await settleFailure(decision);
        if (found) return found.value;
        continue;
      }

      const status = res.status;
      if (isSuccess(status)) {
        log?.({
          type: 'response',
          level: 'debug',
          ...base,
          attempt,
          status,
          durationMs: cfg.now() - started,
          ...(cfg.debug
            ? { headers: redactHeaders(res.headers), body: debugValue(parseBody(res.body), scrub) }
            : {}),
        });
        return this.readSuccess<T>(call, res, base);
      }

      const parsed = parseBody(res.body);
      const retryAfterMs = status === 429 ? parseRetryAfter(res.headers, parsed, cfg.now()) : undefined;
      const error = errorFromResponse(status, parsed, {
        operationId: op.id,
        requestId,
        oauth: op.id === 'auth.token',
        scrub: scrub,
        retryAfterMs,
      });
      lastError = error;
      log?.({
        type: 'response',
        level: status >= 500 ? 'error' : 'warn',
        ...base,
        attempt,
        status,
        durationMs: cfg.now() - started,
        errorId: error.errorId,
        code: error.code,
        ...(cfg.debug
          ? {
              headers: redactHeaders(res.headers),
              body: debugValue(parsed, scrub),
            }
          : {}),
      });

      // 401: one refresh (single-flight in the provider) and one replay.
      if (
        error instanceof UnauthorizedError &&
        !(error instanceof PartnerAccessDeniedError) &&
        authorization &&
        auth?.unauthorized &&
        !replayedAfter401
      ) {
        replayedAfter401 = true;
        if (await auth.unauthorized(authorization)) {
          log?.({
            type: 'retry',
            level: 'info',
            ...base,
            attempt,
            reason: 'unauthorized',
            delayMs: 0,
            status,
          });
          continue;
        }
      }

      // 404 right after a create: the listing may not be readable yet (spec's status table).
      if (
        error instanceof ProductNotFoundError &&
        call.notFoundRetryDelays &&
        notFoundRetries < call.notFoundRetryDelays.length
      ) {
        const delayMs = call.notFoundRetryDelays[notFoundRetries++]!;
        if (delayMs >= remaining()) fail(error);
        log?.({
          type: 'retry',
          level: 'info',
          ...base,
          attempt,
          reason: 'not_found_after_create',
          delayMs,
          status,
          errorId: error.errorId,
        });
        await sleepOrFail(delayMs);
        continue;
      }

      // 429: the gateway did not process it; wait as told, slow down, try again.
      if (error instanceof RateLimitedError) {
        const waitMs = retryAfterMs ?? backoffDelay(rateRetries, cfg.retry, cfg.random);
        if (pacingKey) {
          await cfg.pacer!.penalize(
            pacingKey,
            error.group === 'app_wide' ? 'app' : 'group',
            waitMs,
            cfg.now(),
          );
        }
        if (
          rateRetries >= cfg.retry.maxRateLimitRetries ||
          waitMs > cfg.retry.maxRetryAfterMs ||
          waitMs >= remaining()
        ) {
          fail(error);
        }
        rateRetries++;
        log?.({
          type: 'retry',
          level: 'warn',
          ...base,
          attempt,
          reason: 'rate_limited',
          delayMs: waitMs,
          status,
          errorId: error.errorId,
        });
        await sleepOrFail(waitMs);
        continue;
      }

      if (status === 504) {
        decision =
          op.idempotent || call.retryUnknownOutcome
            ? { kind: 'retry', reason: 'gateway_timeout', error }
            : { kind: 'unknown', error };
      } else if (status >= 500) {
        decision = { kind: 'retry', reason: 'server_error', error };
      } else {
        return fail(error);
      }
      const found = await settleFailure(decision);
      if (found) return found.value;
    }
  }

  private release(key: PacingKey): void | Promise<void> {
    return this.config.pacer?.release(key, this.config.now());
  }

  /** Decides what follows a retryable failure or an unknown outcome; sleeps the backoff. */
  private async afterFailure<T>(
    call: Call<T>,
    decision: Decision,
    s: {
      attempt: number;
      retries: number;
      maxRetries: number;
      base: { requestId: string; operationId: string; method: string; path: string };
      signal: AbortSignal | undefined;
      remaining: () => number;
    },
  ): Promise<{ done: true; value: T } | { done: false; fail?: SellingApiError }> {
    const cfg = this.config;
    const { error } = decision;
    const log = cfg.logger ? (e: LogEventInput) => this.emit(e) : undefined;
    if (decision.kind === 'unknown') {
      const unknown = () =>
        new OutcomeUnknownError({
          status: error.status,
          message:
            `${call.op.id} may or may not have taken effect (${error.status === 504 ? 'gateway timeout' : error.message}); ` +
            'verify before repeating it',
          errorId: error.errorId,
          cause: error,
        });
      if (!call.verify) return { done: false, fail: unknown() };
      let outcome: VerifyOutcome<T>;
      try {
        outcome = await call.verify({ signal: s.signal, sleep: cfg.sleep, requestId: s.base.requestId });
      } catch (e) {
        if (e instanceof RequestAbortedError) return { done: false, fail: e };
        return { done: false, fail: unknown() };
      }
      log?.({
        type: 'verify',
        level: 'info',
        ...s.base,
        outcome: outcome.found ? 'found' : 'absent',
        checks: outcome.checks,
      });
      if (outcome.found) return { done: true, value: outcome.value };
      // Confirmed absent: repeating cannot duplicate.
      if (s.retries >= s.maxRetries || s.remaining() <= 0) return { done: false, fail: error };
      log?.({
        type: 'retry',
        level: 'warn',
        ...s.base,
        attempt: s.attempt,
        reason: 'verified_absent',
        delayMs: 0,
        status: error.status,
        errorId: error.errorId,
      });
      return { done: false };
    }
    if (s.retries >= s.maxRetries) return { done: false, fail: error };
    const delayMs = backoffDelay(s.retries, cfg.retry, cfg.random);
    if (delayMs >= s.remaining()) return { done: false, fail: error };
    log?.({
      type: 'retry',
      level: 'warn',
      ...s.base,
      attempt: s.attempt,
      reason: decision.reason,
      delayMs,
      status: error.status,
      errorId: error.errorId,
    });
    if (delayMs > 0) {
      try {
        await cfg.sleep(delayMs, s.signal);
      } catch (e) {
        return {
          done: false,
          fail: e instanceof SellingApiError ? e : new RequestAbortedError(undefined, e),
        };
      }
    }
    return { done: false };
  }

  private readSuccess<T>(
    call: Call<T>,
    res: TransportResponse,
    base: { requestId: string; operationId: string; method: string; path: string },
  ): T {
    const value = parseBody(res.body);
    const schema = call.response ?? (call.op.response as z.ZodType<T> | undefined);
    if (!schema || value === undefined) return value as T;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
    if (this.config.strictResponses) {
      throw new SellingApiError({
        status: res.status,
        code: 'invalid_response',
        message: `the ${call.op.id} answer does not match its schema: ${issues[0]}`,
        operationId: call.op.id,
        requestId: base.requestId,
      });
    }
    if (this.config.logger) this.emit({ type: 'response_invalid', level: 'warn', ...base, issues });
    return value as T;
  }

  private debugBody(call: Call<unknown>): unknown {
    if (call.form) return redactForm(new URLSearchParams(call.form).toString());
    return call.body === undefined ? undefined : redactValue(call.body);
  }

  emit(event: LogEventInput): void {
    const logger = this.config.logger;
    if (!logger) return;
    try {
      logger({ time: this.config.now(), ...event } as LogEvent);
    } catch {
      // A failing logger must not fail the call.
    }
  }
}

/** Secret-named fields replaced, then every known secret value scrubbed from what is left. */
function debugValue(value: unknown, scrub: (t: string) => string): unknown {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return scrub(value);
  return JSON.parse(scrub(JSON.stringify(redactValue(value)))) as unknown;
}

function serialise(call: Call<unknown>): { body?: string; contentType?: string } {
  if (call.form)
    return { body: encodeQuery(call.form).slice(1), contentType: 'application/x-www-form-urlencoded' };
  if (call.body !== undefined) return { body: JSON.stringify(call.body), contentType: 'application/json' };
  return {};
}

function toTransportError(
  e: unknown,
  signal: AbortSignal | undefined,
  scrub: (t: string) => string,
): TransportError {
  if (e instanceof TransportError) return e;
  if (signal?.aborted) return new RequestAbortedError(undefined, e);
  const message = e instanceof Error ? e.message : String(e);
  return new TransportError({ kind: 'network', message: scrub(message), cause: e });
}
