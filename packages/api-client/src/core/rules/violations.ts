// A broken rule, named by field and rule, with the code the service answers for it. The client throws
// these before sending (LocalValidationError); the simulator answers the first one as its error.
import type { z } from 'zod/v4';
import type { ErrorCode } from '../schemas/errors.ts';

export interface RuleViolation {
  /** Dotted path of the field at fault, e.g. `pictures` or `depop_shipping.address_id`. */
  field: string;
  /** The rule in a few words, e.g. "at most 8 pictures". */
  rule: string;
  code: ErrorCode;
  message: string;
}

export interface RuleOptions {
  /** Minimum percentage below the price for offers and auto-negotiate prices (default 5). */
  minPercentOff?: number;
}

export function violation(field: string, rule: string, code: ErrorCode, message: string): RuleViolation {
  return { field, rule, code, message };
}

/**
 * The code a schema failure answers, by the spec's status classes: 400 "body or parameters could not be
 * parsed", 422 "well-formed but fails validation". A value of the wrong JSON type (a number where a
 * string is expected, an object for a list) cannot be read as the field: 400 `bad-request`. A missing
 * field, or a value of the right type that breaks a rule (length, range, enum, format), is 422 with the
 * spec's code for that limit, else `validation`.
 * SPEC GAP (borderline): `null` for a field counts as a wrong type (400); a malformed value of the right
 * type — money "12,00", an unknown enum value, a bad date inside a body — is 422 `validation`.
 */
function codeForIssue(field: string, issue: z.core.$ZodIssue): ErrorCode {
  if (issue.code === 'invalid_type') {
    const received = receivedType(issue);
    if (received !== undefined && received !== 'undefined') return 'bad-request';
  }
  if (field === 'pictures' && issue.code === 'too_big') return 'too_many_pictures';
  if (field === 'department') return 'invalid_department';
  // SPEC GAP (brand): an empty brand_name names no brand → invalid_brand (see rules/products.ts).
  if (field === 'brand_name' && issue.code === 'too_small') return 'invalid_brand';
  return 'validation';
}

/**
 * The type zod received for an `invalid_type` issue. Issues carry no input unless parsed with
 * `reportInput`, but zod's message names the received type ("… expected string, received number").
 */
function receivedType(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== 'invalid_type') return undefined;
  if (issue.input !== undefined) return issue.input === null ? 'null' : typeof issue.input;
  return /received (\w+)$/.exec(issue.message)?.[1];
}

/** "a string", "an object", "null". */
const aType = (type: string) =>
  ['null', 'undefined', 'NaN'].includes(type) ? type : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;

function ruleForIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type': {
      const received = receivedType(issue);
      return received === undefined || received === 'undefined' ? 'required' : `must be ${issue.expected}`;
    }
    case 'too_big':
      return `at most ${String(issue.maximum)}${issue.origin === 'array' ? ' items' : issue.origin === 'string' ? ' characters' : ''}`;
    case 'too_small':
      return `at least ${String(issue.minimum)}${issue.origin === 'array' ? ' items' : issue.origin === 'string' ? ' characters' : ''}`;
    case 'invalid_value':
      return `one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      return `valid ${issue.format}`;
    default:
      return issue.code;
  }
}

/** zod issues → violations (field path, rule in words, the service's code). */
export function violationsFromZod(error: z.ZodError, prefix = ''): RuleViolation[] {
  return error.issues.map((issue) => {
    const field = [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || '(body)';
    const rule = ruleForIssue(issue);
    const received = receivedType(issue);
    const message =
      rule === 'required'
        ? 'is required'
        : received !== undefined && issue.code === 'invalid_type'
          ? `expected ${aType(issue.expected)}, received ${aType(received)}`
          : issue.message;
    return violation(field, rule, codeForIssue(field, issue), `${field}: ${message}`);
  });
}
