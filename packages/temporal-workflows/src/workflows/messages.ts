// Every query, signal and update of the workflows, with the payload types they carry: what clients,
// activities and the workflows themselves share. Imports nothing but @temporalio/workflow, the contract's
// names and types, so activities reach a workflow's messages without importing the workflow (no circle
// between activities/ and workflows/). Moving a definition here changes no command: replay-safe.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import {
  APP_BUDGET_MESSAGES,
  JOB_MESSAGES,
  LANE_MESSAGES,
  LIKER_OFFERS_MESSAGES,
  ORDER_MESSAGES,
  SELLER_AUTH_MESSAGES,
  type JobMessage,
} from '../contract.ts';
import type { Allowance, BulkProgress, Lease, LeaseRequest } from '../types.ts';
import type { LikeSignal, LikerOffersState } from '../webhooks/sales-types.ts';
import type { OrderFlowState, ShipRequest, ShipResult } from '../webhooks/order-types.ts';
import type { AcceptedAttempts, JobRef } from '../stores/job-store.ts';
import type { AcquireRequest, AcquireResult, Ring, RingOptions } from './pacing.ts';

// --- Bulk jobs (bulk-listing.ts; a many-shop job, multi-shop.ts, answers the same ones) ---

export const progressQuery = defineQuery<BulkProgress>(JOB_MESSAGES.progressQuery);
/** The job's shops: what a sender names in a JobMessage (a many-shop job's: all of them). */
export const shopsQuery = defineQuery<string[]>(JOB_MESSAGES.shopsQuery);
// Each names the job's shops (job-messages.ts): anything else is ignored (signals) or rejected (updates).
export const pauseSignal = defineSignal<[JobMessage]>(JOB_MESSAGES.pauseSignal);
export const resumeSignal = defineSignal<[JobMessage]>(JOB_MESSAGES.resumeSignal);
export const cancelSignal = defineSignal<[JobMessage]>(JOB_MESSAGES.cancelSignal);
/** The same as updates: they answer with the job's progress once applied. */
export const pauseUpdate = defineUpdate<BulkProgress, [JobMessage]>(JOB_MESSAGES.pauseUpdate);
export const resumeUpdate = defineUpdate<BulkProgress, [JobMessage]>(JOB_MESSAGES.resumeUpdate);
export const cancelUpdate = defineUpdate<BulkProgress, [JobMessage]>(JOB_MESSAGES.cancelUpdate);
/** A shop's job tells its many-shop parent it has finished (by workflow id: reaches the newest run). */
export const shopDoneSignal = defineSignal<[{ shopId: string; progress: BulkProgress }]>(
  JOB_MESSAGES.shopDoneSignal,
);

/** What the many-shop parent needs to finalize the report of a shop stopped through Temporal (N10). */
export interface JobData {
  progress: BulkProgress;
  /** Absent before the job's snapshot (nothing stored yet). */
  job?: JobRef;
  accepted: AcceptedAttempts;
  upToSeq: number;
  /** The snapshot is the job's own (not its parent's): dropped with the job. */
  ownSnapshot: boolean;
}
/** Asked of a closed shop's replayed history by the parent's check (activities/children.ts). */
export const jobDataQuery = defineQuery<JobData>('bulkJobData');

// --- A shop's lane (shop-lane.ts) ---

export const acquireUpdate = defineUpdate<AcquireResult, [AcquireRequest]>(LANE_MESSAGES.acquireUpdate);
/**
 * The app-wide budget's share for this lane, in requests per window of this group (undefined: none), with
 * the end of its lease as `seq`: a cap older than the one applied is ignored (one without `seq` applies).
 */
export const capUpdate = defineUpdate<void, [{ requestsPerWindow: number | undefined; seq?: number }]>(
  LANE_MESSAGES.capUpdate,
);
export const ringQuery = defineQuery<Ring>(LANE_MESSAGES.ringQuery);

export interface LaneInput {
  allowance: Allowance;
  ring?: RingOptions;
}

// --- The app-wide budget allocator (app-budget.ts) ---

export interface BudgetInput {
  appId: string;
  /** Default the spec's 30,000 per 60 s. */
  allowance?: Allowance;
  /**
   * Kept back for requests outside bulk jobs (verifications, sales, reconciliations, token refreshes).
   * Default `DEFAULT_HEADROOM` (0.02: 600 of the spec's 30,000 per minute; allocators before 0.3: 0.1).
   */
  headroom?: number;
  /** How long a share holds before it must be renewed (default 30 s; from 0.3 at least 2.5 budget windows). */
  leaseMs?: number;
}

export interface BudgetState {
  allowance: Allowance;
  headroom: number;
  leaseMs: number;
  /** By key: `<shopId>:<group>` (before 0.2: the shop id alone). */
  leases: Record<string, { perWindow: number; want: number; until: number }>;
  /** Capacity given up recently: free again at `freeAt`. */
  cooling: { perWindow: number; freeAt: number }[];
}

/** `key` is `<shopId>:<group>`; a request without one (workers before 0.2) is keyed by its shop. */
export const leaseUpdate = defineUpdate<Lease, [LeaseRequest]>(APP_BUDGET_MESSAGES.leaseUpdate);
/** Many lanes' requests in one update (0.3): a worker's batch, answered in order. */
export const leasesUpdate = defineUpdate<Lease[], [{ requests: LeaseRequest[] }]>(
  APP_BUDGET_MESSAGES.leasesUpdate,
);
export const budgetQuery = defineQuery<BudgetState>(APP_BUDGET_MESSAGES.budgetQuery);

// --- A seller's auth entity (seller-auth.ts) ---

export interface SellerAuthInput {
  sellerId: string;
  /** Name of the seller's tokens in the worker's token store (and of the OAuth app's credentials). */
  tokenRef: string;
  /** Refresh this long before expiry (default 5 minutes). */
  refreshAheadMs?: number;
}

export interface SellerAuthState {
  state: 'active' | 'reauthorization_required';
  /** Bumped by every refresh; callers pass the version they saw to skip a needless refresh. */
  version: number;
  expiresAt: number;
  refreshes: number;
  reason?: string;
}

export const authStateQuery = defineQuery<SellerAuthState>(SELLER_AUTH_MESSAGES.authStateQuery);
/** On-demand refresh after a 401: `seenVersion` is the token version the caller was using. */
export const refreshUpdate = defineUpdate<SellerAuthState, [{ seenVersion: number }]>(
  SELLER_AUTH_MESSAGES.refreshUpdate,
);
/** The seller authorised the app again and the new tokens are in the store: back to active. */
export const reconnectUpdate = defineUpdate<SellerAuthState>(SELLER_AUTH_MESSAGES.reconnectUpdate);

// --- Offers to likers (offers-to-likers.ts) ---

export const likeSignal = defineSignal<[LikeSignal]>(LIKER_OFFERS_MESSAGES.likeSignal);
export const likerOffersStateQuery = defineQuery<LikerOffersState>(LIKER_OFFERS_MESSAGES.stateQuery);

// --- The order flow (order.ts) ---

/** The tracking of one parcel: answered once mark-as-shipped has settled (or been refused). */
export const markShippedUpdate = defineUpdate<ShipResult, [ShipRequest]>(ORDER_MESSAGES.markShippedUpdate);
/** The order may have changed (a refund webhook, the reconciliation): the workflow reads it again. */
export const orderSeenSignal = defineSignal<[{ source?: string }?]>(ORDER_MESSAGES.orderSeenSignal);
export const orderStateQuery = defineQuery<OrderFlowState>(ORDER_MESSAGES.stateQuery);
