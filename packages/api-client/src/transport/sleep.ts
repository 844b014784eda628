// Node's sleep for the client runtime: setTimeout, cancelled by an AbortSignal.
import { RequestAbortedError } from '../core/errors.ts';
import type { Sleep } from '../core/transport.ts';

export const nodeSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new RequestAbortedError(undefined, signal.reason));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new RequestAbortedError(undefined, signal?.reason));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
