// Types shared by workflows (which may import nothing but @temporalio/workflow and types) and activities.
// Types only: no runtime code here.
import type { ProductRef } from '@selling-kit/api-client/core';
import type { Allowance, RateGroup as CoreRateGroup } from '@selling-kit/api-client/rate-limits';

/**
 * create: POST (verify-then-retry after unknown outcomes). upsert: PUT by SKU (creates or replaces).
 * update: full update (PUT) by product_id, slug or sku. patch: PATCH by key. delete: DELETE by key.
 * mark_as_sold: a sale elsewhere, by key.
 */
export type BulkOperation = 'create' | 'upsert' | 'update' | 'patch' | 'delete' | 'mark_as_sold';
export type FeedFormat = 'csv' | 'json' | 'ndjson';
/** The rate groups bulk jobs pace (insights are never sent by a bulk job). */
export type RateGroup = Exclude<CoreRateGroup, 'insights'>;

export interface FeedRef {
  /**
   * A file path readable by the worker, or an http(s) URL. Items never travel whole in one payload:
   * chunks are read by offset.
   */
  path: string;
  format: FeedFormat;
  /**
   * The feed's text itself (CSV, a JSON array or NDJSON, as `format` says), carried in the job's input
   * — sealed by the codec like every payload — instead of read from `path`, which then only names the
   * feed in messages. For clients on another host than the worker (n8n's Bulk Job node: its input
   * items, or a binary CSV). At most INLINE_FEED_MAX_BYTES (UTF-8): it travels in Temporal payloads
   * (2 MiB each at most) and in the history of the job's runs (see snapshot.ts).
   */
  content?: string;
  /**
   * JSON / NDJSON records whose string values are spreadsheet cells, read like CSV columns
   * (`rowToBody`: `pictures` split at `|`, `country_code` → `address`, numbers and booleans parsed);
   * values of other types are taken as they are. n8n items from a sheet or a Code node.
   */
  cells?: boolean;
}

export type { Allowance };

/**
 * A shop and how its worker-side credential is named. `credentialRef` names an API key in the worker's
 * credential store (direct partners), or, with `auth: 'oauth'`, a seller's tokens in the worker's token
 * store (cross-listers). The secret itself never enters history.
 */
export interface ShopRef {
  shopId: string;
  credentialRef: string;
  auth?: 'api_key' | 'oauth';
}

export interface BulkJobOptions {
  /**
   * A random id its client gives each start (startBulkJob, n8n's Bulk Job node add one): the job store
   * records which run it started, so the same signed input started again — a copy read from history —
   * is refused (`InputReplayed`). Schedules give none (every run of theirs has the same input).
   */
  startId?: string;
  /** The shop's allowance for the operation's rate group (default: the spec's; see DEFAULT_ALLOWANCES). */
  allowance?: Allowance;
  /**
   * Share the shop's allowance with its other jobs through the shop's lane (default true): two jobs
   * for one shop then never together exceed it.
   */
  shareShopAllowance?: boolean;
  /** Slots per window of the pacing ring (default 20). */
  slotsPerWindow?: number;
  /**
   * Added to every slot's reuse distance, for clocks that differ between worker hosts (default 250 ms;
   * keep hosts on NTP). Set by the lane's first job.
   */
  clockMarginMs?: number;
  /** Items read per feed chunk (default 200). */
  chunkSize?: number;
  /** Real milliseconds between verification rounds after an unknown outcome (default 1 000, 2 000, 4 000). */
  verifyDelaysMs?: number[];
  /** Continue-as-new after this many windows (default 150, or when the server suggests it). */
  windowsPerRun?: number;
  /** How long before a slot opens its batch is scheduled (default min(300 ms, window / 4)). */
  leadMs?: number;
  /** Shorter waits are left to the activity instead of a timer (default 1 000 ms; see bulk-listing.ts). */
  minTimerMs?: number;
  /** Sends per item that may end in a retryable failure (5xx, network) before it is reported failed (default 8). */
  maxItemTries?: number;
  /**
   * The app-wide budget of a cross-lister (OAuth) application, shared by every job of the app
   * (default the spec's 30,000 per minute). Only used for `auth: 'oauth'` shops. `headroom`: the part kept
   * for requests outside bulk jobs (default 0.02, `DEFAULT_HEADROOM`); `leaseMs`: how long a share holds at
   * least (default 30 s; allocators from 0.3 lease for at least 2.5 budget windows).
   */
  appBudget?: { appId: string; allowance?: Allowance; headroom?: number; leaseMs?: number };
}

