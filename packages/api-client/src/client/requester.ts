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

/** One call's state across its attempts (Requester.call and its phases). */
interface Run<T> {
  call: Call<T>;
  op: Operation;
  auth: AuthProvider | undefined;
  options: RequestOptions;
  signal: AbortSignal | undefined;
  requestId: string;
  maxRetries: number;
  /** When the call's total time is up (its clock). */
  deadline: number;
  url: string;
  body?: string;
  contentType?: string;
  /** What every log line of the call carries. */
  base: { requestId: string; operationId: string; method: string; path: string };
  scrub: (text: string) => string;
  log: ((e: LogEventInput) => void) | undefined;
  pacingKey: PacingKey | undefined;
  attempt: number;
  retries: number;
  rateRetries: number;
  notFoundRetries: number;
  replayedAfter401: boolean;
  lastError: SellingApiError | undefined;
}

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

  /**
   * One call: a loop of attempts, each paced, authorised, sent and judged (the spec's retries, a 401's
   * refresh and replay, a 404 right after a create, 429s, unknown outcomes verified). Its phases below
   * share the call's `Run`.
   */
  async call<T>(call: Call<T>): Promise<T> {
    const run = this.openRun(call);
    for (;;) {
      if (run.signal?.aborted) this.fail(run, new RequestAbortedError(undefined, run.signal.reason));
      run.attempt++;
      await this.pace(run);
      const authorization = await this.authorize(run);
      const headers = this.attemptHeaders(run, authorization);
      const sent = await this.sendOnce(run, headers);
      if ('decision' in sent) {
        const found = await this.settleFailure(run, sent.decision);
        if (found) return found.value;
        continue;
      }
      const { res, started } = sent;
      if (isSuccess(res.status)) {
        this.logResponse(run, res, started, () => parseBody(res.body));
        return this.readSuccess<T>(call, res, run.base);
      }
      const parsed = parseBody(res.body);
      const retryAfterMs =
        res.status === 429 ? parseRetryAfter(res.headers, parsed, this.config.now()) : undefined;
      const error = errorFromResponse(res.status, parsed, {
        operationId: run.op.id,
        requestId: run.requestId,
        oauth: run.op.id === 'auth.token',
        scrub: run.scrub,
        retryAfterMs,
      });
      run.lastError = error;
      this.logResponse(run, res, started, () => parsed, error);
      if (await this.tryAgainAfter(run, error, res.status, authorization, retryAfterMs)) continue;
      const found = await this.settleFailure(run, this.decisionFor(run, res.status, error));
      if (found) return found.value;
    }
  }

  /** The call's state across its attempts, its limits and what its log lines carry. */
  private openRun<T>(call: Call<T>): Run<T> {
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
    const requestId = randomUUID();
    const url = buildUrl(cfg.baseUrl, op.path, call.pathParams, call.query);
    const callSecrets = call.form ? secretFormValues(call.form) : [];
    return {
      call,
      op,
      auth,
      options,
      signal: options.signal,
      requestId,
      maxRetries: options.maxRetries ?? cfg.retry.maxRetries,
      deadline: cfg.now() + (options.totalTimeoutMs ?? cfg.totalTimeoutMs),
      url,
      ...serialise(call),
      base: { requestId, operationId: op.id, method: op.method, path: url.slice(this.baseLength) },
      scrub: callSecrets.length ? (t: string) => scrubValues(this.scrub(t), callSecrets) : this.scrub,
      log: cfg.logger ? (e: LogEventInput) => this.emit(e) : undefined,
      pacingKey:
        cfg.pacer && op.group && auth
          ? { identity: auth.identity, group: op.group, app: auth.app }
          : undefined,
      attempt: 0,
      retries: 0,
      rateRetries: 0,
      notFoundRetries: 0,
      replayedAfter401: false,
      lastError: undefined,
    };
  }

  private fail(run: Run<unknown>, error: SellingApiError): never {
    error.attempts = run.attempt;
    error.operationId ??= run.op.id;
    error.requestId ??= run.requestId;
    throw error;
  }

  private async sleepOrFail(run: Run<unknown>, ms: number): Promise<void> {
    if (ms <= 0) return;
    try {
      await this.config.sleep(ms, run.signal);
    } catch (e) {
      this.fail(run, e instanceof SellingApiError ? e : new RequestAbortedError(undefined, e));
    }
  }

  private remaining(run: Run<unknown>): number {
    return run.deadline - this.config.now();
  }

  /** Pacing: waits for a free slot in the credential's window for this group (and the app's). */
  private async pace(run: Run<unknown>): Promise<void> {
    const key = run.pacingKey;
    if (!key) return;
    for (;;) {
      const acquired = this.config.pacer!.acquire(key, this.config.now());
      const waitMs = typeof acquired === 'number' ? acquired : await acquired;
      if (waitMs <= 0) return;
      // Longer than this call may wait (a window used up, or paused after a 429 with a long
      // Retry-After): say so as a rate limit with its wait, not as a timeout. Nothing was sent.
      if (waitMs >= this.remaining(run))
        this.fail(
          run,
          run.lastError ??
            new RateLimitedError({
              code: 'too_many_requests',
              message: `${run.op.id} was not sent: the ${key.group} allowance of this credential is used up or paused for another ${Math.ceil(waitMs / 1000)} s, longer than the call may wait`,
              retryAfterMs: waitMs,
              group: key.group,
              operationId: run.op.id,
              requestId: run.requestId,
            }),
        );
      run.log?.({ type: 'pacing', level: 'debug', ...run.base, group: key.group, waitMs });
      await this.sleepOrFail(run, waitMs);
    }
  }

  /**
   * The Authorization header, read after the pacing wait: a token refreshed meanwhile is the one sent. A
   * failure here (a seller to re-authorise) gives the slot just taken back before it surfaces.
   */
  private async authorize(run: Run<unknown>): Promise<string | undefined> {
    try {
      return run.op.auth === 'bearer' && run.auth ? await run.auth.authorization() : undefined;
    } catch (e) {
      if (run.pacingKey) await this.release(run.pacingKey);
      throw e;
    }
  }

  private attemptHeaders(run: Run<unknown>, authorization: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.config.headers,
      ...run.options.headers,
      [REQUEST_ID_HEADER]: run.requestId,
    };
    if (run.contentType) headers['content-type'] = run.contentType;
    if (authorization) headers.authorization = authorization;
    return headers;
  }

  /**
   * One attempt on the wire, within what is left of the call's time: the response, or what a transport
   * failure means (sent again when it did not leave or is safe to repeat, else an unknown outcome).
   */
  private async sendOnce(
    run: Run<unknown>,
    headers: Record<string, string>,
  ): Promise<{ res: TransportResponse; started: number } | { decision: Decision }> {
    const cfg = this.config;
    const timeoutMs = Math.min(run.options.timeoutMs ?? cfg.timeoutMs, this.remaining(run));
    if (timeoutMs <= 0) {
      if (run.pacingKey) await this.release(run.pacingKey);
      this.fail(
        run,
        run.lastError ??
          new TransportError({
            kind: 'timeout',
            requestSent: false,
            message: `${run.op.id} did not complete within its total time limit`,
          }),
      );
    }
    run.log?.({
      type: 'request',
      level: 'debug',
      ...run.base,
      attempt: run.attempt,
      ...(cfg.debug
        ? { headers: redactHeaders(headers), body: debugValue(this.debugBody(run.call), run.scrub) }
        : {}),
    });
    const started = cfg.now();
    try {
      const res = await cfg.transport.send({
        method: run.op.method,
        url: run.url,
        headers,
        body: run.body,
        signal: run.signal,
        timeoutMs,
      });
      if (run.pacingKey) await this.release(run.pacingKey);
      return { res, started };
    } catch (e) {
      if (run.pacingKey) await this.release(run.pacingKey);
      const error = toTransportError(e, run.signal, run.scrub);
      if (error instanceof RequestAbortedError) this.fail(run, error);
      run.log?.({
        type: 'transport_error',
        level: 'warn',
        ...run.base,
        attempt: run.attempt,
        durationMs: cfg.now() - started,
        kind: error.kind,
        message: error.message,
      });
      run.lastError = error;
      return {
        decision:
          !error.requestSent || run.op.idempotent || run.call.retryUnknownOutcome
            ? { kind: 'retry', reason: 'network', error }
            : { kind: 'unknown', error },
      };
    }
  }

  private logResponse(
    run: Run<unknown>,
    res: TransportResponse,
    started: number,
    parsed: () => unknown,
    error?: SellingApiError,
  ): void {
    if (!run.log) return;
    const debug = this.config.debug
      ? { headers: redactHeaders(res.headers), body: debugValue(parsed(), run.scrub) }
      : {};
    run.log({
      type: 'response',
      level: !error ? 'debug' : res.status >= 500 ? 'error' : 'warn',
      ...run.base,
      attempt: run.attempt,
      status: res.status,
      durationMs: this.config.now() - started,
      ...(error ? { errorId: error.errorId, code: error.code } : {}),
      ...debug,
    });
  }

  /**
   * The answers the same request is sent again after, without counting a retry: a 401 (one refresh,
   * single-flight in the provider, and one replay), a 404 right after a create (the listing may not be
   * readable yet: the spec's status table), a 429 (the gateway did not process it: wait as told, slow
   * down). True when the loop goes on; throws when the call must stop.
   */
  private async tryAgainAfter(
    run: Run<unknown>,
    error: SellingApiError,
    status: number,
    authorization: string | undefined,
    retryAfterMs: number | undefined,
  ): Promise<boolean> {
    const cfg = this.config;
    const retryLog = (reason: string, level: 'info' | 'warn', delayMs: number) =>
      run.log?.({
        type: 'retry',
        level,
        ...run.base,
        attempt: run.attempt,
        reason,
        delayMs,
        status,
        ...(reason === 'unauthorized' ? {} : { errorId: error.errorId }),
      } as LogEventInput);
    if (
      error instanceof UnauthorizedError &&
      !(error instanceof PartnerAccessDeniedError) &&
      authorization &&
      run.auth?.unauthorized &&
      !run.replayedAfter401
    ) {
      run.replayedAfter401 = true;
      if (await run.auth.unauthorized(authorization)) {
        retryLog('unauthorized', 'info', 0);
        return true;
      }
    }
    const delays = run.call.notFoundRetryDelays;
    if (error instanceof ProductNotFoundError && delays && run.notFoundRetries < delays.length) {
      const delayMs = delays[run.notFoundRetries++]!;
      if (delayMs >= this.remaining(run)) this.fail(run, error);
      retryLog('not_found_after_create', 'info', delayMs);
      await this.sleepOrFail(run, delayMs);
      return true;
    }
    if (error instanceof RateLimitedError) {
      const waitMs = retryAfterMs ?? backoffDelay(run.rateRetries, cfg.retry, cfg.random);
      if (run.pacingKey)
        await cfg.pacer!.penalize(
          run.pacingKey,
          error.group === 'app_wide' ? 'app' : 'group',
          waitMs,
          cfg.now(),
        );
      if (
        run.rateRetries >= cfg.retry.maxRateLimitRetries ||
        waitMs > cfg.retry.maxRetryAfterMs ||
        waitMs >= this.remaining(run)
      )
        this.fail(run, error);
      run.rateRetries++;
      retryLog('rate_limited', 'warn', waitMs);
      await this.sleepOrFail(run, waitMs);
      return true;
    }
    return false;
  }

  /** A 5xx is retried; a 504 of a call that is not safe to repeat has an unknown outcome; else it fails. */
  private decisionFor(run: Run<unknown>, status: number, error: SellingApiError): Decision {
    if (status === 504)
      return run.op.idempotent || run.call.retryUnknownOutcome
        ? { kind: 'retry', reason: 'gateway_timeout', error }
        : { kind: 'unknown', error };
    if (status >= 500) return { kind: 'retry', reason: 'server_error', error };
    return this.fail(run, error);
  }

  /**
   * After a retryable failure or an unknown outcome: the call's value when a verification found it;
   * undefined when the loop goes on (one more retry counted); throws when it must stop.
   */
  private async settleFailure<T>(run: Run<T>, decision: Decision): Promise<{ value: T } | undefined> {
    const out = await this.afterFailure(run.call, decision, {
      attempt: run.attempt,
      retries: run.retries,
      maxRetries: run.maxRetries,
      base: run.base,
      signal: run.signal,
      remaining: () => this.remaining(run),
    });
    if (out.done) return { value: out.value };
    if (out.fail) this.fail(run, out.fail);
    run.retries++;
    return undefined;
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
