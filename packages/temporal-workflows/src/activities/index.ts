// Activities: all I/O of the jobs, through the typed client (`createActivities(deps)`, dependencies
// injected by the worker as in the samples' activities-dependency-injection).
import { appendFile, mkdir } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { dirname, join } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { createClient, ReauthorizationRequiredError, ValidationError } from '@selling-kit/api-client';
import {
  acquireUpdate,
  capUpdate,
  laneWorkflowId,
  shopLaneWorkflow,
  type LaneInput,
} from '../workflows/shop-lane.ts';
import { appBudgetWorkflow, appBudgetWorkflowId, leaseUpdate, type Lease } from '../workflows/app-budget.ts';
import type { AcquireRequest, AcquireResult } from '../workflows/pacing.ts';
import type {
  BatchResult,
  BulkJobOptions,
  BulkOperation,
  FeedRef,
  ItemRef,
  ItemResult,
  SendOutcome,
  ShopRef,
  SlotBatch,
} from '../types.ts';
import { readChunk } from './feed.ts';
import { createClientCache, type CredentialStore, type TokenStore } from './clients.ts';
import { findBySku, sendOne, toActivityFailure } from './send.ts';

export type { Credential, CredentialStore, SellerTokens, TokenStore } from './clients.ts';

export interface ActivityDeps {
  credentials: CredentialStore;
  /** Temporal client for the lanes and auth workflows (entity workflows reached by update). */
  temporal?: Client;
  /** Task queue the entity workflows run on (the worker's). */
  taskQueue?: string;
  /** OAuth tokens of connected sellers (cross-listers). */
  tokens?: TokenStore;
  /** Receives the activities' clean-up (HTTP connection pools), run by the worker's close(). */
  closers?: (() => Promise<void>)[];
}

export interface AcquireInput {
  shop: ShopRef;
  group: string;
  lane: LaneInput;
  request: AcquireRequest;
  appBudget?: BulkJobOptions['appBudget'];
}

/** A slot still waiting for answers after this long lets the next slot start. */
const STALL_MS = 1_000;

/** Heartbeated progress of a batch: a retried attempt resumes from it. */
interface BatchProgress {
  outcomes: Record<number, SendOutcome>;
  lastAt: Record<number, number>;
}

