// The logging hook: one plain object per event, secrets already redacted. In debug mode request and
// response events also carry headers and bodies (redacted). A logger that throws never breaks a call.

interface EventBase {
  /** Epoch ms (the client's clock). */
  time: number;
  level: 'debug' | 'info' | 'warn' | 'error';
  /** The client's id for the logical call (sent as X-Request-Id); shared by its attempts and retries. */
  requestId: string;
  operationId: string;
  method: string;
  /** Path with its query string; no credentials are ever part of it. */
  path: string;
}

export interface RequestEvent extends EventBase {
  type: 'request';
  attempt: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface ResponseEvent extends EventBase {
  type: 'response';
  attempt: number;
  status: number;
  durationMs: number;
  /** The error response's `id`. */
  errorId?: string;
  code?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface TransportErrorEvent extends EventBase {
  type: 'transport_error';
  attempt: number;
  durationMs: number;
  kind: string;
  message: string;
}

export interface RetryEvent extends EventBase {
  type: 'retry';
  /** The attempt that failed. */
  attempt: number;
  reason:
    | 'rate_limited'
    | 'server_error'
    | 'gateway_timeout'
    | 'network'
    | 'unauthorized'
    | 'verified_absent'
    | 'not_found_after_create';
  delayMs: number;
  status?: number;
  errorId?: string;
}

export interface PacingEvent extends EventBase {
  type: 'pacing';
  group: string;
  waitMs: number;
}

export interface VerifyEvent extends EventBase {
  type: 'verify';
  /** found = the create had taken effect; absent = confirmed missing after every check. */
  outcome: 'found' | 'absent';
  checks: number;
}

export interface ResponseInvalidEvent extends EventBase {
  type: 'response_invalid';
  issues: string[];
}

export interface TokenRefreshEvent {
  type: 'token_refresh';
  time: number;
  level: 'info' | 'error';
  identity: string;
  ok: boolean;
  durationMs: number;
  code?: string;
  errorId?: string;
}

export type LogEvent =
  | RequestEvent
  | ResponseEvent
  | TransportErrorEvent
  | RetryEvent
  | PacingEvent
  | VerifyEvent
  | ResponseInvalidEvent
  | TokenRefreshEvent;

export type Logger = (event: LogEvent) => void;

/** A logger writing one JSON line per event through `write` (e.g. `console.error`). */
export function jsonLineLogger(write: (line: string) => void): Logger {
  return (event) => write(JSON.stringify(event));
}

/** A log event before the pipeline stamps its time. */
export type LogEventInput = LogEvent extends infer E ? (E extends LogEvent ? Omit<E, 'time'> : never) : never;
