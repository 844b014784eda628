// Activities that reach the pacing entities on this worker's task queue: the shop's lane
// (`lane:<taskQueue>:<shopId>:<group>`) and, for OAuth shops, the app-wide budget allocator
// (`app-budget:<taskQueue>:<appId>`). Workflow code cannot send updates, so jobs
// come here once per window. Every update is an update-with-start (the entity starts on first use, and a
// run handing over to the next by continue-as-new is retried by the client onto the new run); the job's
// update id makes a retried activity's acquire count once.
import { WithStartWorkflowOperation, type Workflow } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import {
  acquireUpdate,
  capUpdate,
  laneWorkflowId,
  shopLaneWorkflow,
  type LaneInput,
} from '../workflows/shop-lane.ts';
import {
  appBudgetWorkflow,
  appBudgetWorkflowId,
  leaseUpdate,
  type BudgetInput,
  type Lease,
} from '../workflows/app-budget.ts';
import type { AcquireRequest, AcquireResult } from '../workflows/pacing.ts';
import type { BulkJobOptions, ShopRef } from '../types.ts';
import type { ActivityContext } from './context.ts';

export interface AcquireInput {
  shop: ShopRef;
  group: string;
  lane: LaneInput;
  request: AcquireRequest;
  appBudget?: BulkJobOptions['appBudget'];
}

export function createLaneActivities({ deps, clients, taskQueue }: ActivityContext) {
  /**
   * When this worker last renewed each lease (per app, shop and group): only to know when to renew again.
   * Whether the lane hears of a lease is never decided here — the lane orders caps by their lease's end.
   */
  const renewed = new Map<string, Lease>();

  const temporal = () => {
    if (!deps.temporal) throw new Error('entity workflows need the worker to be given a Temporal client');
    return deps.temporal;
  };

  /** An update to an entity workflow, starting it when it does not run. */
  function entityUpdate<T extends Workflow, R, A extends unknown[]>(
    start: WithStartWorkflowOperation<T>,
    update: UpdateDefinition<R, A>,
    args: A,
    updateId?: string,
  ): Promise<R> {
    return temporal().workflow.executeUpdateWithStart(update, {
      args,
      updateId,
      startWorkflowOperation: start,
    });
  }

  const laneStart = (shopId: string, group: string, lane: LaneInput) =>
    new WithStartWorkflowOperation(shopLaneWorkflow, {
      workflowId: laneWorkflowId(taskQueue, shopId, group),
      taskQueue,
      args: [lane],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });

  /** For an OAuth shop: this lane's share of its app's budget, renewed before the lease ends. */
  async function appShare(
    shop: ShopRef,
    group: string,
    lane: LaneInput,
    budget: NonNullable<AcquireInput['appBudget']>,
  ): Promise<void> {
    const appId = budget.appId || (await clients.appOf(shop));
    if (!appId) return;
    const key = `${shop.shopId}:${group}`;
    const held = renewed.get(`${appId}|${key}`);
    if (held && held.until - Date.now() > held.leaseMs / 3) return;
    const appWindowMs = budget.allowance?.windowMs ?? 60_000;
    const input: BudgetInput = {
      appId,
      allowance: budget.allowance,
      headroom: budget.headroom,
      leaseMs: budget.leaseMs,
    };
    const want = (lane.allowance.limit * appWindowMs) / lane.allowance.windowMs;
    const start = new WithStartWorkflowOperation(appBudgetWorkflow, {
      workflowId: appBudgetWorkflowId(taskQueue, appId),
      taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    const lease = await entityUpdate(start, leaseUpdate, [{ shopId: shop.shopId, key, want }]);
    // The lease counts requests per budget window; the lane counts them per window of its group. Sent after
    // every renewal: the lane keeps the newest lease (by its end), whichever worker renewed it.
    const requestsPerWindow = Math.floor((lease.perWindow * lane.allowance.windowMs) / lease.windowMs);
    await entityUpdate(laneStart(shop.shopId, group, lane), capUpdate, [
      { requestsPerWindow, seq: lease.until },
    ]);
    renewed.set(`${appId}|${key}`, lease);
  }

  return {
    /** Asks the shop's lane for slots (reporting the last ones), after the app's share when OAuth. */
    async acquireSlots(input: AcquireInput): Promise<AcquireResult> {
      if (input.shop.auth === 'oauth' && input.appBudget)
        await appShare(input.shop, input.group, input.lane, input.appBudget);
      const { shop, group, lane, request } = input;
      return entityUpdate(laneStart(shop.shopId, group, lane), acquireUpdate, [request], request.updateId);
    },
  };
}
