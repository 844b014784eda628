// Activities: all I/O of the bulk job, through the typed client. The workflow owns pacing and
// verification, so the client here makes one attempt at a 429 or an unknown outcome and reports it.
import { appendFile, mkdir } from 'node:fs/promises';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import {
  acquireUpdate,
  laneWorkflowId,
  rateLimitedUpdate,
  shopLaneWorkflow,
  type LaneGrant,
} from '../workflows/shop-lane.ts';
import type { Allowance } from '../types.ts';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import {
  createClient,
  ReauthorizationRequiredError,
  OutcomeUnknownError,
  ProductNotFoundError,
  RateLimitedError,
  SellingApiError,
  ServerError,
  TransportError,
  type SellingClient,
} from '@selling-kit/api-client';
import type { BulkOperation, FeedItem, FeedRef, ItemResult, SendOutcome } from '../types.ts';
import { readChunk } from './feed.ts';

/** Where the worker finds a shop's secret: the workflow only ever names it. */
export interface Credential {
  baseUrl: string;
  apiKey: string;
}
export type CredentialStore = (credentialRef: string) => Credential | undefined;

/** A seller's OAuth tokens and the app credentials to refresh them; kept by the worker only. */
export interface SellerTokens {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
}
export interface TokenStore {
  get(ref: string): SellerTokens | undefined;
  /** Called with the rotated pair BEFORE it is used: the old refresh token no longer works. */
  set(ref: string, tokens: SellerTokens): void | Promise<void>;
}

export interface ActivityDeps {
  credentials: CredentialStore;
  /** Temporal client for the shop lanes (two jobs of one shop share its allowance). */
  temporal?: Client;
  /** Task queue the lanes run on (the worker's). */
  taskQueue?: string;
  /** OAuth tokens of connected sellers (cross-listers). */
  tokens?: TokenStore;
  /** Concurrent requests inside one batch (default 16). */
  concurrency?: number;
}

