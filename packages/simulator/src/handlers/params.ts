// Reading what a request carries — its JSON body and its query parameters — in one place with one
// message style, so every list and every body answers alike:
// - a query parameter that cannot be read → 400 bad-request
//   `query parameter "<name>" is not valid ("<value>"): accepted values are <…>` (the spec's errors
//   section: "400, message names accepted values");
// - a body that does not match its schema → as the core maps it (rules/violations.ts: 400 for a body or a
//   value of the wrong JSON type, 422 with the limit's code for a missing field or a broken limit),
//   `invalid <schema>: field "<path>": <problem>; …`.
// The server parses each operation's body with the operation table's schema (server.ts); the admin
// surface and seed documents use `parseInput`, which lists every problem the same way.
import type { z } from 'zod/v4';
import * as core from '@selling-kit/api-client/core';
import { IsoDateTime, violationsFromZod, type RuleViolation } from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';

/** Each core value by its export name: a schema's name is the one the OpenAPI document gives it. */
const CORE_NAMES = new Map<unknown, string>(Object.entries(core).map(([name, value]) => [value, name]));

/** Longest part of a rejected value repeated in a message (a path or query may be 4 KiB long). */
const SHOWN_VALUE_LENGTH = 60;

/** `field "<path>": <problem>` for each violation, joined with "; ". */
export function describeViolations(violations: readonly RuleViolation[]): string {
  return violations
    .map(
      (v) =>
        `field "${v.field}": ${v.rule === 'required' ? 'is required' : v.message.replace(`${v.field}: `, '')}`,
    )
    .join('; ');
}

/**
 * Validates a JSON body with a core schema. Failures answer as the core maps them (rules/violations.ts):
 * 400 bad-request when the body is not a JSON object or a value has the wrong JSON type, else 422 with
 * the limit's code (usually `validation`), naming each field and rule (at most five).
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, name: string): z.infer<T> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body))
    throw apiError('bad-request', `the request body must be a JSON object (${name})`);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const violations = violationsFromZod(result.error);
  const unreadable = violations.filter((v) => v.code === 'bad-request');
  const shown = (unreadable.length ? unreadable : violations).slice(0, 5);
  throw apiError(shown[0]!.code, `invalid ${name}: ${describeViolations(shown)}`);
}

/** Parses an operation's body with its table schema, named in messages as the core names it. */
export function parseOperationBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  return parseBody(schema, body, CORE_NAMES.get(schema) ?? 'request body');
}

/**
 * Validates an input of the simulator's own (an admin request, a seed document; an absent body is `{}`):
 * 400 bad-request naming every problem.
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown, name = 'request'): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw apiError('bad-request', `invalid ${name}: ${describeViolations(violationsFromZod(result.error))}`);
}

// --- query parameters ------------------------------------------------------------------------------

/** The 400 for a query parameter that cannot be read, naming what it accepts. */
export function invalidParam(name: string, raw: string, accepted: string): never {
  throw apiError(
    'bad-request',
    `query parameter "${name}" is not valid ("${raw.slice(0, SHOWN_VALUE_LENGTH)}"): accepted values are ${accepted}`,
  );
}

/** One query parameter as a string; repeated → 400. */
export function queryParam(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw apiError('bad-request', `query parameter "${name}" must be given once`);
  return value;
}

/** A page size: an integer from 1 to `max`; absent → `fallback`. */
export function limitParam(query: Record<string, unknown>, fallback: number, max: number): number {
  const raw = queryParam(query, 'limit');
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > max)
    invalidParam('limit', raw, `integers between 1 and ${max} (1 to ${max} items a page)`);
  return n;
}

/** An ISO 8601 date-time (the core's `IsoDateTime`, as the list's query schema declares it) → ms. */
export function dateParam(query: Record<string, unknown>, name: string): number | undefined {
  const raw = queryParam(query, name);
  if (raw === undefined) return undefined;
  if (!IsoDateTime.safeParse(raw).success)
    invalidParam(name, raw, 'ISO 8601 date-times such as 2026-01-31T12:00:00Z');
  return Date.parse(raw);
}

/**
 * A created-date window: two optional inclusive bounds; a start later than the end cannot match anything
 * and is refused as a rule (422 validation), not as unreadable.
 */
export function dateRangeParams(
  query: Record<string, unknown>,
  fromName: string,
  toName: string,
): { from?: number; to?: number } {
  const from = dateParam(query, fromName);
  const to = dateParam(query, toName);
  if (from !== undefined && to !== undefined && from > to)
    throw apiError('validation', `query parameter "${fromName}" must not be later than "${toName}"`);
  return { from, to };
}

/** One of `allowed`; absent → `fallback`. */
export function enumParam<T extends string>(
  query: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = queryParam(query, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) invalidParam(name, raw, allowed.join(', '));
  return raw as T;
}

/** `true` or `false`; absent → false. */
export function flagParam(query: Record<string, unknown>, name: string): boolean {
  return enumParam(query, name, ['true', 'false'], 'false') === 'true';
}

/** A positive whole number (as JavaScript reads a number); absent → `fallback`. */
export function positiveIntParam(query: Record<string, unknown>, name: string, fallback: number): number {
  const raw = queryParam(query, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) invalidParam(name, raw, 'positive integers');
  return n;
}

/** The 400 for a list cursor that does not decode: it is opaque, so the only advice is to pass it back. */
export function invalidCursor(advice = ''): never {
  throw apiError(
    'bad-request',
    `query parameter "cursor" is not valid: pass meta.cursor from the previous page unchanged${advice}`,
  );
}
