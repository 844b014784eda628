// The durable webhook receiver: an HTTP endpoint that verifies each delivery's signature (the client
// core's verifyWebhook, on the exact bytes received), then hands the event to Temporal — a
// `v1:order.new` starts the order's delist workflow (or, with `orders`, its order flow, which runs the
// delist), a `v1:order.refund` tells the order's flow to read it again, a `v1:product.like` signals its
// listing's offers workflow — and answers 2xx only once the server has recorded that. Anything that fails before is a
// 5xx, so the sender delivers again (its retries, then the reconciliation schedule); a duplicate
// delivery finds the order's workflow and does nothing. A forged or stale signature is a 401 and
// starts nothing, with one body whatever failed (the reason is logged). The signing secret is read per
// request and never logged or echoed.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import {
  constructWebhookEvent,
  isKnownWebhookEvent,
  WebhookPayloadError,
  WebhookVerificationError,
} from '@selling-kit/api-client/core';
import { DEFAULT_TASK_QUEUE } from '../contract.ts';
import { checkOfferSettings, recordLike, startDelist } from './webhook-flows.ts';
import { refundToOrderFlow, startOrderFromWebhook, type OrderFlowReply } from './receiver-orders.ts';
import type { ConnectedShop, LikerOfferSettings } from './sales-types.ts';
import type { OrderReminders } from './order-types.ts';
import type { ShopRef } from '../types.ts';

export const DEFAULT_WEBHOOK_PATH = '/webhooks';
/** The body of every 401: the same whatever check failed (the reason is in the log only). */
export const UNAUTHORIZED = { error: 'unauthorized' } as const;
/** Larger bodies are refused with 413 before they are read whole (events are a few KiB). */
export const WEBHOOK_MAX_BODY_BYTES = 1024 * 1024;

export interface WebhookReceiverOptions {
  client: Client;
  taskQueue?: string;
  /** The partner's signing secret, or a function that reads the current one (rotation). */
  secret: string | (() => string);
  /** The connected shops, with the seller id their events carry. */
  shops: ConnectedShop[];
  /** Delist each order on every other shop (default true). */
  delist?: boolean;
  /** SKU mapping file for the delist (sku-map.ts), read by the worker. */
  skuMapPath?: string;
  /** Offers to likers: off unless given. */
  offers?: LikerOfferSettings;
  /**
   * Order flows (workflows/order.ts): each order's flow from `order.new` to shipped, its reminders as given
   * (the defaults otherwise). Off unless given: an order then only has its delist.
   */
  orders?: { reminders?: OrderReminders };
  host?: string;
  /** 0 (default): any free port. */
  port?: number;
  path?: string;
  /** The signature timestamp's tolerance, in seconds (the core's default, 300). */
  toleranceSec?: number;
  /** One line per delivery, without secrets (event id and type, what was done, the status). */
  log?: (entry: ReceiverLogEntry) => void;
}

export interface ReceiverLogEntry {
  status: number;
  eventId?: string;
  eventType?: string;
  /**
   * delist_started, delist_duplicate, order_started, order_duplicate, refund_signalled, no_order_flow,
   * like_recorded, ignored, rejected, error.
   */
  action: string;
  workflowId?: string;
  reason?: string;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  close(): Promise<void>;
}

class TooLarge extends Error {}