export function createActivities(deps: ActivityDeps) {
  const clients = new Map<string, SellingClient>();
  const clientFor = (ref: string): SellingClient => {
    let client = clients.get(ref);
    if (!client) {
      const cred = deps.credentials(ref);
      if (!cred) throw new Error(`no credential named "${ref}" in the worker's credential store`);
      client = createClient({
        baseUrl: cred.baseUrl,
        apiKey: cred.apiKey,
        pacing: false, // the workflow paces with timers
        retry: { maxRateLimitRetries: 0 }, // a 429 goes back to the workflow with its Retry-After
        validate: false, // items were checked when the feed was read
      });
      clients.set(ref, client);
    }
    return client;
  };

  async function sendOne(
    client: SellingClient,
    operation: BulkOperation,
    item: FeedItem,
  ): Promise<SendOutcome> {
    const { line, sku } = item;
    try {
      const res =
        operation === 'create'
          ? await client.request<{ product_id: number; slug: string }>(
              { method: 'POST', path: '/api/v1/products/', body: item.body },
              { maxRetries: 2 },
            )
          : await client.products.updateBySku(sku, { attributes: {}, ...withoutSku(item.body) } as never);
      return { line, sku, status: 'ok', productId: res.product_id, slug: res.slug };
    } catch (error) {
      if (error instanceof RateLimitedError)
        return { line, sku, status: 'rate_limited', retryAfterMs: error.retryAfterMs ?? 1000 };
      if (error instanceof OutcomeUnknownError) return { line, sku, status: 'unknown' };
      if (error instanceof TransportError)
        return { line, sku, status: error.requestSent ? 'unknown' : 'retry' };
      if (error instanceof ServerError)
        return { line, sku, status: error.status === 504 ? 'unknown' : 'retry' };
      if (error instanceof SellingApiError) {
        if (item.recreate && /already exists/.test(error.message)) {
          // The earlier create landed after all (later than our verification rounds): not a failure.
          const found = await findBySku(client, sku);
          if (found) return { line, sku, status: 'ok', ...found };
        }
        return {
          line,
          sku,
          status: 'failed',
          code: error.code,
          message: error.message,
          errorId: error.errorId,
        };
      }
      throw error;
    }
  }

  const lane = async (shopId: string, group: string, allowance: Allowance) => {
    if (!deps.temporal) throw new Error('shop lanes need the worker to be given a Temporal client');
    return deps.temporal.workflow.start(shopLaneWorkflow, {
      workflowId: laneWorkflowId(shopId, group),
      taskQueue: deps.taskQueue ?? 'selling-kit',
      args: [allowance],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  };

  return {
    async readFeedChunk(feed: FeedRef, offset: number, size: number, operation: BulkOperation = 'create') {
      return readChunk(feed, offset, size, operation);
    },

    /**
     * Sends a window's items (a few at a time) and reports each outcome; nothing is retried here. Each
     * outcome is heartbeated, so an attempt retried after a worker crash skips what is done and treats
     * what was in flight as a possible re-create (an "already exists" then means it landed).
     */
    async sendBatch(
      shop: { credentialRef: string },
      operation: BulkOperation,
      items: FeedItem[],
    ): Promise<SendOutcome[]> {
      const client = clientFor(shop.credentialRef);
      const ctx = Context.current();
      const earlier = (ctx.info.attempt > 1 ? ctx.info.heartbeatDetails : undefined) as
        (SendOutcome | null)[] | undefined;
      const out: (SendOutcome | null)[] = earlier ? [...earlier] : new Array<null>(items.length).fill(null);
      let next = 0;
      const lane = async () => {
        while (next < items.length) {
          const i = next++;
          if (out[i]) continue;
          out[i] = await sendOne(client, operation, earlier ? { ...items[i]!, recreate: true } : items[i]!);
          ctx.heartbeat(out);
        }
      };
      await Promise.all(Array.from({ length: Math.min(deps.concurrency ?? 16, items.length) }, lane));
      return out as SendOutcome[];
    },

    /** GET by SKU for each: the listing's keys when found, nothing when absent. */
    async verifyBySku(
      shop: { credentialRef: string },
      skus: string[],
    ): Promise<Record<string, { productId: number; slug: string }>> {
      const client = clientFor(shop.credentialRef);
      const found: Record<string, { productId: number; slug: string }> = {};
      for (const sku of skus) {
        const hit = await findBySku(client, sku);
        if (hit) found[sku] = hit;
        Context.current().heartbeat();
      }
      return found;
    },

    /** Orders created since `since` (ISO date-time), all pages. */
    async listRecentOrders(
      shop: { credentialRef: string },
      since: string,
    ): Promise<{ purchaseId: string; status: string }[]> {
      const out: { purchaseId: string; status: string }[] = [];
      for await (const order of clientFor(shop.credentialRef).orders.list({ from: since, limit: 200 })) {
        out.push({ purchaseId: order.purchase_id, status: order.status });
        Context.current().heartbeat();
      }
      return out;
    },

    /** The seller's token expiry (no token leaves the worker). */
    async describeSellerTokens(tokenRef: string): Promise<{ expiresAt: number }> {
      const t = deps.tokens?.get(tokenRef);
      if (!t)
        throw ApplicationFailure.nonRetryable(
          `no tokens named "${tokenRef}" in the worker's token store`,
          'ReauthorizationRequired',
        );
      return { expiresAt: t.expiresAt };
    },

    /** Refreshes with rotation; the new pair is stored before anything uses it. invalid_grant is final. */
    async refreshSellerTokens(tokenRef: string): Promise<{ expiresAt: number }> {
      const t = deps.tokens?.get(tokenRef);
      if (!t)
        throw ApplicationFailure.nonRetryable(
          `no tokens named "${tokenRef}" in the worker's token store`,
          'ReauthorizationRequired',
        );
      const client = createClient({
        baseUrl: t.baseUrl,
        oauth: { clientId: t.clientId, clientSecret: t.clientSecret },
        pacing: false,
      });
      try {
        const next = await client.auth.refresh({ refreshToken: t.refreshToken });
        const expiresAt = next.expiresAt ?? Date.now() + 3600_000;
        await deps.tokens!.set(tokenRef, {
          ...t,
          accessToken: next.accessToken,
          refreshToken: next.refreshToken,
          expiresAt,
        });
        return { expiresAt };
      } catch (error) {
        if (error instanceof ReauthorizationRequiredError) {
          throw ApplicationFailure.nonRetryable(
            'the seller must authorise the application again (invalid_grant)',
            'ReauthorizationRequired',
          );
        }
        throw error;
      } finally {
        await client.close();
      }
    },

    /** Asks the shop's lane for up to `want` requests of this window (starting the lane if needed). */
    async acquireWindow(
      shopId: string,
      group: string,
      allowance: Allowance,
      want: number,
    ): Promise<LaneGrant> {
      return (await lane(shopId, group, allowance)).executeUpdate(acquireUpdate, { args: [{ want }] });
    },

    /** Holds every job of the shop for a 429's Retry-After. */
    async laneRateLimited(
      shopId: string,
      group: string,
      allowance: Allowance,
      retryAfterMs: number,
    ): Promise<void> {
      await (
        await lane(shopId, group, allowance)
      ).executeUpdate(rateLimitedUpdate, { args: [{ retryAfterMs }] });
    },

    async appendReport(reportDir: string, jobId: string, results: ItemResult[]): Promise<void> {
      if (results.length === 0) return;
      await mkdir(reportDir, { recursive: true });
      await appendFile(reportPath(reportDir, jobId), results.map((r) => JSON.stringify(r)).join('\n') + '\n');
    },
  };
}

export function reportPath(reportDir: string, jobId: string): string {
  return join(reportDir, `${jobId.replace(/[^\w.-]/g, '_')}.ndjson`);
}

async function findBySku(client: SellingClient, sku: string) {
  try {
    const p = await client.products.getBySku(sku);
    return { productId: p.product_id, slug: p.slug };
  } catch (error) {
    if (error instanceof ProductNotFoundError) return undefined;
    throw error;
  }
}

function withoutSku(body: Record<string, unknown>) {
  const { sku: _sku, ...rest } = body;
  return rest;
}
