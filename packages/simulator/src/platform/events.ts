// Where domain code sends webhook events: an `EventSink` is what a write calls after it changed state
// (the platform's webhook dispatcher implements it; tests may pass their own). It lives in platform/,
// below both handlers and domain, so the domain never imports the handler layer to emit an event.
import type { WebhookEventType } from '@selling-kit/api-client/core';

export interface EventSink {
  /** Queues a signed webhook delivery of this seller's event to every matching subscription. */
  emit(sellerId: number, eventType: WebhookEventType, data: Record<string, unknown>): void;
}
