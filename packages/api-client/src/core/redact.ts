// Secret redaction for log events and error messages: credentials never leave the client in text.
// Two layers: fields and headers that carry secrets by name, and a scrub of every known secret value
// (API key, tokens, client secret) wherever it appears in free text. Transport-free and n8n-safe.

export const REDACTED = '[redacted]';

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key)$/i;
// Exact names, and any name ending in _token / _secret / _key / password (webhook_secret, shop_api_key…).
const SECRET_FIELD =
  /^(token|secret|password|apikey|api_key|code|code_verifier|authorization)$|(^|[_-])(token|secret|api_?key|password)$/i;
/**
 * Credential-shaped words, scrubbed even when the scrubber was not told about them: the simulator's
 * (and the public examples') API keys and tokens carry these prefixes.
 */
const CREDENTIAL_SHAPE = /\b(pak|pat|prt|sk|whsec)_[A-Za-z0-9_-]{8,}/g;

/** Keeps the auth scheme (`Bearer [redacted]`) so logs still show which kind was sent. */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (SECRET_HEADER.test(name)) {
      const scheme = /^(\w+)\s/.exec(text)?.[1];
      out[name] = scheme ? `${scheme} ${REDACTED}` : REDACTED;
    } else out[name] = text;
  }
  return out;
}

/** Deep copy with secret-named fields replaced. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_FIELD.test(k) && v !== undefined && v !== null ? REDACTED : redactValue(v, depth + 1);
  }
  return out;
}

/** A form-encoded body with its secret fields replaced. */
export function redactForm(body: string): string {
  const params = new URLSearchParams(body);
  for (const name of [...params.keys()]) if (SECRET_FIELD.test(name)) params.set(name, REDACTED);
  return params.toString();
}

/** The values of a form's secret-named fields (code, code_verifier, refresh_token, client_secret…). */
export function secretFormValues(form: Record<string, string>): string[] {
  return Object.entries(form)
    .filter(([name]) => SECRET_FIELD.test(name))
    .map(([, value]) => value);
}

/** Replaces each of `secrets` (6+ characters) in `text`. */
export function scrubValues(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 6 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** Known secret values, scrubbed out of any text. Values shorter than 6 characters are ignored. */
export class SecretScrubber {
  private readonly sources: (() => readonly (string | undefined)[])[] = [];

  /** Registers a function returning the current secrets (tokens rotate, so it is asked each time). */
  add(source: () => readonly (string | undefined)[]): void {
    this.sources.push(source);
  }

  scrub = (text: string): string => {
    let out = text;
    for (const source of this.sources) out = scrubValues(out, source());
    return out.replace(CREDENTIAL_SHAPE, REDACTED);
  };
}
