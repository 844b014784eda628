// Activities that reach the pacing entities on this worker's task queue: the shop's lane
// (`lane:<taskQueue>:<shopId>:<group>`) and, for OAuth shops, the app-wide budget allocator
// (`app-budget:<taskQueue>:<appId>`), whose lease requests this worker batches. Workflow code cannot send
// updates, so jobs come here once per window. Every update is an update-with-start (the entity starts on first use, and a
// run handing over to the next by continue-as-new is retried by the client onto the new run); the job's
// update id makes a retried activity's acquire count once.
import { appBudgetWorkflowId, laneWorkflowId, WORKFLOW_TYPES } from '../contract.ts';
import { renewalDue, type AcquireRequest, type AcquireResult } from '../workflows/pacing.ts';
import type { BulkJobOptions, ShopRef } from '../types.ts';
import type { ActivityContext } from './context.ts';
import { startOrUpdate, type Entity } from './entities.ts';
import { acquireUpdate, type LaneInput, leasesUpdate, type BudgetInput } from '../workflows/messages.ts';
import type { Lease, LeaseRequest } from '../types.ts';

export interface AcquireInput {
  shop: ShopRef;
  group: string;
  lane: LaneInput;
  request: AcquireRequest;
  appBudget?: BulkJobOptions['appBudget'];
}

/** Keys one batch of lease requests carries at most (a few KiB of update payload). */
const MAX_BATCH = 200;

/** Lease requests of this worker for one app's allocator: at most one update in flight, the rest wait. */
interface LeaseQueue {
  input: BudgetInput;
  inFlight: boolean;
  /** By key: the latest want and everyone waiting for that key's lease. */
  waiting: Map<
    string,
    { request: LeaseRequest; waiters: { resolve(l: Lease): void; reject(e: unknown): void }[] }
  >;
}

/** The shop's lane for one rate group on `taskQueue`, started with `lane` when it does not run. */
export const laneOf = (
  taskQueue: string,
  shopId: string,
  group: string,
  lane: LaneInput,
): Entity<[LaneInput]> => ({
  workflowType: WORKFLOW_TYPES.shopLane,
  start: { workflowId: laneWorkflowId(taskQueue, shopId, group), taskQueue, args: [lane] },
});

export function createLaneActivities({ deps, clients, taskQueue }: ActivityContext) {
  /**
   * The lease this worker last got for each app, shop and group: sent with every acquire (the lane keeps
   * the newest by its end, whichever worker renewed it) and renewed when due (`renewalDue`).
   */
  const renewed = new Map<string, Lease>();
  const queues = new Map<string, LeaseQueue>();

  const temporal = () => {
    if (!deps.temporal) throw new Error('entity workflows need the worker to be given a Temporal client');
    return deps.temporal;
  };

  /**
   * A lease from the app's allocator, batched: the server admits 10 updates in flight per workflow and
   * the allocator is one workflow, so this worker keeps ONE update in flight per app, carrying every key
   * asked for meanwhile (one answer per key, however many jobs asked). The client retries an update the
   * server refuses as RESOURCE_EXHAUSTED (many workers at once) with jittered backoff.
   */
  function requestLease(appId: string, input: BudgetInput, request: LeaseRequest): Promise<Lease> {
    let queue = queues.get(appId);
    if (!queue) queues.set(appId, (queue = { input, inFlight: false, waiting: new Map() }));
    const key = request.key ?? request.shopId;
    const entry = queue.waiting.get(key) ?? { request, waiters: [] };
    entry.request = request;
    queue.waiting.set(key, entry);
    const answer = new Promise<Lease>((resolve, reject) => entry.waiters.push({ resolve, reject }));
    void sendLeases(appId, queue);
    return answer;
  }

  async function sendLeases(appId: string, queue: LeaseQueue): Promise<void> {
    if (queue.inFlight || queue.waiting.size === 0) return;
    queue.inFlight = true;
    const batch = [...queue.waiting.values()].slice(0, MAX_BATCH);
    for (const { request } of batch) queue.waiting.delete(request.key ?? request.shopId);
    try {
      const allocator: Entity<[BudgetInput]> = {
        workflowType: WORKFLOW_TYPES.appBudget,
        start: { workflowId: appBudgetWorkflowId(taskQueue, appId), taskQueue, args: [queue.input] },
      };
      const leases = await startOrUpdate(temporal(), allocator, leasesUpdate, [
        { requests: batch.map((b) => b.request) },
      ]);
      batch.forEach((b, i) => b.waiters.forEach((w) => w.resolve(leases[i]!)));
    } catch (error) {
      for (const b of batch) b.waiters.forEach((w) => w.reject(error));
    } finally {
      queue.inFlight = false;
      void sendLeases(appId, queue);
    }
  }

  /** For an OAuth shop: this lane's share of its app's budget, renewed when due. */
  async function appShare(
    shop: ShopRef,
    group: string,
    lane: LaneInput,
    budget: NonNullable<AcquireInput['appBudget']>,
  ): Promise<Lease | undefined> {
    const appId = budget.appId || (await clients.appOf(shop));
    if (!appId) return undefined;
    const key = `${shop.shopId}:${group}`;
    const held = renewed.get(`${appId}|${key}`);
    if (held && Date.now() < renewalDue(held)) return held;
    const appWindowMs = budget.allowance?.windowMs ?? 60_000;
    const input: BudgetInput = {
      appId,
      allowance: budget.allowance,
      headroom: budget.headroom,
      leaseMs: budget.leaseMs,
    };
    const want = (lane.allowance.limit * appWindowMs) / lane.allowance.windowMs;
    const lease = await requestLease(appId, input, { shopId: shop.shopId, key, want });
    // Another job's renewal may have answered meanwhile: keep the newer.
    const latest = renewed.get(`${appId}|${key}`);
    if (!latest || lease.until > latest.until) renewed.set(`${appId}|${key}`, lease);
    return renewed.get(`${appId}|${key}`);
  }

  return {
    /**
     * Asks the shop's lane for slots (reporting the last ones). For an OAuth shop, the app's share goes
     * with the request (renewed first when due): the lane caps itself at it, no update of its own.
     */
    async acquireSlots(input: AcquireInput): Promise<AcquireResult> {
      const share =
        input.shop.auth === 'oauth' && input.appBudget
          ? await appShare(input.shop, input.group, input.lane, input.appBudget)
          : undefined;
      const { shop, group, lane, request } = input;
      return startOrUpdate(
        temporal(),
        laneOf(taskQueue, shop.shopId, group, lane),
        acquireUpdate,
        [share ? { ...request, share } : request],
        request.updateId,
      );
    },
  };
}
