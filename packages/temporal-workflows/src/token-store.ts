// A persistent token store for workers: every connected seller's OAuth tokens in one file, sealed with
// AES-256-GCM (the codec's key, or any 32-byte key), written atomically (temp file + rename, mode 0600).
// Rotated refresh tokens are on disk before anything uses them (TokenStore.set is awaited).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { SellerTokens, TokenStore } from './activities/index.ts';

function seal(key: Buffer, plain: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  return Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
}

function open(key: Buffer, sealed: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}

export function createFileTokenStore(path: string, key: Buffer): TokenStore & { refs(): string[] } {
  if (key.length !== 32) throw new Error('the token store key must be 32 bytes (AES-256)');
  const tokens: Record<string, SellerTokens> = existsSync(path)
    ? (JSON.parse(open(key, readFileSync(path))) as Record<string, SellerTokens>)
    : {};
  let writing: Promise<void> = Promise.resolve();
  return {
    get: (ref) => tokens[ref],
    refs: () => Object.keys(tokens),
    set(ref, t) {
      tokens[ref] = t;
      const snapshot = JSON.stringify(tokens);
      writing = writing.then(async () => {
        mkdirSync(dirname(path), { recursive: true });
        const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
        await writeFile(tmp, seal(key, snapshot), { mode: 0o600 });
        await rename(tmp, path);
      });
      return writing;
    },
  };
}
