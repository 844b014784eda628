// The webhook dispatcher: handlers call `emit(sellerId, eventType, data)`; every subscription of the
// seller's partner(s) that takes the event type gets a signed POST, retried with backoff on failure.
// Deliveries run in the background: they never block a request and never throw into the server.
//
// Signature (public reference): `X-Depop-Timestamp` = Unix seconds, `X-Depop-Signature` = hex
// HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the partner's signing secret.
// SPEC GAP (retries): 5 attempts in all; waits of 1 s, 2 s, 4 s, 8 s (simulated, so shrunk by the time
// scale); success = any 2xx answer within `webhookTimeoutMs`; redirects are not followed (a failure).
// SPEC GAP (timestamp clock): the timestamp header is REAL Unix time at the attempt (receivers compare it
// with their own clock), while the envelope's `created_at` is simulated time at the event.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { WebhookEventType } from '@selling-kit/api-client/core';
import type { SimulatorConfig } from '../config.ts';
import type { EventSink } from './events.ts';
import type { World } from '../state.ts';
import { ensurePartner } from '../world.ts';

export const SIGNATURE_HEADER = 'X-Depop-Signature';
export const TIMESTAMP_HEADER = 'X-Depop-Timestamp';

export function signWebhook(secret: string, timestamp: number | string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}

/** The partner's signing secret, created on first use. */
export function partnerWebhookSecret(world: World, partnerId: string): string {
  const partner = ensurePartner(world, partnerId);
  if (!partner.webhookSecret) partner.webhookSecret = newWebhookSecret();
  return partner.webhookSecret;
}

export interface DeliveryAttempt {
  attempt: number;
  /** Real ISO time of the attempt. */
  at: string;
  timestamp: number;
  status?: number;
  error?: string;
  ok: boolean;
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  eventType: WebhookEventType;
  sellerId: number;
  partnerId: string;
  subscriptionId: string;
  url: string;
  /** The exact bytes sent (the signed body). */
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttempt[];
}

export interface EventRecord {
  id: string;
  eventType: WebhookEventType;
  sellerId: number;
  createdAt: string;
  data: Record<string, unknown>;
  deliveryIds: string[];
}

const MAX_LOG = 10_000;

export class WebhookDispatcher implements EventSink {
  private readonly world: World;
  private readonly config: SimulatorConfig;
  readonly events: EventRecord[] = [];
  readonly deliveries: DeliveryRecord[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Deliveries neither delivered nor given up. */
  private readonly pending = new Set<DeliveryRecord>();
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(world: World, config: SimulatorConfig) {
    this.world = world;
    this.config = config;
  }

  /** Partners whose deliveries a seller's events go to: API-key holders and connected OAuth apps. */
  partnersOf(sellerId: number): Set<string> {
    const partners = new Set<string>();
    for (const key of this.world.apiKeys.values()) if (key.sellerId === sellerId) partners.add(key.partnerId);
    const now = this.world.clock.now();
    for (const token of this.world.refreshTokens.values()) {
      if (token.sellerId !== sellerId || token.expiresAt <= now) continue;
      const client = this.world.oauthClients.get(token.clientId);
      if (client) partners.add(client.partnerId);
    }
    return partners;
  }

  emit(sellerId: number, eventType: WebhookEventType, data: Record<string, unknown>): void {
    try {
      this.emitUnsafe(sellerId, eventType, data);
    } catch {
      // A webhook must never break the request that caused it.
    }
  }

  private emitUnsafe(sellerId: number, eventType: WebhookEventType, data: Record<string, unknown>): void {
    if (this.closed) return;
    const event: EventRecord = {
      id: randomUUID(),
      eventType,
      sellerId,
      createdAt: new Date(this.world.clock.now()).toISOString(),
      data,
      deliveryIds: [],
    };
    const body = JSON.stringify({ id: event.id, event_type: eventType, created_at: event.createdAt, data });
    this.push(this.events, event);
    const partners = this.partnersOf(sellerId);
    for (const sub of this.world.webhooks.values()) {
      if (!partners.has(sub.partnerId)) continue;
      if (sub.eventTypes.length > 0 && !sub.eventTypes.includes(eventType)) continue;
      const delivery: DeliveryRecord = {
        id: `dlv_${randomUUID()}`,
        eventId: event.id,
        eventType,
        sellerId,
        partnerId: sub.partnerId,
        subscriptionId: sub.id,
        url: sub.url,
        body,
        state: 'pending',
        attempts: [],
      };
      event.deliveryIds.push(delivery.id);
      this.push(this.deliveries, delivery);
      this.pending.add(delivery);
      this.schedule(() => this.attempt(delivery), 0);
    }
  }

  private push<T>(log: T[], item: T): void {
    log.push(item);
    if (log.length > MAX_LOG) log.splice(0, log.length - MAX_LOG);
  }

  private schedule(fn: () => void, realMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, realMs);
    timer.unref();
    this.timers.add(timer);
  }

  private async attempt(delivery: DeliveryRecord): Promise<void> {
    if (this.closed || !this.pending.has(delivery)) return;
    const timestamp = Math.floor(Date.now() / 1000);
    const record: DeliveryAttempt = {
      attempt: delivery.attempts.length + 1,
      at: new Date().toISOString(),
      timestamp,
      ok: false,
    };
    delivery.attempts.push(record);
    try {
      const secret = partnerWebhookSecret(this.world, delivery.partnerId);
      const res = await fetch(delivery.url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'selling-kit-simulator',
          [SIGNATURE_HEADER]: signWebhook(secret, timestamp, delivery.body),
          [TIMESTAMP_HEADER]: String(timestamp),
        },
        body: delivery.body,
        signal: AbortSignal.timeout(this.config.webhookTimeoutMs),
      });
      record.status = res.status;
      await res.arrayBuffer().catch(() => undefined);
      record.ok = res.status >= 200 && res.status < 300;
    } catch (err) {
      record.error = (err as Error).name === 'TimeoutError' ? 'timeout' : String((err as Error).message);
    }
    if (!this.pending.has(delivery)) return; // reset or closed meanwhile
    if (record.ok) return this.settle(delivery, 'delivered');
    if (delivery.attempts.length >= this.config.webhookMaxAttempts || this.closed) {
      return this.settle(delivery, 'failed');
    }
    const simDelay = this.config.webhookRetryBaseDelayMs * 2 ** (delivery.attempts.length - 1);
    this.schedule(() => void this.attempt(delivery), this.world.clock.toRealMs(simDelay));
  }

  private settle(delivery: DeliveryRecord, state: 'delivered' | 'failed'): void {
    delivery.state = state;
    this.pending.delete(delivery);
    if (this.pending.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Resolves when no delivery is pending (every one delivered or given up). */
  idle(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  counters(): {
    events: number;
    deliveries: number;
    delivered: number;
    failed: number;
    pending: number;
    attempts: number;
  } {
    let delivered = 0;
    let failed = 0;
    let pending = 0;
    let attempts = 0;
    for (const d of this.deliveries) {
      attempts += d.attempts.length;
      if (d.state === 'delivered') delivered++;
      else if (d.state === 'failed') failed++;
      else pending++;
    }
    return {
      events: this.events.length,
      deliveries: this.deliveries.length,
      delivered,
      failed,
      pending,
      attempts,
    };
  }

  /** Cancels pending retries and forgets the logs. */
  reset(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const d of this.pending) d.state = 'failed';
    this.pending.clear();
    this.events.length = 0;
    this.deliveries.length = 0;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  close(): void {
    this.closed = true;
    this.reset();
  }
}
