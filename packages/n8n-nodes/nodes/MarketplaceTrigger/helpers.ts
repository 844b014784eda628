import type { INodePropertyOptions } from 'n8n-workflow';

/** Event types the marketplace sends (core: WEBHOOK_EVENT_TYPES), as node options; `*` = any. */
export const EVENT_OPTIONS: INodePropertyOptions[] = [
  {
    name: 'Any Event',
    value: '*',
    description: 'Every event, including types added later; choose it alone',
  },
  { name: 'New Order', value: 'v1:order.new', description: 'A sale: an item was sold (v1:order.new)' },
  { name: 'Order Refunded', value: 'v1:order.refund', description: 'A refund of an order (v1:order.refund)' },
  {
    name: 'Product Liked',
    value: 'v1:product.like',
    description: 'A buyer liked a listing (v1:product.like)',
  },
  {
    name: 'Product Unliked',
    value: 'v1:product.unlike',
    description: 'A buyer removed a like (v1:product.unlike)',
  },
  {
    name: 'Product Updated',
    value: 'v1:product.updated',
    description: 'A listing changed, e.g. its status (v1:product.updated)',
  },
];

/**
 * The smallest Replay Window the trigger accepts, in seconds. Below it replay protection is off (0) or
 * nearly, and a captured delivery could be replayed; clocks of sender and n8n rarely differ by more.
 */
export const MIN_REPLAY_WINDOW_SEC = 30;

/** Why a Replay Window cannot be used, or undefined (the option's default applies when unset). */
export function replayWindowProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const sec = Number(value);
  if (Number.isFinite(sec) && sec >= MIN_REPLAY_WINDOW_SEC) return undefined;
  return `Replay Window must be at least ${MIN_REPLAY_WINDOW_SEC} seconds (below it replay protection is off or nearly)`;
}

/** The `Any Event` choice: every event type, including those added later. */
export const ANY_EVENT = '*';

/**
 * Why a selection of events cannot be used, or undefined. `Any Event` is exclusive (n8n's multiOptions
 * cannot clear the other choices by itself): next to other events it would silently make them
 * meaningless, so the node refuses to listen until one or the other is removed.
 */
export function eventsProblem(selected: readonly string[]): string | undefined {
  if (selected.includes(ANY_EVENT) && selected.length > 1)
    return 'Events: "Any Event" already includes every event; remove it to choose events, or remove the other events';
  return undefined;
}

/** Whether an event type is among the selected ones (`*` or an empty selection = every event). */
export function eventMatches(selected: readonly string[], eventType: string): boolean {
  if (selected.length === 0 || selected.includes(ANY_EVENT)) return true;
  return selected.includes(eventType);
}

/**
 * The exact bytes received. n8n keeps them on `req.rawBody` (a Buffer) once the body has been read
 * (`req.readRawBody()`, done before a version-1 node's webhook() runs); the signature is computed over
 * those bytes, never over re-serialised JSON.
 */
export async function readRawBody(req: {
  rawBody?: unknown;
  readRawBody?: () => Promise<void>;
}): Promise<Uint8Array | string | undefined> {
  if (req.rawBody === undefined && typeof req.readRawBody === 'function') await req.readRawBody();
  const raw = req.rawBody;
  if (raw instanceof Uint8Array) return raw;
  if (typeof raw === 'string') return raw;
  return undefined;
}
