// Types of the flows that react to the marketplace's webhooks: delisting a sold item on every other
// connected shop, and offers to the users who like a listing. Types only (workflow code imports them).
import type { ShopRef } from './types.ts';

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
}

export interface ReconcileSalesResult {
  orders: number;
  /** Orders whose delist workflow this run started (their webhook never led to one). */
  started: string[];
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
}

export interface LikerOfferCounts {
  likes: number;
  sent: number;
  /** Likes from a liker who had an offer within the lifetime. */
  repeated: number;
  notOnSale: number;
  failed: number;
}

export interface LikeSignal {
  likerId: number;
}

export type LikerOfferOutcome =
  | { status: 'sent'; value: number; currency: string }
  | { status: 'not_on_sale' }
  | { status: 'failed'; code: string; errorId?: string };