/**
 * The body, up to the limit. Above it (told by Content-Length, or crossed while streaming) the rest is
 * read and dropped, not kept: the sender then gets the 413 instead of a reset connection (which it would
 * retry as a network failure); the answer closes the connection.
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const told = Number(req.headers['content-length'] ?? 0);
    if (told > WEBHOOK_MAX_BODY_BYTES) {
      req.resume();
      return reject(new TooLarge());
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const collect = (c: Buffer) => {
      size += c.length;
      if (size <= WEBHOOK_MAX_BODY_BYTES) return void chunks.push(c);
      req.off('data', collect);
      chunks.length = 0;
      req.resume();
      reject(new TooLarge());
    };
    req.on('data', collect);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const path = options.path ?? DEFAULT_WEBHOOK_PATH;
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  const offers = options.offers ? checkOfferSettings(options.offers) : undefined;
  const bySeller = new Map(options.shops.map((s) => [s.sellerId, s]));
  const shopRefs: ShopRef[] = options.shops.map(({ shopId, credentialRef, auth }) => ({
    shopId,
    credentialRef,
    ...(auth ? { auth } : {}),
  }));
  const refOf = (shop: ConnectedShop) => shopRefs.find((s) => s.shopId === shop.shopId)!;
  const secret = () => (typeof options.secret === 'function' ? options.secret() : options.secret);

  const answer = (res: ServerResponse, entry: ReceiverLogEntry, body: Record<string, unknown>) => {
    options.log?.(entry);
    res.writeHead(entry.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  /** An event of a seller none of the shops belongs to: accepted, nothing started. */
  const unknownSeller = (res: ServerResponse, base: { eventId: string; eventType: string }) =>
    answer(
      res,
      { ...base, status: 202, action: 'ignored', reason: 'unknown_seller' },
      { ignored: 'unknown_seller' },
    );

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://receiver');
    if (req.method === 'GET' && url.pathname === '/healthz')
      return answer(res, { status: 200, action: 'health' }, { status: 'ok' });
    if (url.pathname !== path)
      return answer(res, { status: 404, action: 'rejected' }, { error: 'not_found' });
    if (req.method !== 'POST')
      return answer(res, { status: 405, action: 'rejected' }, { error: 'method_not_allowed' });
    const receivedAt = Date.now();
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (e) {
      if (e instanceof TooLarge) {
        res.setHeader('connection', 'close');
        return answer(res, { status: 413, action: 'rejected', reason: 'too_large' }, { error: 'too_large' });
      }
      throw e;
    }
    let event;
    try {
      event = constructWebhookEvent(raw, req.headers, secret(), { toleranceSec: options.toleranceSec });
    } catch (e) {
      // One body for every failed check (a forger learns nothing about which); the reason is logged.
      if (e instanceof WebhookVerificationError)
        return answer(res, { status: 401, action: 'rejected', reason: e.reason }, UNAUTHORIZED);
      if (e instanceof WebhookPayloadError)
        return answer(res, { status: 400, action: 'rejected', reason: 'payload' }, { error: e.message });
      throw e;
    }
    const base = { eventId: event.id, eventType: event.event_type };
    if (!isKnownWebhookEvent(event))
      return answer(res, { ...base, status: 200, action: 'ignored' }, { ignored: 'unknown_event_type' });
    if ((event.event_type === 'v1:order.new' || event.event_type === 'v1:order.refund') && options.orders) {
      let reply: OrderFlowReply;
      if (event.event_type === 'v1:order.refund')
        reply = await refundToOrderFlow(options.client, shopRefs, event.data.purchase_id);
      else {
        const shop = bySeller.get(event.data.seller_id);
        if (!shop) return unknownSeller(res, base);
        const { purchase_id: purchaseId, line_items: items } = event.data;
        reply = await startOrderFromWebhook(
          options.client,
          taskQueue,
          { purchaseId, shop: refOf(shop), productIds: items.map((l) => l.product_id) },
          {
            ...(options.delist !== false
              ? { delist: { shops: shopRefs, skuMapPath: options.skuMapPath } }
              : {}),
            reminders: options.orders.reminders,
          },
        );
      }
      const { body, ...entry } = reply;
      return answer(res, { ...base, ...entry }, body);
    }
    if (event.event_type === 'v1:order.new' && options.delist !== false) {
      const shop = bySeller.get(event.data.seller_id);
      if (!shop) return unknownSeller(res, base);
      const { started, workflowId } = await startDelist(
        options.client,
        {
          purchaseId: event.data.purchase_id,
          source: refOf(shop),
          productIds: event.data.line_items.map((l) => l.product_id),
          shops: shopRefs,
          skuMapPath: options.skuMapPath,
          receivedAt,
        },
        taskQueue,
      );
      return answer(
        res,
        { ...base, status: 200, action: started ? 'delist_started' : 'delist_duplicate', workflowId },
        { workflowId, started },
      );
    }
    if (event.event_type === 'v1:product.like' && offers) {
      const shop = bySeller.get(event.data.seller_id);
      if (!shop) return unknownSeller(res, base);
      const { workflowId } = await recordLike(
        options.client,
        {
          shop: refOf(shop),
          productId: event.data.product_id,
          likerId: event.data.liker_id,
          settings: offers,
        },
        taskQueue,
      );
      return answer(res, { ...base, status: 200, action: 'like_recorded', workflowId }, { workflowId });
    }
    return answer(res, { ...base, status: 200, action: 'ignored' }, { ignored: event.event_type });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      // Temporal unreachable or refusing: not recorded, so the sender must deliver again. The message
      // names the failure's kind only (never the body or a secret).
      const reason = e instanceof Error ? e.name : 'error';
      if (!res.headersSent) answer(res, { status: 503, action: 'error', reason }, { error: 'unavailable' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}${path}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
