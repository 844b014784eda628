// One error hierarchy for every way a call can fail, and the mapping from a wire answer to it.
//
//   SellingApiError                      status, code, message, errorId, retryable, operationId
//   ├─ BadRequestError                   400, 413, 414 and any other 4xx without its own class
//   ├─ UnauthorizedError                 401 unauthorized
//   │  └─ PartnerAccessDeniedError       401 partner_access_denied
//   ├─ InsufficientScopeError            403 insufficient_scope (scopes named in the message)
//   ├─ NotFoundError                     404
//   │  ├─ ProductNotFoundError           product_not_found
//   │  ├─ PurchaseNotFoundError          purchase_id_not_found
//   │  └─ ParcelNotFoundError            parcel_id_not_found
//   ├─ ConflictError                     409
//   ├─ ValidationError                   422 family (and rule 4's duplicate SKU)
//   │  └─ LocalValidationError           caught before sending: `violations`
//   ├─ RateLimitedError                  429 from the gateway: `retryAfterMs`
//   ├─ ServerError                       5xx
//   ├─ OutcomeUnknownError               504 / timeout of a non-idempotent call: may have happened
//   ├─ OAuthError                        the token endpoint's own format
//   │  └─ ReauthorizationRequiredError   invalid_grant: the seller must connect again
//   └─ TransportError                    no HTTP answer (network, timeout, abort)
//      └─ RequestAbortedError            the caller's AbortSignal fired
//
// Transport-free and n8n-safe: no Node built-ins.
import { ERROR_CODES } from './schemas/errors.ts';
import type { RuleViolation } from './rules/violations.ts';

export interface SellingApiErrorInit {
  status?: number;
  code: string;
  message: string;
  errorId?: string;
  retryable?: boolean;
  operationId?: string;
  requestId?: string;
  cause?: unknown;
}

export class SellingApiError extends Error {
  /** HTTP status; undefined when no answer came back (transport, local validation). */
  readonly status: number | undefined;
  /** The service's error code (`errors[0].code`), the OAuth `error`, or a client code. */
  readonly code: string;
  /** The error response's `id`, for tracing with the marketplace. Always kept when present. */
  readonly errorId: string | undefined;
  /** Whether repeating the same call may succeed (5xx, 429, network). */
  readonly retryable: boolean;
  /** Operation id from the operation table (`products.create`), when known. */
  operationId: string | undefined;
  /** The client's id for the logical call (also sent as `X-Request-Id`). */
  requestId: string | undefined;
  /** Attempts made before giving up (1 = no retry). */
  attempts = 1;

  constructor(init: SellingApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.errorId = init.errorId;
    this.retryable = init.retryable ?? false;
    this.operationId = init.operationId;
    this.requestId = init.requestId;
  }

  /** What `JSON.stringify(error)` shows: identifiers and the (already redacted) message only. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      status: this.status,
      code: this.code,
      message: this.message,
      errorId: this.errorId,
      retryable: this.retryable,
      operationId: this.operationId,
      requestId: this.requestId,
      attempts: this.attempts,
    };
  }
}

export class BadRequestError extends SellingApiError {}
export class UnauthorizedError extends SellingApiError {}
export class PartnerAccessDeniedError extends UnauthorizedError {}

export class InsufficientScopeError extends SellingApiError {
  /** The scope(s) the message names; the seller must re-authorise with them. */
  readonly scopes: string[];
  constructor(init: SellingApiErrorInit & { scopes?: string[] }) {
    super(init);
    this.scopes = init.scopes ?? scopesInMessage(init.message);
  }
  override toJSON() {
    return { ...super.toJSON(), scopes: this.scopes };
  }
}

export class NotFoundError extends SellingApiError {}
export class ProductNotFoundError extends NotFoundError {}
export class PurchaseNotFoundError extends NotFoundError {}
export class ParcelNotFoundError extends NotFoundError {}
export class ConflictError extends SellingApiError {}