/**
 * A job's own copy of its feed, taken once when the job starts (activities/snapshot.ts): chunks and item
 * bodies are read from it by line, never from the live feed (which an exporter may rewrite meanwhile),
 * and item bodies never travel through history. It lives in the job store (stores/job-store.ts) every
 * worker opens: `job` is the job whose snapshot it is (a many-shop job's shops may read their parent's),
 * `storeId` the store holding it.
 */
export interface FeedSnapshot extends SnapshotMeta {
  job: JobKey;
  storeId: string;
}

export interface BulkJobInput extends BulkJobOptions {
  /** The id users know the job by; omitted by schedules, whose runs are then named by their workflow id. */
  jobId?: string;
  /** A many-shop job's shop: the parent's job id (set by the parent; its report lists the shop's lines). */
  parentJobId?: string;
  shop: ShopRef;
  feed: FeedRef;
  operation: BulkOperation;
  /** A snapshot already taken (a many-shop job snapshots a shared feed once for all its shops). */
  snapshot?: FeedSnapshot;
  /**
   * A many-shop job's shop (set by the parent): its first window leaves no earlier than this long after the
   * job's start, at most one window (the shops started together spread over their first window).
   */
  startOffsetMs?: number;
}

/** One job over many shops: a child job per shop, each with its own allowance. */
export interface MultiShopJobInput extends BulkJobOptions {
  jobId: string;
  /** Each shop lists its own feed, or the job's `feed`. */
  shops: (ShopRef & { feed?: FeedRef })[];
  feed?: FeedRef;
  operation: BulkOperation;
  /** Shops running at once (default 100). */
  maxConcurrentShops?: number;
  /**
   * How often the job looks at the children it believes running, to notice one that ended without
   * telling it (terminated or cancelled through Temporal), in ms (default 60 000).
   */
  childCheckMs?: number;
}

/** How an item or a sale addresses its listing: the client core's product reference. */
export type ItemRef = ProductRef;

/**
 * An item of the feed as the workflow holds it: its line, its key — never its body, which activities
 * read from the job's snapshot by line (bodies stay out of history).
 */
export interface FeedItem {
  line: number;
  /** The SKU when the item has one (creates must: it is how they are verified). */
  sku: string | null;
  /** How the item is addressed; absent: by its SKU (most items: it keeps history small). */
  ref?: ItemRef;
  /**
   * Sent before with an unknown outcome (confirmed absent, or cut off by a crash): an "already exists"
   * (create), "not found" (delete) or "not on sale" (mark-as-sold) then means the earlier send landed.
   */
  resend?: boolean;
  /** Sends that ended in a retryable failure (5xx, network, timeout) so far. */
  tries?: number;
  /** Not sent again before this time (workflow clock, ms): the item's own backoff. */
  notBefore?: number;
  /** The last retryable failure, reported if the item runs out of tries. */
  lastError?: { code: string; message: string; errorId?: string };
}

/** An item read from the snapshot with its request body (activities only). */
export interface PreparedItem {
  line: number;
  sku: string | null;
  ref: ItemRef;
  body: Record<string, unknown>;
}

export interface FeedChunk {
  items: FeedItem[];
  /** Items that failed local validation: written to the report by the activity, never sent. */
  invalid: number;
  nextOffset: number;
  done: boolean;
  /** Items in the whole feed (for progress and ETA). */
  total: number;
  /**
   * The activity attempt that read it: its report part (the invalid lines) is the one that counts (an
   * earlier attempt may have failed before writing its own).
   */
  attempt?: number;
}

