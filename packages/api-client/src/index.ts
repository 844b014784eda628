// The Node entry: the typed client wired to a Node transport (undici by default, got on request),
// setTimeout-based sleeping and Date.now. Everything transport-free is re-exported from ./client
// (and ./core), which n8n uses with its own transport.
import { SellingClient as CoreSellingClient, type SellingClientOptions } from './client/client.ts';
import type { Sleep, Transport } from './core/transport.ts';
import { createUndiciTransport } from './transport/undici.ts';
import { nodeSleep } from './transport/sleep.ts';

export * from './client/index.ts';
export { createUndiciTransport, type UndiciTransportOptions } from './transport/undici.ts';
export { createGotTransport, type GotTransportOptions } from './transport/got.ts';
export { nodeSleep } from './transport/sleep.ts';

export interface ClientOptions extends Omit<SellingClientOptions, 'transport' | 'sleep'> {
  /** Default: an undici transport with a keep-alive pool; `createGotTransport()` for got. */
  transport?: Transport;
  /** Default: setTimeout, cancelled by the AbortSignal. */
  sleep?: Sleep;
}

function withNodeDefaults(options: ClientOptions): SellingClientOptions {
  return {
    ...options,
    transport: options.transport ?? createUndiciTransport({ timeoutMs: options.timeoutMs }),
    sleep: options.sleep ?? nodeSleep,
    now: options.now ?? Date.now,
  };
}

/** The client for Node: `new SellingClient({ apiKey })` or `createClient({ oauth: {...} })`. */
export class SellingClient extends CoreSellingClient {
  constructor(options: ClientOptions, shared?: ConstructorParameters<typeof CoreSellingClient>[1]) {
    super(shared ? (options as SellingClientOptions) : withNodeDefaults(options), shared);
  }
}

export function createClient(options: ClientOptions): SellingClient {
  return new SellingClient(options);
}
