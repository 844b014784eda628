// The worker's checks on every payload it decodes (codec.ts, `verify`): who signed it and whether that
// writer may name what it names. A payload that fails is not an error (a throwing codec fails the
// workflow task over and over, never the workflow): it is replaced by a refusal value
// `{ "$sellingKitRefused": { code, message } }` (contract.ts), which every workflow entry point, signal
// handler and update validator turns away before anything is scheduled.
import type { Payload } from '@temporalio/common';
import { namedShops, REFUSED_FIELD, workflowIdScope, type Refusal, type RefusalCode } from '../contract.ts';
import { grants, type ClientKeyRecord } from './client-keys.ts';
import { addressedTo, macMatches, WORKER_AUTH_ID } from './payload-auth.ts';

/** SELLING_KIT_CLIENT_AUTH: `on` (default) refuses unsigned payloads; `migrate` lets sealed ones pass. */
export type ClientAuthMode = 'on' | 'migrate';
export const CLIENT_AUTH_ENV = 'SELLING_KIT_CLIENT_AUTH';

/** A bad SELLING_KIT_CLIENT_AUTH value. */
export class ClientAuthSettingError extends Error {}

/** `on` unless the setting says `migrate`; anything else is an error naming the setting. */
export function clientAuthMode(setting: string | undefined): ClientAuthMode {
  const value = setting?.trim().toLowerCase() || 'on';
  if (value !== 'on' && value !== 'migrate')
    throw new ClientAuthSettingError(
      `${CLIENT_AUTH_ENV} is "on" (the default) or "migrate", not "${setting}"`,
    );
  return value;
}

export type ClientKeyLookup = (id: string) => ClientKeyRecord | undefined;

/** Migration warnings: the first, then one every this many (the codec does not know the workflow id). */
const MIGRATE_WARN_EVERY = 1000;

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : '');

/** The payload a refusal decodes to. */
export function refusalPayload(code: RefusalCode, message: string): Payload {
  const refusal: Refusal = { code, message };
  return {
    metadata: { encoding: utf8('json/plain') },
    data: utf8(JSON.stringify({ [REFUSED_FIELD]: refusal })),
  };
}

export interface PayloadChecksDeps {
  /** The `worker-auth` keys of every key of the master ring. */
  workerKeys: readonly Buffer[];
  clientKeys: ClientKeyLookup;
  clientAuth: ClientAuthMode;
  warn: (message: string) => void;
}

export class PayloadChecks {
  private unsignedSeen = 0;
  private readonly deps: PayloadChecksDeps;

  constructor(deps: PayloadChecksDeps) {
    this.deps = deps;
  }

  private refuse(code: RefusalCode, message: string): Payload {
    this.deps.warn(`payload refused (${code}): ${message}`);
    return refusalPayload(code, message);
  }

  /** A payload that was not sealed at all (codec on): a plaintext start, signal or update. */
  unsealed(): Payload {
    return this.refuse(
      'unsealed_input',
      'unsealed job input refused: this worker encrypts payloads, so it takes only input sealed and signed ' +
        'with a client key (`selling-kit keys issue`)',
    );
  }

  /** A payload that cannot be opened or read (unknown key id, garbage sealed bytes): `why` names which. */
  unreadable(why: string): Payload {
    return this.refuse('unreadable_input', `unreadable job input refused: ${why}`);
  }

