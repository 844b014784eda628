// Handlers for the "webhooks" operations: the partner's webhook subscriptions (SPEC GAP: the shape is
// ours, see the core's schemas/webhooks.ts). Subscriptions belong to the calling partner (API key or
// OAuth client); a partner sees and deletes only its own. Delivery is the platform's dispatcher.
//
// SPEC GAPs chosen here:
// - The URL must be http or https → 422 validation otherwise (as is a text that is not a URL at all).
// - event_types default to every type; duplicates are dropped; an empty list → 422 validation (schema: min 1).
// - The same URL twice for one partner → 409 generic_error naming the existing subscription.
// - At most 10 subscriptions per partner → 422 validation beyond.
// - DELETE is idempotent (operations.ts): deleting one's own subscription again answers the same empty
//   200; an id that never existed, or another partner's, → 404 generic_error.
// - Listing is `{ data: [...] }` in creation order, without paging.
import { randomUUID } from 'node:crypto';
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookSubscription,
  type WebhookSubscriptionRequest,
} from '@selling-kit/api-client/core';
import { apiError } from '../errors.ts';
import type { WebhookSubscriptionRecord, World } from '../state.ts';
import type { Handlers } from './types.ts';

export const MAX_WEBHOOKS_PER_PARTNER = 10;

function toWire(sub: WebhookSubscriptionRecord): WebhookSubscription {
  return {
    id: sub.id,
    url: sub.url,
    event_types: [...sub.eventTypes],
    created_at: new Date(sub.createdAt).toISOString(),
  };
}

function subscriptionsOf(world: World, partnerId: string): WebhookSubscriptionRecord[] {
  return [...world.webhooks.values()]
    .filter((w) => w.partnerId === partnerId)
    .sort((a, b) => a.createdAt - b.createdAt);
}

export const webhooksHandlers: Handlers = {
  'webhooks.list': ({ world, principal }) => ({
    body: { data: subscriptionsOf(world, principal.partnerId).map(toWire) },
  }),

  'webhooks.create': ({ world, principal, body, now }) => {
    const request = body as WebhookSubscriptionRequest; // parsed by the server with the table's schema
    const protocol = new URL(request.url).protocol;
    if (protocol !== 'http:' && protocol !== 'https:')
      throw apiError('validation', `field "url": must be an http or https URL, got a ${protocol} URL`);
    const own = subscriptionsOf(world, principal.partnerId);
    const existing = own.find((w) => w.url === request.url);
    if (existing)
      throw apiError(
        'generic_error',
        `the URL ${request.url} is already subscribed (${existing.id}); delete it first to change its event types`,
        409,
      );
    if (own.length >= MAX_WEBHOOKS_PER_PARTNER)
      throw apiError(
        'validation',
        `a partner may have at most ${MAX_WEBHOOKS_PER_PARTNER} webhook subscriptions; delete one first`,
      );
    const record: WebhookSubscriptionRecord = {
      id: `wh_${randomUUID()}`,
      partnerId: principal.partnerId,
      url: request.url,
      eventTypes: [...new Set(request.event_types ?? WEBHOOK_EVENT_TYPES)],
      createdAt: now,
    };
    world.webhooks.set(record.id, record);
    return { body: toWire(record) };
  },

  'webhooks.delete': ({ world, principal, params }) => {
    const id = params.webhook_id ?? '';
    const sub = world.webhooks.get(id);
    const owner = sub?.partnerId ?? world.deletedWebhooks.get(id);
    if (owner === undefined || owner !== principal.partnerId)
      throw apiError('generic_error', `no webhook subscription ${id.slice(0, 80)} for this partner`, 404);
    world.webhooks.delete(id);
    world.deletedWebhooks.set(id, owner);
    return {};
  },
};
