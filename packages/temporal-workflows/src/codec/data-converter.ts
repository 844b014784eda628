// The data converter shared by workers and clients: the payload codec when encryption is on, and the
// failure converter that puts failure messages through it (failure-converter.cjs).
import { fileURLToPath } from 'node:url';
import type { DataConverter, PayloadCodec } from '@temporalio/common';

/** Loaded by path, as the SDK wants (also bundled into the workflow code by worker.ts). */
export const failureConverterPath = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));

/** For `new Client({ dataConverter })` and `Worker.create({ dataConverter })`. */
export const dataConverter = (codec?: PayloadCodec): DataConverter => ({
  failureConverterPath,
  ...(codec ? { payloadCodecs: [codec] } : {}),
});
