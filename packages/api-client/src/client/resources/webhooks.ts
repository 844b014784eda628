// client.webhooks: the webhook configuration endpoints, and the receiving side (signature check and
// typed events) bound to the client's default signing secret.
import { operation } from '../../core/operations.ts';
import type { WebhookSubscription, WebhookSubscriptionRequest } from '../../core/schemas/webhooks.ts';
import {
  constructWebhookEvent,
  parseWebhookEvent,
  signWebhook,
  verifyWebhook,
  type ParsedWebhookEvent,
  type VerifyWebhookOptions,
  type WebhookHeaders,
} from '../../core/webhooks.ts';
import type { RequestOptions } from '../requester.ts';
import { Resource } from './resource.ts';

export class WebhooksResource extends Resource {
  /** GET /api/v1/webhooks/ */
  async list(options?: RequestOptions): Promise<WebhookSubscription[]> {
    const page = await this.ctx.requester.call<{ data: WebhookSubscription[] }>({
      op: operation('webhooks.list'),
      options,
    });
    return page.data;
  }

  /**
   * POST /api/v1/webhooks/ — subscribe a URL (all event types unless `event_types` is given). After a 504
   * or a timeout the client looks for a subscription of the same URL before subscribing again.
   */
  create(body: WebhookSubscriptionRequest, options?: RequestOptions): Promise<WebhookSubscription> {
    return this.ctx.requester.call<WebhookSubscription>({
      op: operation('webhooks.create'),
      body,
      options,
      verify: async ({ signal }) => {
        const found = (await this.list({ ...options, signal })).find((w) => w.url === body.url);
        return found ? { found: true, value: found, checks: 1 } : { found: false, checks: 1 };
      },
    });
  }

  /** DELETE /api/v1/webhooks/{webhook_id}/ (idempotent). */
  async delete(webhookId: string, options?: RequestOptions): Promise<void> {
    await this.ctx.requester.call({
      op: operation('webhooks.delete'),
      pathParams: { webhook_id: webhookId },
      options,
    });
  }

  /** Checks a delivery's signature and age; returns its timestamp. */
  verify(
    rawBody: string | Uint8Array,
    headers: WebhookHeaders,
    secret = this.secret(),
    options: VerifyWebhookOptions = {},
  ): { timestamp: number } {
    return verifyWebhook(rawBody, headers, secret, { now: this.ctx.now(), ...options });
  }

  /** verify() + parse() in one step. */
  construct(
    rawBody: string | Uint8Array,
    headers: WebhookHeaders,
    secret = this.secret(),
    options: VerifyWebhookOptions = {},
  ): ParsedWebhookEvent {
    return constructWebhookEvent(rawBody, headers, secret, { now: this.ctx.now(), ...options });
  }

  parse(raw: string | Uint8Array | object): ParsedWebhookEvent {
    return parseWebhookEvent(raw);
  }

  sign(rawBody: string | Uint8Array, timestampSec: number, secret = this.secret()): string {
    return signWebhook(rawBody, secret, timestampSec);
  }

  private secret(): string {
    return this.ctx.webhookSecret ?? '';
  }
}
