// Errors the simulator answers with. Handlers throw; the server turns them into the wire formats.
import { ERROR_CODES, type ErrorCode } from '@selling-kit/api-client/core';

/** A service error: `{ id, errors: [{ code, message }] }` with `status`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Builds an ApiError with the code's documented status unless one is given. */
export function apiError(code: ErrorCode, message: string, status?: number): ApiError {
  return new ApiError(status ?? ERROR_CODES[code], code, message);
}

/** The token endpoint's own format: `{ code, error, message, detail, id }`. */
export class OAuthError extends Error {
  readonly status: number;
  readonly error: string;
  readonly detail: string;
  constructor(status: number, error: string, detail: string) {
    super(detail);
    this.status = status;
    this.error = error;
    this.detail = detail;
  }
}
