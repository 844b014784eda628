// The dev n8n's owner account and public-API key, kept in <home>/dev/n8n-owner.json (mode 0600). The
// password is generated on the first run (and printed that once); the API key is never printed.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface N8nOwner {
  email: string;
  password: string;
  apiKey?: string;
}

export const OWNER_EMAIL = 'owner@selling-kit.test';

/** The stored owner, or a new one (`created`: the caller prints its password once). */
export function loadOrCreateOwner(file: string): { owner: N8nOwner; created: boolean } {
  if (existsSync(file)) {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as N8nOwner;
    if (owner.email && owner.password) return { owner, created: false };
  }
  // n8n's rules: 8+ characters, a digit and an upper-case letter.
  const owner: N8nOwner = { email: OWNER_EMAIL, password: `Sk-${randomBytes(9).toString('base64url')}-7Q` };
  saveOwner(file, owner);
  return { owner, created: true };
}

export function saveOwner(file: string, owner: N8nOwner): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(owner, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
}