export class ValidationError extends SellingApiError {
  /** The field at fault, when known (always for local validation). */
  readonly field: string | undefined;
  /** The rule broken, when known (always for local validation). */
  readonly rule: string | undefined;
  constructor(init: SellingApiErrorInit & { field?: string; rule?: string }) {
    super(init);
    this.field = init.field;
    this.rule = init.rule;
  }
  override toJSON() {
    return { ...super.toJSON(), field: this.field, rule: this.rule };
  }
}

/** Thrown before anything is sent: the request breaks one of the spec's rules or limits. */
export class LocalValidationError extends ValidationError {
  readonly violations: RuleViolation[];
  constructor(violations: RuleViolation[], operationId?: string) {
    const first = violations[0] ?? {
      field: '(body)',
      rule: 'unknown',
      code: 'validation',
      message: 'invalid',
    };
    const more = violations.length > 1 ? ` (+${violations.length - 1} more)` : '';
    super({
      code: first.code,
      message: `${first.message} [${first.field}: ${first.rule}]${more}`,
      field: first.field,
      rule: first.rule,
      operationId,
    });
    this.violations = violations;
  }
  override toJSON() {
    return { ...super.toJSON(), violations: this.violations };
  }
}

export class RateLimitedError extends SellingApiError {
  /** How long the gateway asked to wait, in milliseconds (body `retry_after_ms`, else Retry-After). */
  readonly retryAfterMs: number | undefined;
  /** The rate group the gateway named (`create_update`, `general`, `insights`, `app_wide`). */
  readonly group: string | undefined;
  constructor(init: SellingApiErrorInit & { retryAfterMs?: number; group?: string }) {
    super({ retryable: true, ...init });
    this.retryAfterMs = init.retryAfterMs;
    this.group = init.group;
  }
  override toJSON() {
    return { ...super.toJSON(), retryAfterMs: this.retryAfterMs, group: this.group };
  }
}

export class ServerError extends SellingApiError {}

/**
 * A non-idempotent call (create, refund, offer…) got a 504 or timed out after the request left: it may
 * or may not have taken effect. Verify before repeating it.
 */
export class OutcomeUnknownError extends SellingApiError {
  constructor(init: Omit<SellingApiErrorInit, 'code'> & { code?: string }) {
    super({ ...init, code: init.code ?? 'outcome_unknown', retryable: false });
  }
}

/** The token endpoint's error format: `{ code, error, message, detail, id }`. */
export class OAuthError extends SellingApiError {
  /** The OAuth `error` value (`invalid_grant`, `invalid_request`, …). */
  readonly error: string;
  constructor(init: SellingApiErrorInit) {
    super(init);
    this.error = init.code;
  }
}

/** The refresh token (or code) was refused: the seller must authorise the application again. */
export class ReauthorizationRequiredError extends OAuthError {}

export type TransportErrorKind = 'timeout' | 'network' | 'aborted';

export class TransportError extends SellingApiError {
  readonly kind: TransportErrorKind;
  /**
   * false only when the request certainly never reached the server (connection refused, DNS), so a
   * non-idempotent call may be repeated safely.
   */
  readonly requestSent: boolean;
  constructor(init: {
    kind: TransportErrorKind;
    message: string;
    requestSent?: boolean;
    code?: string;
    cause?: unknown;
  }) {
    super({
      code: init.code ?? init.kind,
      message: init.message,
      retryable: init.kind !== 'aborted',
      cause: init.cause,
    });
    this.kind = init.kind;
    this.requestSent = init.requestSent ?? true;
  }
  override toJSON() {
    return { ...super.toJSON(), kind: this.kind, requestSent: this.requestSent };
  }
}

export class RequestAbortedError extends TransportError {
  constructor(message = 'the request was aborted', cause?: unknown) {
    super({ kind: 'aborted', message, cause });
  }
}

const SCOPE_IN_TEXT = /\b([a-z]+_(?:read|write))\b/g;

/** `missing required scope(s): offers_write, shop_read` → `['offers_write', 'shop_read']`. */
export function scopesInMessage(message: string): string[] {
  return [...new Set([...message.matchAll(SCOPE_IN_TEXT)].map((m) => m[1]!))];
}

