// What the HTTP edge reads off a request before (or instead of) routing it: its path without the query,
// whether it is the token endpoint's, and the size limits every request is held to (414, 431).
import type { FastifyRequest } from 'fastify';
import { GRANT_ENDPOINT_PATH } from '@selling-kit/api-client/core';
import type { SimulatorConfig } from '../config.ts';
import { ApiError } from '../errors.ts';

/** Largest request head (request line + headers) Node's parser accepts; beyond it → 431 from the parser. */
export const MAX_HEAD_BYTES = 1024 * 1024;
/** SPEC GAP: largest total of header names and values the simulator serves; beyond it → 431. */
export const MAX_HEADER_BYTES = 64 * 1024;
/** Longest path segment a route matches (an SKU is at most 50 characters); longer → 414. */
export const MAX_SEGMENT_LENGTH = 500;

export const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};

/** Whether the request is the token endpoint's (its failures leave in the OAuth format). */
export function isTokenRequest(req: FastifyRequest): boolean {
  return pathOf(req.url) === GRANT_ENDPOINT_PATH;
}

function headerBytes(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i++) n += raw[i]!.length;
  return n;
}

export function longestSegment(path: string): number {
  let longest = 0;
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i === path.length || path.charCodeAt(i) === 47 /* / */) {
      longest = Math.max(longest, i - start);
      start = i + 1;
    }
  }
  return longest;
}

/** 414 for long URLs, 431 for oversize headers (checked before anything else). */
export function checkRequestSize(req: FastifyRequest, config: SimulatorConfig): void {
  if (req.url.length > config.maxUrlLength) {
    throw new ApiError(414, 'generic_error', `the request URL exceeds ${config.maxUrlLength} characters`);
  }
  if (headerBytes(req.raw.rawHeaders) > MAX_HEADER_BYTES) {
    throw new ApiError(431, 'generic_error', `the request headers exceed ${MAX_HEADER_BYTES} bytes`);
  }
}
