// The daily orders reconciliation's part in the order flows (workflows/reconcile-orders.ts): webhooks are
// best effort, so every order still waiting to be shipped gets its flow (started once: one that exists is
// left alone), and the order of every running flow of the shop is read (paced, as the flows' own reads): a
// flow whose order was shipped, refunded or cancelled outside the kit is told to read it — only those, so a
// waiting flow's history does not grow by a day's wake-up. Starts and signals go through the worker's
// Temporal client from here, not as workflow commands: a day of orders costs the run's history nothing.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError } from '@temporalio/client';
import { startOnce } from '../client/start-once.ts';
import { ORDER_MESSAGES, orderTaskQueue, orderWorkflowId, WORKFLOW_TYPES } from '../contract.ts';
import { orderFlowsQuery, orderSearchAttributes } from '../search-attributes.ts';
import type { ShopRef } from '../types.ts';
import type {
  OrderFlowInput,
  OrderFlowSettings,
  OrderFlowsReconciled,
  OrderSeen,
} from '../webhooks/order-types.ts';
import type { ActivityContext } from './context.ts';
import { toActivityFailure } from './send.ts';

/** The order's status and parcels, read in the shop's turn (orders.ts). */
type ReadOrder = (shop: ShopRef, purchaseId: string) => Promise<OrderSeen>;

export function createOrderReconcileActivities(
  { clients, deps, taskQueue }: ActivityContext,
  read: ReadOrder,
) {
  return {
    async reconcileOrderFlows(
      shop: ShopRef,
      since: string,
      settings: OrderFlowSettings,
    ): Promise<OrderFlowsReconciled> {
      const temporal = deps.temporal;
      if (!temporal)
        throw ApplicationFailure.nonRetryable(
          'order flows need the worker’s Temporal client',
          'NoTemporalClient',
        );
      const ctx = Context.current();
      const pending: OrderFlowInput[] = [];
      try {
        const client = await clients.clientFor(shop);
        for await (const order of client.orders.list({ from: since, limit: 200 })) {
          ctx.heartbeat();
          if (order.status !== 'SHIPPING_PENDING') continue;
          pending.push({
            purchaseId: order.purchase_id,
            shop,
            productIds: (order.line_items ?? []).map((l) => l.product_id),
            ...(settings.delist ? { delist: settings.delist } : {}),
            ...(settings.reminders ? { reminders: settings.reminders } : {}),
            startedBy: 'reconciliation',
          });
        }
      } catch (error) {
        return toActivityFailure(error);
      }
      let started = 0;
      for (const input of pending) {
        ctx.heartbeat();
        const { started: now } = await startOnce(temporal, WORKFLOW_TYPES.order, {
          taskQueue: orderTaskQueue(taskQueue),
          workflowId: orderWorkflowId(shop.shopId, input.purchaseId),
          args: [input],
          typedSearchAttributes: orderSearchAttributes(shop.shopId, 'awaiting_tracking'),
        });
        if (now) started++;
      }
      // Every running flow's order, read (visibility: a flow started a moment ago may be missing, and
      // reads its order on its own anyway); those no longer waiting are told.
      const waiting = new Set(pending.map((p) => orderWorkflowId(shop.shopId, p.purchaseId)));
      const prefix = orderWorkflowId(shop.shopId, '');
      const query = orderFlowsQuery({ shopId: shop.shopId });
      let looked = 0;
      let told = 0;
      for await (const flow of temporal.workflow.list({ query })) {
        ctx.heartbeat();
        if (waiting.has(flow.workflowId) || !flow.workflowId.startsWith(prefix)) continue;
        looked++;
        const order = await read(shop, flow.workflowId.slice(prefix.length)).catch(() => undefined);
        if (order?.status === 'SHIPPING_PENDING') continue;
        try {
          await temporal.workflow.getHandle(flow.workflowId).signal(ORDER_MESSAGES.orderSeenSignal, {
            source: 'reconciliation',
          });
          told++;
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error;
        }
      }
      return { pending: pending.length, started, looked, told };
    },
  };
}
