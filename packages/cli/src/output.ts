// Output for people (stdout lines, progress on stderr) or for scripts (`--json`: one JSON document on
// stdout, nothing else there). Errors go to stderr as text, or as {"error": {...}} with --json.
import { printable } from '@selling-kit/temporal-workflows';
import { CliError } from './errors.ts';

export interface Output {
  json: boolean;
  /** The command's result: printed as JSON with --json, else with `human`. */
  result(data: unknown, human: () => string | string[]): void;
  /** A note for people (stderr); silent with --json. */
  info(message: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(data, human) {
      if (json) process.stdout.write(JSON.stringify(data, null, 2) + '\n');
      else {
        const text = human();
        process.stdout.write((Array.isArray(text) ? text.join('\n') : text) + '\n');
      }
    },
    info(message) {
      if (!json) process.stderr.write(message + '\n');
    },
  };
}

/**
 * Prints an error for people (stderr) and, with --json, for scripts (stdout). Every message goes through
 * `printableText`: an error may quote a feed's bytes, which must never reach the terminal raw.
 */
export function printError(error: unknown, json: boolean): number {
  if (error instanceof CliError) {
    const message = printableText(error.message);
    const hint = error.hint === undefined ? undefined : printableText(error.hint);
    if (json)
      process.stdout.write(JSON.stringify({ error: { code: error.code, message, hint } }, null, 2) + '\n');
    process.stderr.write(`error: ${message}\n${hint ? `hint: ${hint}\n` : ''}`);
    return error.exitCode;
  }
  const message = printableText(error instanceof Error ? (error.stack ?? error.message) : String(error));
  if (json)
    process.stdout.write(
      JSON.stringify({ error: { code: 'unexpected', message: printableText(String(error)) } }) + '\n',
    );
  process.stderr.write(`unexpected error: ${message}\n`);
  return 1;
}

/** Text safe for a terminal, line by line (the feed package's rules: controls and invisibles escaped). */
export const printableText = (text: string) =>
  text
    .split('\n')
    .map((line) => printable(line, Infinity))
    .join('\n');

/** A plain text table (no dependency: a few columns, padded); cells may quote a feed, so made printable. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => printable(String(r[c] ?? ''), Infinity)));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}

export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0s';
  const s = Math.round(ms / 1000);
  return s < 60
    ? `${s}s`
    : s < 3600
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
      : `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
