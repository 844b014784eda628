// credentials.json, the API keys of direct-partner shops (`{ "<credentialRef>": { "baseUrl", "apiKey" } }`,
// mode 0600): the one parser, used by the worker (worker-env.ts) and by the CLI that writes the file
// (cli/src/stores.ts). Client-safe: no worker runtime here.
import { readFileSync } from 'node:fs';
import type { Credential } from '../activities/clients.ts';

export class CredentialsFileError extends Error {
  override name = 'CredentialsFileError';
  /** The parser's error name (e.g. SyntaxError): safe to show, unlike its message. */
  readonly kind: string;
  constructor(path: string, kind: string) {
    super(`${path} is not valid JSON (${kind})`);
    this.kind = kind;
  }
}

/**
 * The file's shops by credential ref. A file that is not JSON fails naming the file and the kind of
 * error, never quoting it (it holds API keys); a missing file fails as readFileSync does.
 */
export function readCredentialsFile<T extends Credential = Credential>(path: string): Record<string, T> {
  const text = readFileSync(path, 'utf8');
  try {
    return JSON.parse(text) as Record<string, T>;
  } catch (e) {
    throw new CredentialsFileError(path, (e as Error).name);
  }
}
