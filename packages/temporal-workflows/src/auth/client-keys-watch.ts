// The worker's copy of a shared (PostgreSQL) client keyring: the codec looks keys up synchronously
// (payload-checks.ts ClientKeyLookup), so the worker keeps the records in memory and re-reads the table
// every KEYRING_REFRESH_MS — a key retired on any host is refused by every worker within that long — and
// at once (at most once per KEYRING_MISS_REFRESH_MS) when a payload names an id it does not know: a key
// issued a moment ago on another host works on the first job it starts (keyring-codec.ts decodes again).
// A read that fails keeps the last good copy (one warning, and one when it reads again); a row that does
// not open is left out with a warning naming its id (once, until it changes); a key seen retired stays
// retired in this process even if the table later shows it active (an older copy of its row put back).
import { setTimeout as delay } from 'node:timers/promises';
import { unopenedRowWarning } from './client-key-seal.ts';
import type { ClientKeyRecord } from './client-keys.ts';

/** How often a worker re-reads a shared keyring: the longest a retired key may still be accepted. */
export const KEYRING_REFRESH_MS = 5_000;
/** Unknown ids trigger at most one extra read per this long (a flood of made-up ids never floods the database). */
export const KEYRING_MISS_REFRESH_MS = 1_000;

/** What is watched: a reader of every record that opens and of the ids of rows that do not. */
export interface ClientKeySource {
  location: string;
  read(): Promise<{ records: ClientKeyRecord[]; unopened: string[] }>;
}

export interface WatchedClientKeys {
  /** The record of `id` in the last good copy. */
  get(id: string): ClientKeyRecord | undefined;
  /**
   * Reads again soon (rate-limited, shared by concurrent callers) because a payload named `ids`: true when
   * one of them is known afterwards.
   */
  refreshForUnknown(ids: Iterable<string>): Promise<boolean>;
  /** Whether a read has ever succeeded (before that, every client key is unknown). */
  readonly loaded: boolean;
  /** The first read (never rejects: a failure is warned). */
  readonly ready: Promise<void>;
  /** The last read's error while no read has succeeded, for a message. */
  readonly lastError: string | undefined;
  /** Stops the periodic read. */
  stop(): void;
}

export interface WatchOptions {
  /** Problems: unreadable table, rows that do not open (default console.warn). */
  warn?: (message: string) => void;
  /** Changes seen: keys added, retired, removed (default console.log). */
  note?: (message: string) => void;
  /** Default KEYRING_REFRESH_MS (tests). */
  refreshMs?: number;
}

export function watchClientKeys(source: ClientKeySource, options: WatchOptions = {}): WatchedClientKeys {
  const warn = options.warn ?? console.warn;
  const note = options.note ?? console.log;
  const where = source.location;
  let byId = new Map<string, ClientKeyRecord>();
  /** Retirements seen by this process: kept whatever a later read says. */
  const retiredSeen = new Map<string, string>();
  let unopened = new Set<string>();
  let loaded = false;
  let failing: string | undefined;
  let inFlight: Promise<void> | undefined;
  let lastStarted = 0;

  const apply = (records: ClientKeyRecord[], unopenedNow: string[]) => {
    const next = new Map<string, ClientKeyRecord>();
    for (const r of records) {
      const kept = retiredSeen.get(r.id);
      if (kept && !r.retiredAt)
        warn(
          `client keyring ${where}: client key ${r.id} shows as active again after it was retired on ${kept} ` +
            '(an older copy of its row?): it stays retired in this worker',
        );
      const record = kept && !r.retiredAt ? { ...r, retiredAt: kept } : r;
      if (record.retiredAt) retiredSeen.set(record.id, record.retiredAt);
      next.set(record.id, record);
    }
    for (const id of unopenedNow) if (!unopened.has(id)) warn(unopenedRowWarning(id, where));
    if (loaded) {
      const changes: string[] = [];
      for (const [id, r] of next) {
        const before = byId.get(id);
        if (!before) changes.push(`${id} added`);
        else if (r.retiredAt && !before.retiredAt) changes.push(`${id} retired`);
        else if (before.key !== r.key) changes.push(`${id} replaced`);
      }
      for (const id of byId.keys()) if (!next.has(id)) changes.push(`${id} removed`);
      if (changes.length) note(`client keyring ${where}: ${changes.join(', ')}`);
    } else note(`client keyring ${where}: ${next.size} key(s) read`);
    byId = next;
    unopened = new Set(unopenedNow);
    loaded = true;
  };

  const readNow = async () => {
    lastStarted = Date.now();
    try {
      const { records, unopened: bad } = await source.read();
      apply(records, bad);
      if (failing) note(`client keyring ${where}: readable again`);
      failing = undefined;
    } catch (e) {
      const message = (e as Error)?.message ?? String(e);
      if (!failing)
        warn(
          `client keyring ${where} cannot be read (${message}): ` +
            (loaded ? 'keeping the last good copy' : 'client keys are refused until it can'),
        );
      failing = message;
    }
  };
  /** One read at a time: a caller that needs a fresh read waits for the one in flight, then starts its own. */
  const read = (): Promise<void> => {
    const run = (inFlight ?? Promise.resolve()).then(readNow);
    const mine = run.finally(() => {
      if (inFlight === mine) inFlight = undefined;
    });
    inFlight = mine;
    return mine;
  };

  const ready = read();
  const timer = setInterval(() => {
    if (!inFlight) void read();
  }, options.refreshMs ?? KEYRING_REFRESH_MS);
  timer.unref(); // never keeps the process alive

  let missRead: Promise<void> | undefined;
  return {
    get: (id) => byId.get(id),
    async refreshForUnknown(ids) {
      const wanted = [...ids];
      const known = () => wanted.some((id) => byId.has(id));
      if (known()) return true;
      missRead ??= delay(Math.max(0, lastStarted + KEYRING_MISS_REFRESH_MS - Date.now()))
        .then(read)
        .finally(() => (missRead = undefined));
      await missRead;
      return known();
    },
    get loaded() {
      return loaded;
    },
    ready,
    get lastError() {
      return loaded ? undefined : failing;
    },
    stop: () => clearInterval(timer),
  };
}