export type SendOutcome =
  | { line: number; status: 'ok'; productId?: number; slug?: string }
  | { line: number; status: 'failed'; code: string; message: string; errorId?: string; httpStatus?: number }
  | { line: number; status: 'rate_limited'; retryAfterMs: number }
  /** A create that may or may not have happened (504, 5xx, reset, timeout): verified before any resend. */
  | { line: number; status: 'unknown'; code?: string; reason?: string; errorId?: string }
  /** 5xx, a network failure, or not sent at all: safe to send again (`sent`: it reached the API). */
  | { line: number; status: 'retry'; reason: string; sent?: boolean; code?: string; errorId?: string }
  /** The seller must authorise the application again (OAuth). */
  | { line: number; status: 'reauthorization_required'; message: string };

export interface SlotBatch {
  slot: number;
  notBefore: number;
  items: FeedItem[];
}

export interface BatchResult {
  /** Lines done (their report lines are written by the activity). */
  ok: number[];
  /** Every other outcome. */
  outcomes: SendOutcome[];
  /** When each slot's last answer arrived (null: not used). */
  slots: { slot: number; lastAt: number | null }[];
  /** The longest Retry-After among the batch's 429s. */
  retryAfterMs?: number;
  /** The activity attempt that produced this result (its report part is the one that counts). */
  attempt: number;
}

export interface ItemResult {
  line: number;
  sku: string | null;
  /** unknown: a create whose outcome could not be confirmed before the job was cancelled. */
  status: 'ok' | 'failed' | 'invalid' | 'cancelled' | 'unknown';
  productId?: number;
  slug?: string;
  code?: string;
  message?: string;
  errorId?: string;
  field?: string;
  rule?: string;
}

export type JobState = 'queued' | 'running' | 'paused' | 'cancelling' | 'finished' | 'cancelled' | 'failed';

export interface BulkProgress {
  jobId: string;
  state: JobState;
  /** Why the job is paused or failed (e.g. "reauthorization required"). */
  reason?: string;
  total: number;
  done: number;
  /** Failed and invalid items. */
  failed: number;
  /** Items not sent because the job was cancelled (and unknowns left unconfirmed by the cancel). */
  cancelled: number;
  pending: number;
  /** Requests per window the shop's ring hands out now. */
  currentRate: number;
  windowMs: number;
  rateLimited: number;
  verified: number;
  etaMs: number;
  runs: number;
  /** Many-shop jobs: the progress of each shop. */
  shops?: Record<string, BulkProgress>;
}

export interface SaleInput {
  shop: ShopRef;
  ref: ItemRef;
}

export interface SaleResult {
  status: 'sold' | 'already_sold' | 'failed';
  code?: string;
  message?: string;
  errorId?: string;
  attempts: number;
}

export interface ReconcileInput {
  shop: ShopRef;
  /** How far back to look, hours (default 24: a daily schedule). */
  lookbackHours?: number;
}

export interface ReconcileResult {
  /** The job id its report is stored under (the run's workflow id): `selling-kit jobs report <reportKey>`. */
  reportKey: string;
  /** Orders in the window. */
  orders: number;
  /** Orders still waiting to be shipped: what a missed sale webhook would have announced. */
  awaitingShipping: string[];
}

// The app-wide budget's shares (workflows/app-budget.ts), which lanes pace with (workflows/pacing.ts).

export interface Lease {
  /** Requests this shop may send per budget window. */
  perWindow: number;
  /** The budget window those requests are counted in, ms. */
  windowMs: number;
  /** When the lease ends; strictly later on every renewal of a key, so it also orders caps (`capSeq`). */
  until: number;
  leaseMs: number;
  /** Granted less than wanted (0.3): when more may be free, to ask again then (else half-way through). */
  reviewAt?: number;
}

/** One lane's request in a batch: `key` is `<shopId>:<group>`. */
export interface LeaseRequest {
  shopId: string;
  key?: string;
  want: number;
}

// A job's key in the job store (stores/job-store.ts) and what its feed snapshot says of itself.

/** The job whose data this is: its workflow id and the run id it started with. */
export interface JobKey {
  workflowId: string;
  firstRunId: string;
}

export interface SnapshotMeta {
  /** The feed it was taken from, with credentials and query string removed (for messages). */
  source: string;
  format: FeedFormat;
  /** sha256 of the feed's bytes. */
  sha256: string;
  /** Records in the snapshot. */
  total: number;
}
