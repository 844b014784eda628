// The admin routes of webhooks: subscriptions, events, deliveries.
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { z } from 'zod/v4';
import { WEBHOOK_EVENT_TYPES } from '@selling-kit/api-client/core';
import { parseInput } from '../handlers/params.ts';
import { ensurePartner } from '../world.ts';
import type { AdminDeps } from './deps.ts';
import { EventTypeEnum, json, notFound, sellerOf } from './replies.ts';

export function webhooksRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const { world, webhooks } = deps;
  app.get('/admin/webhooks', async (_req, reply) => json(reply, [...world.webhooks.values()]));
  app.post('/admin/webhooks', async (req, reply) => {
    const body = parseInput(
      z
        .object({ partnerId: z.string().min(1), url: z.url(), eventTypes: z.array(EventTypeEnum).optional() })
        .strict(),
      req.body,
    );
    ensurePartner(world, body.partnerId);
    const id = `wh_${randomUUID()}`;
    const sub = {
      id,
      partnerId: body.partnerId,
      url: body.url,
      eventTypes: body.eventTypes ?? [...WEBHOOK_EVENT_TYPES],
      createdAt: world.clock.now(),
    };
    world.webhooks.set(id, sub);
    return json(reply, sub, 201);
  });
  app.delete('/admin/webhooks/:webhookId', async (req, reply) => {
    const { webhookId } = req.params as { webhookId: string };
    if (!world.webhooks.delete(webhookId)) throw notFound(`webhook ${webhookId}`);
    return json(reply, { ok: true });
  });
  app.get('/admin/webhooks/events', async (_req, reply) => json(reply, webhooks.events));
  app.get('/admin/webhooks/deliveries', async (req, reply) => {
    const q = parseInput(
      z
        .object({ partnerId: z.string(), eventType: z.string(), state: z.string(), eventId: z.string() })
        .partial(),
      req.query,
    );
    return json(
      reply,
      webhooks.deliveries.filter(
        (d) =>
          (!q.partnerId || d.partnerId === q.partnerId) &&
          (!q.eventType || d.eventType === q.eventType) &&
          (!q.state || d.state === q.state) &&
          (!q.eventId || d.eventId === q.eventId),
      ),
    );
  });
  /** Emits an event for a seller as a handler would (tests of receivers). */
  app.post('/admin/events', async (req, reply) => {
    const body = parseInput(
      z
        .object({
          sellerId: z.number().int(),
          eventType: EventTypeEnum,
          data: z.record(z.string(), z.unknown()),
        })
        .strict(),
      req.body,
    );
    sellerOf(world, body.sellerId);
    const before = webhooks.events.length;
    webhooks.emit(body.sellerId, body.eventType, body.data);
    const event = webhooks.events.length > before ? webhooks.events[webhooks.events.length - 1] : undefined;
    return json(reply, { eventId: event?.id, deliveries: event?.deliveryIds ?? [] }, 202);
  });
}
