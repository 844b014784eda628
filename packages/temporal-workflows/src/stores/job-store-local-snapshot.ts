// A snapshot of the embedded job store (job-store-local.ts) being written: records.ndjson and index.bin
// (Float64 LE byte offsets, so any range of records is one positioned read) streamed into a temporary
// folder, which commit renames into place with meta.json — the first commit wins.
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { SnapshotMeta, SnapshotWriter } from './job-store.ts';
import { PRIVATE_FILE, readJson, writeDurable } from './job-store-local-files.ts';

export const RECORDS = 'records.ndjson';
export const INDEX = 'index.bin';
export const META = 'meta.json';
/** Bytes of one index entry (a Float64 byte offset). */
export const OFFSET_BYTES = 8;

export /** A snapshot written into `tmp`, published as `target` by commit. */
function snapshotWriter(tmp: string, target: string): SnapshotWriter {
  // flush: each file is fsynced when it closes, before the directory is renamed into place.
  const records = createWriteStream(join(tmp, RECORDS), { flush: true, mode: PRIVATE_FILE });
  const index = createWriteStream(join(tmp, INDEX), { flush: true, mode: PRIVATE_FILE });
  let position = 0;
  let count = 0;
  let closed = false;
  const write = async (stream: WriteStream, data: string | Buffer) => {
    if (!stream.write(data)) await once(stream, 'drain');
  };
  const first = Buffer.alloc(OFFSET_BYTES); // offset 0: where the first record starts
  index.write(first);
  // An error surfaces on the next append or commit (not as an unhandled 'error' event).
  let failed: unknown;
  for (const s of [records, index]) s.on('error', (e) => (failed ??= e));
  const check = () => {
    if (failed) throw failed;
    if (closed) throw new Error('the snapshot writer was already committed or aborted');
  };

  return {
    async append(batch) {
      check();
      if (batch.length === 0) return;
      const offsets = Buffer.alloc(batch.length * OFFSET_BYTES);
      let text = '';
      batch.forEach((record, i) => {
        const line = `${record}\n`;
        text += line;
        position += Buffer.byteLength(line);
        offsets.writeDoubleLE(position, i * OFFSET_BYTES);
      });
      count += batch.length;
      await write(records, text);
      await write(index, offsets);
      check();
    },

    async commit(meta) {
      check();
      closed = true;
      try {
        if (meta.total !== count)
          throw new Error(`snapshot meta says ${meta.total} records, ${count} were appended`);
        records.end();
        index.end();
        await Promise.all([finished(records), finished(index)]);
        if (failed) throw failed;
        const own = snapshotMeta(meta);
        await writeDurable(join(tmp, META), JSON.stringify(own, null, 2) + '\n');
        try {
          await rename(tmp, target);
          return own;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
          // Another attempt committed first: its snapshot is the job's.
          const winner = await readJson<SnapshotMeta>(join(target, META));
          if (!winner) throw error;
          return snapshotMeta(winner);
        }
      } finally {
        records.destroy();
        index.destroy();
        await rm(tmp, { recursive: true, force: true });
      }
    },

    async abort() {
      closed = true;
      records.destroy();
      index.destroy();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** The meta a snapshot keeps (only its own fields, whatever the caller's object carries). */
export const snapshotMeta = ({ source, format, sha256, total }: SnapshotMeta): SnapshotMeta => ({
  source,
  format,
  sha256,
  total,
});
