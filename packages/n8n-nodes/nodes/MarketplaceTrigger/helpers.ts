// The Marketplace Trigger's Events choice and the checks its lifecycle and webhook methods share: the
// replay window, the events selection and its matching, and reading the raw body.
import type { INodePropertyOptions } from 'n8n-workflow';
import type { WebhookEventType } from '@selling-kit/api-client/core';

/** The `Any Event` choice: every event type, including those added later. */
export const ANY_EVENT = '*';

/** What each event type the marketplace sends (core: WEBHOOK_EVENT_TYPES) is called, and means. */
const EVENTS: Record<WebhookEventType, [name: string, meaning: string]> = {
  'v1:order.new': ['New Order', 'A sale: an item was sold'],
  'v1:order.refund': ['Order Refunded', 'A refund of an order'],
  'v1:product.like': ['Product Liked', 'A buyer liked a listing'],
  'v1:product.unlike': ['Product Unliked', 'A buyer removed a like'],
  'v1:product.updated': ['Product Updated', 'A listing changed, e.g. its status'],
};

/** The events as node options, `Any Event` first; each description ends with its wire name. */
export const EVENT_OPTIONS: INodePropertyOptions[] = [
  {
    name: 'Any Event',
    value: ANY_EVENT,
    description: 'Every event, including types added later; choose it alone',
  },
  ...Object.entries(EVENTS).map(([value, [name, meaning]]) => ({
    name,
    value,
    description: `${meaning} (${value})`,
  })),
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
