// Types shared by workflows (which may import nothing but @temporalio/workflow and types) and activities.
export type BulkOperation = 'create' | 'upsert';
export type FeedFormat = 'csv' | 'json' | 'ndjson';

export interface FeedRef {
  /** A file path readable by the worker. Items never travel whole in one payload: chunks are read by offset. */
  path: string;
  format: FeedFormat;
}

export interface Allowance {
  limit: number;
  windowMs: number;
}

export interface BulkJobInput {
  /** Names the report file; omitted by schedules, whose runs are then named by their workflow id. */
  jobId?: string;
  /** The shop and the NAME of its credential in the worker's store: the key itself never enters history. */
  shop: { shopId: string; credentialRef: string };
  feed: FeedRef;
  operation: BulkOperation;
  /** Directory the per-item report (NDJSON) is written to, by the worker. */
  reportDir: string;
  /** The shop's create/full-update allowance (default: the spec's 200 per 10 s). */
  allowance?: Allowance;
  /**
   * Share the shop's allowance with its other jobs through the shop's lane (default true): two jobs
   * for one shop then never together exceed it.
   */
  shareShopAllowance?: boolean;
  /** Items read per feed chunk (default 200). */
  chunkSize?: number;
  /** Real milliseconds between verification rounds after an unknown outcome (default 1 000, 2 000, 4 000). */
  verifyDelaysMs?: number[];
  /** Continue-as-new after this many windows (default 500, or when the server suggests it). */
  windowsPerRun?: number;
}

/** An item of the feed, ready to send: its line in the feed and its SKU (used to verify). */
export interface FeedItem {
  line: number;
  sku: string;
  body: Record<string, unknown>;
  /** Set when this item's earlier create had an unknown outcome and was confirmed absent. */
  recreate?: boolean;
}

export interface FeedChunk {
  items: FeedItem[];
  /** Items that failed local validation: reported, never sent. */
  invalid: ItemResult[];
  nextOffset: number;
  done: boolean;
  /** Items in the whole feed (for progress and ETA). */
  total: number;
}

export type SendOutcome =
  | { line: number; sku: string; status: 'ok'; productId: number; slug: string }
  | { line: number; sku: string; status: 'failed'; code: string; message: string; errorId?: string }
  | { line: number; sku: string; status: 'rate_limited'; retryAfterMs: number }
  /** 504 or a timeout on a create: it may or may not have happened. */
  | { line: number; sku: string; status: 'unknown' }
  /** 5xx or a network failure before sending: safe to send again. */
  | { line: number; sku: string; status: 'retry' };

export interface ItemResult {
  line: number;
  sku: string | null;
  status: 'ok' | 'failed' | 'invalid' | 'cancelled';
  productId?: number;
  slug?: string;
  code?: string;
  message?: string;
  errorId?: string;
  field?: string;
  rule?: string;
}

export interface BulkProgress {
  jobId: string;
  state: 'running' | 'paused' | 'cancelling' | 'finished' | 'cancelled';
  total: number;
  done: number;
  failed: number;
  pending: number;
  /** Requests allowed in the current window. */
  currentRate: number;
  windowMs: number;
  rateLimited: number;
  verified: number;
  etaMs: number;
  runs: number;
}

export interface ReconcileInput {
  shop: { shopId: string; credentialRef: string };
  /** How far back to look, hours (default 24: a daily schedule). */
  lookbackHours?: number;
  reportDir: string;
}

export interface ReconcileResult {
  reportKey: string;
  /** Orders in the window. */
  orders: number;
  /** Orders still waiting to be shipped: what a missed sale webhook would have announced. */
  awaitingShipping: string[];
}
