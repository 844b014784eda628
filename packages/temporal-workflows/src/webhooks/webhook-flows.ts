// Starting the webhook-driven flows from a client: the delist of one order (idempotent per order), a
// like handed to its listing's offers workflow (signalWithStart), and the schedule that catches the
// sales whose webhook never arrived.
import type { Client } from '@temporalio/client';
import { DEFAULT_MIN_PERCENT_OFF, OFFER_LIFETIME_MS } from '@selling-kit/api-client/core';
import {
  delistOnSaleWorkflow,
  likeSignal,
  likerOffersWorkflow,
  reconcileSalesWorkflow,
} from '../workflows/index.ts';
import {
  DEFAULT_TASK_QUEUE,
  delistWorkflowId,
  likerOffersWorkflowId,
  reconcileSalesWorkflowId,
} from '../contract.ts';
import { reconciliationSchedule } from '../client/schedules.ts';
import { startOnce } from '../client/start-once.ts';
import type { ShopRef } from '../types.ts';
import type { DelistInput, LikerOfferSettings, ReconcileSalesInput } from './sales-types.ts';

/**
 * Starts the delist workflow of one order and returns once the server has recorded the start (a
 * receiver may answer its webhook then). `started: false`: the order has been delisted already, or is
 * being delisted — a second delivery does nothing. Only a delist that failed may run again.
 */
export async function startDelist(
  client: Client,
  input: DelistInput,
  taskQueue = DEFAULT_TASK_QUEUE,
): Promise<{ started: boolean; workflowId: string }> {
  return startOnce(client, delistOnSaleWorkflow, {
    taskQueue,
    workflowId: delistWorkflowId(input.source.shopId, input.purchaseId),
    args: [input],
  });
}

/** Validated offer settings; the errors name the field and the rule. */
export function checkOfferSettings(settings: LikerOfferSettings): Required<LikerOfferSettings> {
  const min = settings.minPercentOff ?? DEFAULT_MIN_PERCENT_OFF;
  const { delayMs, percentOff } = settings;
  if (!Number.isFinite(delayMs) || delayMs < 0)
    throw new RangeError(`offers delayMs must be a number of milliseconds ≥ 0, got ${delayMs}`);
  if (!Number.isFinite(min) || min < 0 || min >= 100)
    throw new RangeError(`offers minPercentOff must be between 0 and 100, got ${min}`);
  if (!Number.isFinite(percentOff) || percentOff < min || percentOff >= 100)
    throw new RangeError(
      `offers percentOff must be at least the minimum ${min}% below the price and under 100, got ${percentOff}`,
    );
  const lifetimeMs = settings.lifetimeMs ?? OFFER_LIFETIME_MS;
  if (!Number.isFinite(lifetimeMs) || lifetimeMs <= 0)
    throw new RangeError(`offers lifetimeMs must be a positive number of milliseconds, got ${lifetimeMs}`);
  return { delayMs, percentOff, minPercentOff: min, lifetimeMs, likesPerRun: settings.likesPerRun ?? 500 };
}

/**
 * Hands a like to the listing's offers workflow, starting it if none runs (signalWithStart: one call,
 * durable once it returns). Settings apply to a run this call starts; a running one keeps its own.
 */
export async function recordLike(
  client: Client,
  input: { shop: ShopRef; productId: number; likerId: number; settings: LikerOfferSettings },
  taskQueue = DEFAULT_TASK_QUEUE,
): Promise<{ workflowId: string }> {
  const settings = checkOfferSettings(input.settings);
  const workflowId = likerOffersWorkflowId(input.shop.shopId, input.productId);
  await client.workflow.signalWithStart(likerOffersWorkflow, {
    taskQueue,
    workflowId,
    args: [{ shop: input.shop, productId: input.productId, ...settings }],
    signal: likeSignal,
    signalArgs: [{ likerId: input.likerId }],
  });
  return { workflowId };
}

/**
 * The missed-webhook catch-up: every `timing` (default hourly), the last `lookbackHours` (24) of orders
 * of every connected shop, each delisted once (reconcileSalesWorkflow). Policies as every schedule's.
 */
export const createSalesReconciliationSchedule = reconciliationSchedule<ReconcileSalesInput>({
  workflowType: reconcileSalesWorkflow,
  workflowId: reconcileSalesWorkflowId,
  timing: { every: '1h' },
});