export interface ErrorContext {
  operationId?: string;
  requestId?: string;
  /** The token endpoint answers in the OAuth format. */
  oauth?: boolean;
  /** Replaces known secrets in server-provided text. */
  scrub?: (text: string) => string;
  /** Wait parsed from the answer (see parseRetryAfter). */
  retryAfterMs?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

type ErrorClass = new (init: SellingApiErrorInit) => SellingApiError;

/** The codes with a class of their own (below 500, but 429). */
const CLASS_BY_CODE: ReadonlyMap<string, ErrorClass> = new Map<string, ErrorClass>([
  ['unauthorized', UnauthorizedError],
  ['partner_access_denied', PartnerAccessDeniedError],
  ['insufficient_scope', InsufficientScopeError],
  ['product_not_found', ProductNotFoundError],
  ['purchase_id_not_found', PurchaseNotFoundError],
  ['parcel_id_not_found', ParcelNotFoundError],
  ['product_has_active_offers', ConflictError],
]);

/** The class of any other code, by status. */
const CLASS_BY_STATUS: ReadonlyMap<number, ErrorClass> = new Map<number, ErrorClass>([
  [401, UnauthorizedError],
  [403, InsufficientScopeError],
  [404, NotFoundError],
  [409, ConflictError],
  [422, ValidationError],
]);

/**
 * Maps an error answer (status + parsed JSON body, or the raw text) to the hierarchy. Known codes pick
 * their class; unknown codes fall back to the status class. The error id is always kept.
 */
export function errorFromResponse(status: number, body: unknown, ctx: ErrorContext = {}): SellingApiError {
  const scrub = ctx.scrub ?? ((t: string) => t);
  const base = { status, operationId: ctx.operationId, requestId: ctx.requestId };
  const b = isObject(body) ? body : undefined;

  // The token endpoint: { code, error, message, detail, error_description, id }.
  if (ctx.oauth && b && typeof b.error === 'string') {
    const error = b.error;
    const message = scrub(
      str(b.detail) ?? str(b.error_description) ?? str(b.error_message) ?? str(b.message) ?? error,
    );
    const init = { ...base, code: error, message, errorId: str(b.id), retryable: status >= 500 };
    return error === 'invalid_grant' ? new ReauthorizationRequiredError(init) : new OAuthError(init);
  }

  let code: string | undefined;
  let message: string | undefined;
  let errorId: string | undefined;
  let group: string | undefined;
  let retryAfterMs = ctx.retryAfterMs;
  if (b) {
    errorId = str(b.id);
    const first = Array.isArray(b.errors) && isObject(b.errors[0]) ? b.errors[0] : undefined;
    if (first) {
      code = str(first.code);
      message = str(first.message);
    } else {
      // The gateway's 429 body: { message, code: 'too_many_requests', group, retry_after_ms }.
      code = str(b.code);
      message = str(b.message);
      group = str(b.group);
      if (retryAfterMs === undefined && typeof b.retry_after_ms === 'number') retryAfterMs = b.retry_after_ms;
    }
  } else if (typeof body === 'string' && body.trim()) {
    message = body.trim().slice(0, 200);
  }
  code ??= status === 429 ? 'too_many_requests' : `http_${status}`;
  message = scrub(message || `HTTP ${status}`);
  const init = { ...base, code, message, errorId };

  // The status class decides first: a 429 is a rate limit and a 5xx a server error whatever code they
  // carry (a 5xx saying product_not_found must stay retryable); codes refine the 4xx classes.
  if (status === 429) return new RateLimitedError({ ...init, retryAfterMs, group });
  if (status >= 500) return new ServerError({ ...init, retryable: true });
  const ErrorClass = CLASS_BY_CODE.get(code) ?? CLASS_BY_STATUS.get(status);
  if (ErrorClass) return new ErrorClass(init);
  // A documented 422 code sent with another status still reads as validation.
  if ((ERROR_CODES as Record<string, number>)[code] === 422) return new ValidationError(init);
  return new BadRequestError(init);
}
