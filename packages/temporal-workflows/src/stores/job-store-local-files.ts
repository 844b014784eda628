// The embedded job store's file primitives (job-store-local.ts): every file appears whole or not at all —
// written under a temporary name, synced, then renamed or hard-linked into place — and a missing file
// reads as "not there" rather than as an error.
import { randomUUID } from 'node:crypto';
import { link, open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** Modes of what the local stores write: only the owner may enter or read (reports hold buyers' data). */
export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;
/** Every temporary name starts with it (readers skip names starting with `.`). */
export const TMP = '.tmp-';

export const isMissing = (error: unknown) => (error as NodeJS.ErrnoException)?.code === 'ENOENT';

/** A catch handler: a missing file or folder gives `fallback()`, any other error is rethrown. */
export const orMissing =
  <T>(fallback: () => T) =>
  (error: unknown): T => {
    if (isMissing(error)) return fallback();
    throw error;
  };

export async function readJson<T>(path: string): Promise<T | undefined> {
  const text = await readFile(path, 'utf8').catch(orMissing(() => undefined));
  return text === undefined ? undefined : (JSON.parse(text) as T);
}

/** Writes `text` to a new file and syncs it to disk (it is renamed or linked into place next). */
export async function writeDurable(path: string, text: string): Promise<void> {
  const file = await open(path, 'wx', PRIVATE_FILE);
  try {
    await file.writeFile(text);
    await file.datasync();
  } finally {
    await file.close();
  }
}

/**
 * Creates `path` holding `text` unless it exists: written whole under a temporary name, then hard-linked
 * into place (a link fails if the name exists), so racing writers agree on one file and a reader never
 * sees half of it. Answers whether this call created it.
 */
export async function createOnce(path: string, text: string, parent: string): Promise<boolean> {
  const tmp = join(parent, `${TMP}${randomUUID()}`);
  try {
    await writeDurable(tmp, text);
    await link(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(tmp, { force: true });
  }
}

export async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  for (let done = 0; done < length;) {
    const { bytesRead } = await file.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`snapshot file ends before byte ${position + length}`);
    done += bytesRead;
  }
  return buffer;
}