  /**
   * An opened payload (its auth fields already stripped): undefined when it passes. `to`: the workflow id
   * its writer sealed it for; `reader`: the workflow reading it now (the SDK's serialization context),
   * undefined where the SDK gives none (never for what a client sends: starts, signals, updates).
   */
  check(
    payload: Payload,
    signed: { writer?: string; mac?: Uint8Array; to?: string },
    reader: string | undefined,
  ): Payload | undefined {
    const { writer, mac, to = '' } = signed;
    const encoding = Buffer.from(payload.metadata?.encoding ?? []);
    const data = Buffer.from(payload.data ?? []);
    if (writer === undefined || mac === undefined) {
      if (this.deps.clientAuth === 'migrate') {
        if (this.unsignedSeen++ % MIGRATE_WARN_EVERY === 0)
          this.deps.warn(
            `accepted ${this.unsignedSeen} sealed payload(s) without a client signature ` +
              '(SELLING_KIT_CLIENT_AUTH=migrate): set it back to "on" once 0.4 work has drained',
          );
        return undefined;
      }
      return this.refuse(
        'unauthenticated_input',
        'unauthenticated job input refused: the payload is sealed but carries no client signature ' +
          '(a 0.4 client, or one holding the codec key only): use a client key from `selling-kit keys issue`',
      );
    }
    const bad = () =>
      this.refuse(
        'unauthenticated_input',
        `unauthenticated job input refused: the signature of "${writer}" does not match`,
      );
    if (writer === WORKER_AUTH_ID) {
      if (!this.deps.workerKeys.some((k) => macMatches(k, writer, to, encoding, data, mac))) return bad();
      return this.address(to, reader);
    }
    const record = this.deps.clientKeys(writer);
    if (!record)
      return this.refuse(
        'unauthenticated_input',
        `unauthenticated job input refused: client key ${writer} is not in the worker's client keyring`,
      );
    if (!macMatches(Buffer.from(record.key, 'base64'), writer, to, encoding, data, mac)) return bad();
    if (record.retiredAt)
      return this.refuse('client_key_retired', `client key ${writer} was retired on ${record.retiredAt}`);
    // A client's payload is always read in a workflow's context (it starts, signals or updates one).
    if (reader === undefined)
      return this.refuse(
        'misaddressed_input',
        `client key ${writer} wrote a payload read outside any workflow: refused`,
      );
    return (
      this.address(to, reader) ??
      this.workflowScope(record, reader) ??
      this.scope(record, text(encoding), data)
    );
  }

  /** A payload is read only by the workflow it was written for (or that schedule's runs). */
  private address(to: string, reader: string | undefined): Payload | undefined {
    if (reader === undefined || addressedTo(to, reader)) return undefined;
    return this.refuse(
      'misaddressed_input',
      `misaddressed job input refused: written for workflow ${JSON.stringify(to)}, read by ${JSON.stringify(reader)} ` +
        '(a payload copied from another workflow)',
    );
  }

  /** What the workflow's id says about who may address it (contract.ts workflowIdScope). */
  private workflowScope(record: ClientKeyRecord, reader: string): Payload | undefined {
    const scope = workflowIdScope(reader);
    if (!scope) return undefined;
    if ('internal' in scope)
      return this.refuse(
        'internal_workflow',
        `client key ${record.id} may not address workflow ${reader}: only the worker does`,
      );
    const shop = 'shops' in scope ? scope.shops.find((s) => !grants(record.shops, s)) : undefined;
    if (shop !== undefined)
      return this.refuse('shop_not_granted', `client key ${record.id} may not name shop ${shop}`);
    const seller = 'sellers' in scope ? scope.sellers.find((s) => !grants(record.sellers, s)) : undefined;
    if (seller !== undefined)
      return this.refuse('shop_not_granted', `client key ${record.id} may not name seller ${seller}`);
    return undefined;
  }

  /** A client may only name the shops and sellers its key grants (contract.ts namedShops). */
  private scope(record: ClientKeyRecord, encoding: string, data: Uint8Array): Payload | undefined {
    if (encoding === 'binary/null') return undefined; // undefined: names nothing
    // Any other encoding could hide a name from this check, or fail the worker's converter (and with it
    // the workflow task): a client writes JSON only.
    if (encoding !== 'json/plain')
      return this.refuse(
        'unreadable_input',
        `client key ${record.id} wrote a payload encoded ${JSON.stringify(encoding.slice(0, 40))}: ` +
          'only json/plain or binary/null is accepted',
      );
    let value: unknown;
    try {
      value = JSON.parse(text(data));
    } catch {
      // Not JSON: the worker's converter would throw on it, failing the workflow task.
      return this.refuse(
        'unreadable_input',
        `client key ${record.id} wrote a json/plain payload that is not JSON`,
      );
    }
    const { shops, sellers } = namedShops(value);
    const shop = shops.find((s) => !grants(record.shops, s));
    if (shop !== undefined)
      return this.refuse('shop_not_granted', `client key ${record.id} may not name shop ${shop}`);
    const seller = sellers.find((s) => !grants(record.sellers, s));
    if (seller !== undefined)
      return this.refuse('shop_not_granted', `client key ${record.id} may not name seller ${seller}`);
    return undefined;
  }
}