export function createActivities(deps: ActivityDeps) {
  const clients = createClientCache(deps);
  deps.closers?.push(() => clients.close());
  const taskQueue = deps.taskQueue ?? 'selling-kit';
  /** Leases of the app-wide budget this worker holds, per app and shop (renewed before they end). */
  const leases = new Map<string, Lease & { cap: number | undefined }>();

  const temporal = () => {
    if (!deps.temporal) throw new Error('entity workflows need the worker to be given a Temporal client');
    return deps.temporal;
  };

  /** An update to an entity workflow, starting it first when it does not run. */
  async function entityUpdate<R>(start: () => Promise<unknown>, send: () => Promise<R>): Promise<R> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        // Not started yet, or between two runs (continue-as-new): start (or find) it and try again.
        if (attempt >= 5) throw error;
        if (error instanceof WorkflowNotFoundError || /completed|not found/i.test(String(error))) {
          await start();
          if (attempt > 0) await delay(50 * attempt);
          continue;
        }
        throw error;
      }
    }
  }

  async function shopLaneUpdate(shop: ShopRef, group: string, lane: LaneInput, req: AcquireRequest) {
    const workflowId = laneWorkflowId(shop.shopId, group);
    const handle = temporal().workflow.getHandle(workflowId);
    return entityUpdate(
      () =>
        temporal().workflow.start(shopLaneWorkflow, {
          workflowId,
          taskQueue,
          args: [lane],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      () => handle.executeUpdate(acquireUpdate, { args: [req] }),
    );
  }

  /** For an OAuth shop: this shop's share of its app's budget, renewed before the lease ends. */
  async function appShare(
    shop: ShopRef,
    group: string,
    lane: LaneInput,
    budget: NonNullable<AcquireInput['appBudget']>,
  ): Promise<void> {
    const appId = budget.appId || (await clients.appOf(shop));
    if (!appId) return;
    const key = `${appId}|${shop.shopId}|${group}`;
    const held = leases.get(key);
    if (held && held.until - Date.now() > held.leaseMs / 3) return;
    const workflowId = appBudgetWorkflowId(appId);
    const appWindowMs = budget.allowance?.windowMs ?? 60_000;
    const lease = await entityUpdate(
      () =>
        temporal().workflow.start(appBudgetWorkflow, {
          workflowId,
          taskQueue,
          args: [{ appId, allowance: budget.allowance, headroom: budget.headroom, leaseMs: budget.leaseMs }],
          workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      () =>
        temporal()
          .workflow.getHandle(workflowId)
          .executeUpdate(leaseUpdate, {
            args: [
              { shopId: shop.shopId, want: (lane.allowance.limit * appWindowMs) / lane.allowance.windowMs },
            ],
          }),
    );
    // The lease counts requests per budget window; the lane counts them per window of its group.
    const cap = Math.floor((lease.perWindow * lane.allowance.windowMs) / lease.windowMs);
    if (held?.cap !== cap) {
      const laneId = laneWorkflowId(shop.shopId, group);
      await temporal()
        .workflow.getHandle(laneId)
        .executeUpdate(capUpdate, { args: [{ requestsPerWindow: cap }] })
        .catch(async () => {
          await temporal().workflow.start(shopLaneWorkflow, {
            workflowId: laneId,
            taskQueue,
            args: [lane],
            workflowIdConflictPolicy: 'USE_EXISTING',
          });
          await temporal()
            .workflow.getHandle(laneId)
            .executeUpdate(capUpdate, { args: [{ requestsPerWindow: cap }] });
        });
    }
    leases.set(key, { ...lease, cap });
  }

  return {
    async readFeedChunk(feed: FeedRef, offset: number, size: number, operation: BulkOperation = 'create') {
      return readChunk(feed, offset, size, operation);
    },

    /**
     * Sends a window's slots: each slot's requests leave no earlier than the slot's `notBefore` (the
     * workflow's timer brings the batch close; the last milliseconds are waited here). Nothing is
     * retried here. Outcomes are heartbeated, so an attempt retried after a worker crash skips what is
     * done and resends what was in flight as a `resend` (an "already exists" then means it landed).
     */
    async sendBatch(
      shop: ShopRef,
      operation: BulkOperation,
      batch: { deadline: number; slots: SlotBatch[] },
    ): Promise<BatchResult> {
      const client = await clients.clientFor(shop);
      const ctx = Context.current();
      const earlier =
        ctx.info.attempt > 1 ? (ctx.info.heartbeatDetails as BatchProgress | undefined) : undefined;
      const progress: BatchProgress = earlier ?? { outcomes: {}, lastAt: {} };
      const runSlot = async (s: SlotBatch) => {
        const todo = s.items.filter((i) => !progress.outcomes[i.line]);
        if (todo.length === 0) return;
        const wait = s.notBefore - Date.now();
        if (wait > 0) await delay(wait, undefined, { signal: ctx.cancellationSignal }).catch(() => {});
        // Too late: the lane may have handed this slot to another job. Give the items back unsent.
        if (Date.now() > batch.deadline || ctx.cancellationSignal.aborted) {
          for (const i of todo)
            progress.outcomes[i.line] = { line: i.line, status: 'retry', reason: 'not sent' };
          return;
        }
        await Promise.all(
          todo.map(async (item) => {
            const resend = earlier !== undefined || item.resend;
            progress.outcomes[item.line] = await sendOne(client, operation, { ...item, resend });
            progress.lastAt[s.slot] = Math.max(progress.lastAt[s.slot] ?? 0, Date.now());
            ctx.heartbeat(progress);
          }),
        );
      };
      // Slots go one after another, in the order they open: a slot alone on the wire is short, and a
      // slot's length is all a window loses. A slot stuck on a slow answer lets the next one start.
      const ordered = [...batch.slots].sort((a, b) => a.notBefore - b.notBefore);
      const inFlight: Promise<void>[] = [];
      for (const slot of ordered) {
        const previous = inFlight.at(-1);
        if (previous) await Promise.race([previous, delay(STALL_MS)]);
        inFlight.push(runSlot(slot));
      }
      await Promise.all(inFlight);
      const outcomes = batch.slots.flatMap((s) => s.items.map((i) => progress.outcomes[i.line]!));
      const limited = outcomes.filter((o) => o.status === 'rate_limited');
      return {
        outcomes,
        slots: batch.slots.map((s) => ({ slot: s.slot, lastAt: progress.lastAt[s.slot] ?? null })),
        retryAfterMs: limited.length ? Math.max(...limited.map((o) => o.retryAfterMs)) : undefined,
      };
    },

    /** GET by SKU for each: the listing's keys when found, nothing when absent. */
    async verifyBySku(
      shop: ShopRef,
      skus: string[],
    ): Promise<Record<string, { productId: number; slug: string }>> {
      const client = await clients.clientFor(shop);
      const found: Record<string, { productId: number; slug: string }> = {};
      for (const sku of skus) {
        const hit = await findBySku(client, sku);
        if (hit) found[sku] = hit;
        Context.current().heartbeat();
      }
      return found;
    },

    /** Asks the shop's lane for slots (reporting the last ones), after the app's share when OAuth. */
    async acquireSlots(input: AcquireInput): Promise<AcquireResult> {
      if (input.shop.auth === 'oauth' && input.appBudget)
        await appShare(input.shop, input.group, input.lane, input.appBudget);
      return shopLaneUpdate(input.shop, input.group, input.lane, input.request);
    },

    /**
     * A sale elsewhere: mark the listing sold now. One attempt per activity attempt; Temporal retries
     * (429 after its Retry-After, 5xx with backoff). A repeat that finds the listing no longer on sale
     * after an unknown first attempt counts as sold.
     */
    async markSold(
      shop: ShopRef,
      ref: ItemRef,
    ): Promise<{ status: 'sold' | 'already_sold'; attempts: number }> {
      const client = await clients.clientFor(shop);
      const ctx = Context.current();
      const attempts = ctx.info.attempt;
      try {
        await client.products.markAsSold(ref as never, { signal: ctx.cancellationSignal });
        return { status: 'sold', attempts };
      } catch (error) {
        if (attempts > 1 && error instanceof ValidationError && error.code === 'product_not_on_sale')
          return { status: 'already_sold', attempts };
        return toActivityFailure(error);
      }
    },

    /** Orders created since `since` (ISO date-time), all pages. */
    async listRecentOrders(shop: ShopRef, since: string): Promise<{ purchaseId: string; status: string }[]> {
      const out: { purchaseId: string; status: string }[] = [];
      try {
        for await (const order of (await clients.clientFor(shop)).orders.list({ from: since, limit: 200 })) {
          out.push({ purchaseId: order.purchase_id, status: order.status });
          Context.current().heartbeat();
        }
      } catch (error) {
        if (error instanceof ApplicationFailure) throw error;
        return toActivityFailure(error);
      }
      return out;
    },

    /** The seller's token expiry and version (no token leaves the worker). */
    async describeSellerTokens(tokenRef: string): Promise<{ expiresAt: number; version: number }> {
      const t = await deps.tokens?.get(tokenRef);
      if (!t)
        throw ApplicationFailure.nonRetryable(
          `no tokens named "${tokenRef}" in the worker's token store`,
          'ReauthorizationRequired',
        );
      return { expiresAt: t.expiresAt, version: t.version ?? 0 };
    },

    /** Refreshes with rotation; the new pair is stored before anything uses it. invalid_grant is final. */
    async refreshSellerTokens(tokenRef: string, version: number): Promise<{ expiresAt: number }> {
      const t = await deps.tokens?.get(tokenRef);
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
          version,
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

    async appendReport(reportDir: string, jobId: string, results: ItemResult[]): Promise<void> {
      if (results.length === 0) return;
      const path = reportPath(reportDir, jobId);
      await mkdir(dirname(path), { recursive: true });
      await appendFile(path, results.map((r) => JSON.stringify(r)).join('\n') + '\n');
    },
  };
}

const safe = (s: string) => s.replace(/[^\w.-]/g, '_');

/**
 * `<reportDir>/<jobId>.ndjson`; a shop's part of a many-shop job (`<jobId>/<shopId>`) goes to
 * `<reportDir>/<jobId>/<shopId>.ndjson`.
 */
export function reportPath(reportDir: string, jobId: string): string {
  const [job, ...rest] = jobId.split('/');
  return rest.length
    ? join(reportDir, safe(job!), `${safe(rest.join('/'))}.ndjson`)
    : join(reportDir, `${safe(job!)}.ndjson`);
}
