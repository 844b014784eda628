// The worker's codec on a shared client keyring (client-keys-watch.ts): the codec's checks look client
// keys up synchronously in the worker's copy, so a key issued on another host since the last read would
// be refused — and a refused start is final for that job. This codec notes the client ids a decode did
// not find; when there are some, it has the copy read again (rate-limited) and, if one of them is now
// known, decodes again: the first job a new key starts is accepted on every worker. The refusal warnings
// of the first attempt are held back until it is known which attempt stands (AsyncLocalStorage: each
// decode's own, however many run at once). Before the keyring has ever been read (the database down
// since the worker started), a payload naming a client key fails its workflow task — retried by Temporal
// until the keyring reads — rather than being refused for good.
import { AsyncLocalStorage } from 'node:async_hooks';
import { AesGcmCodec, type CodecKeyring } from '../codec/codec.ts';
import type { ClientAuthMode } from './payload-checks.ts';
import type { WatchedClientKeys } from './client-keys-watch.ts';

interface Attempt {
  missed: Set<string>;
  warnings: string[];
}

export class KeyringCodec extends AesGcmCodec {
  private readonly keyring: WatchedClientKeys;
  private readonly attempts: AsyncLocalStorage<Attempt>;
  private readonly warnNow: (message: string) => void;

  constructor(
    ring: CodecKeyring,
    keyring: WatchedClientKeys,
    options: { clientAuth?: ClientAuthMode; warn?: (message: string) => void } = {},
  ) {
    const attempts = new AsyncLocalStorage<Attempt>();
    const warn = options.warn ?? console.warn;
    super(ring, {
      clientKeys: (id) => {
        const record = keyring.get(id);
        if (!record) attempts.getStore()?.missed.add(id);
        return record;
      },
      clientAuth: options.clientAuth,
      warn: (message) => {
        const attempt = attempts.getStore();
        if (attempt) attempt.warnings.push(message);
        else warn(message);
      },
    });
    this.keyring = keyring;
    this.attempts = attempts;
    this.warnNow = warn;
  }

  private async attempt(args: Parameters<AesGcmCodec['decode']>) {
    const attempt: Attempt = { missed: new Set(), warnings: [] };
    const payloads = await this.attempts.run(attempt, () => super.decode(...args));
    return { payloads, ...attempt };
  }

  override async decode(...args: Parameters<AesGcmCodec['decode']>): ReturnType<AesGcmCodec['decode']> {
    let result = await this.attempt(args);
    if (result.missed.size) {
      const found = await this.keyring.refreshForUnknown(result.missed);
      if (found) result = await this.attempt(args);
      else if (!this.keyring.loaded)
        throw new Error(
          `the client keyring has not been read yet (${this.keyring.lastError ?? 'still reading'}): ` +
            'this task is retried once it can be',
        );
    }
    for (const message of result.warnings) this.warnNow(message);
    return result.payloads;
  }
}
