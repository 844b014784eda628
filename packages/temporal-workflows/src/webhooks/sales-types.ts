// Types of the flows that react to the marketplace's webhooks: delisting a sold item on every other
// connected shop, and offers to the users who like a listing. Types only (workflow code imports them).
import type { ShopRef } from '../types.ts';

/** A connected shop: its workflow-side reference and the seller id its webhooks carry (`seller_id`). */
export interface ConnectedShop extends ShopRef {
  sellerId: number;
}

/**
 * One sale to propagate: an order (`v1:order.new`) on `source`, whose products are marked sold on
 * every shop of `shops` but the source.
 */
export interface DelistInput {
  /** The order's purchase id: with the source shop it names the workflow (one per order). */
  purchaseId: string;
  source: ShopRef;
  /** Product ids of the order's line items on the source shop. */
  productIds: number[];
  /** Every connected shop (the source among them or not: it is skipped). */
  shops: ShopRef[];
  /**
   * A SKU mapping file readable by the worker (sku-map.ts): items whose SKU differs between shops.
   * Without it, or for SKUs it does not name, the same SKU is used on every shop.
   */
  skuMapPath?: string;
  /** When the webhook was received (ms): the result reports the delay from there. */
  receivedAt?: number;
}

export type DelistOutcome =
  /** Marked sold now. */
  | { shopId: string; sku: string; status: 'sold' }
  /** Already sold, or marked sold by an earlier attempt. */
  | { shopId: string; sku: string; status: 'already_sold' }
  /** The shop has no listing with that SKU. */
  | { shopId: string; sku: string; status: 'not_listed' }
  | { shopId: string; sku: string; status: 'failed'; code: string; errorId?: string };

/** A line item of the order, looked up on the source shop. */
export interface SoldItem {
  productId: number;
  /** null: the listing has no SKU (nothing to find it by elsewhere). */
  sku: string | null;
  /** Quantity left after the order (> 0: still on sale at the source, so nothing is delisted). */
  remaining: number;
}

export interface DelistResult {
  purchaseId: string;
  sourceShopId: string;
  items: SoldItem[];
  outcomes: DelistOutcome[];
  /** Real ms from `receivedAt` to the last mark-as-sold answer (when `receivedAt` was given). */
  delayMs?: number;
}

/** The missed-webhook catch-up: the recent orders of every connected shop, each delisted once. */
export interface ReconcileSalesInput {
  shops: ShopRef[];
  skuMapPath?: string;
  /** Orders created in the last … hours (default 24). */
  lookbackHours?: number;
  /** Orders per listed page (default and at most the API's 200). */
  pageSize?: number;
  /**
   * History events one run may use before it continues as new (default 3,000: every run stays under
   * the server's 4,096-event suggestion, with one batch of children to spare).
   */
  eventsPerRun?: number;
  /** Delist children started together, in one workflow task (default 50). */
  startBatch?: number;
}

export interface ReconcileSalesResult {
  /** Orders in the window (every shop, every run of the chain). */
  orders: number;
  /**
   * Orders whose delist workflow the reconciliation started (their webhook never led to one): the first
   * MAX_STARTED_LISTED of them (the result and the carry stay small); `startedCount` counts them all.
   */
  started: string[];
  startedCount?: number;
  /** Orders whose delist had run or was running already (left out by the listing, or refused). */
  alreadyDelisted?: number;
  /** Runs of the chain (continue-as-new), this one included. */
  runs?: number;
}

/** One page of a shop's recent orders, as the sales reconciliation walks them (activities/sales.ts). */
export interface SalesPage {
  /** The page's orders whose delist has not run (nor runs). */
  orders: { purchaseId: string; productIds: number[] }[];
  /** Orders on the page. */
  listed: number;
  /** Of them, left out: their delist has run or runs. */
  delisted: number;
  /** The next page's cursor; absent after the last page. */
  cursor?: string;
}

/** Where a sales reconciliation is, carried across continue-as-new (0.4). */
export interface ReconcileSalesCarry {
  /** The window's start, fixed by the chain's first run (ISO date-time). */
  since: string;
  /** The shop being walked (index into `shops`) and its next page. */
  shop: number;
  cursor?: string;
  /** Orders of the page being walked that were not started yet when the run continued as new. */
  rest?: SalesPage['orders'];
  result: Required<ReconcileSalesResult>;
}

/** Offers to likers: the settings of one listing's workflow. */
export interface LikerOfferSettings {
  /** Wait this long after a like before the offer (ms). */
  delayMs: number;
  /** The discount of the offer, percent off the current price (≥ minPercentOff). */
  percentOff: number;
  /** The API's minimum percentage below the price (default the core's DEFAULT_MIN_PERCENT_OFF, 5). */
  minPercentOff?: number;
  /** One offer per liker within this time (default the offer lifetime, 24 h). */
  lifetimeMs?: number;
  /** Continue-as-new after this many likes handled in one run (default 500). */
  likesPerRun?: number;
}

export interface LikerOffersInput extends LikerOfferSettings {
  shop: ShopRef;
  productId: number;
  /** Carried across continue-as-new. */
  state?: LikerOffersState;
}

export interface LikerOffersState {
  /** Likes waiting for their delay: liker → when the offer is due (workflow clock, ms). */
  pending: [number, number][];
  /** Offers sent: liker → when (workflow clock, ms); entries older than the lifetime are dropped. */
  offered: [number, number][];
  /** The listing is no longer on sale: every later like is skipped. */
  closed?: boolean;
  counts: LikerOfferCounts;
  /** Runs of this workflow so far (continue-as-new), this one included. */
  runs?: number;
  /** Failed offers by code (`outcome_unknown`: may have landed, `unauthorized`: the key refused…). */
  failures?: Record<string, number>;
  /** The last failed offer (the liker, its code and when, workflow clock): what to look at first. */
  lastFailure?: { likerId: number; code: string; at: number; detail?: string };
  /** Likers whose offer was not sent yet after a `retry` outcome → tries so far (0.4). */
  tries?: [number, number][];
  /** This workflow has been granted slots by the shop's lane before (0.4; see pacing.ts `usedBefore`). */
  laneUsed?: boolean;
}

export interface LikerOfferCounts {
  likes: number;
  sent: number;
  /** Likes from a liker who had an offer within the lifetime. */
  repeated: number;
  notOnSale: number;
  /** Offers that failed (refused, given up, or in doubt: `inDoubt` of them may have landed). */
  failed: number;
  /** Of `failed`: answers that leave it open whether the offer landed (never sent again). */
  inDoubt?: number;
  /** Offers sent again later because nothing was sent (a 429, a 5xx of the price lookup, a blip). */
  retried?: number;
}

export interface LikeSignal {
  likerId: number;
}

export type LikerOfferOutcome =
  | { status: 'sent'; value: number; currency: string }
  | { status: 'not_on_sale' }
  /**
   * Not sent, or refused. `outcome_unknown`: the offer may have landed (a 5xx, a 504, a timeout after it
   * left) — the liker counts as offered and is never sent another; `detail` says what was met.
   */
  | { status: 'failed'; code: string; errorId?: string; detail?: string }
  /** Nothing was sent (a 429, a 5xx of the price lookup, a blip): the workflow tries again later. */
  | { status: 'retry'; code: string; retryAfterMs?: number };
