// The job contract: every name a client, a worker, the CLI and the n8n Bulk Job node must agree on — the
// task queue, workflow ids, workflow type names, query / signal / update names, search-attribute names and
// the bulk operations with their CLI spellings. Plain data and pure functions with no runtime import
// (type imports only), so workflow code, client code and the bundled n8n node all read the same strings.
// Every value here is fixed: recorded histories, running jobs and the replay tests depend on it.
import type { BulkOperation, ItemRef, ItemResult } from './types.ts';

/** The task queue a worker serves and a client starts jobs on, unless one is named. */
export const DEFAULT_TASK_QUEUE = 'selling-kit';
export const TASK_QUEUE = DEFAULT_TASK_QUEUE;

/**
 * The sale lane's own task queue beside a worker's queue (`<taskQueue>-sales`): every worker serves both,
 * so a sale's workflow task never waits in line behind bulk jobs' tasks, and its local request never
 * waits for a slot they hold.
 */
export const saleTaskQueue = (taskQueue: string) => `${taskQueue}-sales`;

/**
 * The order flows' own task queue beside a worker's queue (`<taskQueue>-orders`), served by every worker
 * that serves jobs: ten thousand flows waiting for their tracking codes keep their tasks and their cache
 * there, so a lane's update (on the main queue), which their paced reads wait for, never queues behind them.
 */
const ORDER_QUEUE_SUFFIX = '-orders';
export const orderTaskQueue = (taskQueue: string) => `${taskQueue}${ORDER_QUEUE_SUFFIX}`;
/** The main queue beside an order queue: where an order flow's delist child runs, as every other delist. */
export const mainTaskQueueOf = (orderQueue: string) =>
  orderQueue.endsWith(ORDER_QUEUE_SUFFIX) ? orderQueue.slice(0, -ORDER_QUEUE_SUFFIX.length) : orderQueue;

// --- Workflow ids ---

const BULK_PREFIX = 'bulk:';
/** A bulk job (one shop, or the parent of a many-shop job): `bulk:<jobId>`. */
export const bulkWorkflowId = (jobId: string) => `${BULK_PREFIX}${jobId}`;
/** A many-shop job's id for one shop's part (its child job and its report): `<jobId>/<shopId>`. */
export const shopJobId = (jobId: string, shopId: string) => `${jobId}/${shopId}`;
/** A many-shop job's child for one shop: `bulk:<jobId>/<shopId>`. */
export const shopWorkflowId = (jobId: string, shopId: string) => bulkWorkflowId(shopJobId(jobId, shopId));
/** The job id of a bulk job's workflow id, or undefined for other workflows and for per-shop children. */
export const jobIdOfWorkflowId = (workflowId: string): string | undefined =>
  workflowId.startsWith(BULK_PREFIX) && !workflowId.includes('/')
    ? workflowId.slice(BULK_PREFIX.length)
    : undefined;

// --- Ids (one rule for job ids and shop ids: the client checks it before a start, the worker at start) ---
// An id becomes part of workflow ids, store keys and report file names: never a path separator, never a
// dot-segment (the first character is a letter or digit), never unbounded.

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const ID_RULE =
  'letters, digits, ".", "_" and "-", 1 to 128 characters, starting with a letter or digit';
/** The failure type of a job the worker refuses at start for an id that breaks the rule (non-retryable). */
export const INVALID_ID = 'InvalidId';
/**
 * The patch marker of that check in the bulk workflows: a job started before 0.5 (whose id was never
 * checked) replays and runs on as it was; every job started since is checked at its start.
 */
export const JOB_ID_RULE_PATCH = 'job-id-rule';

/** Why `value` is not a valid `field` (a job id, a shop id), naming the field and the rule; else undefined. */
export function idProblem(field: string, value: unknown): string | undefined {
  if (typeof value === 'string' && ID_PATTERN.test(value)) return undefined;
  const text = typeof value === 'string' ? value : String(value);
  const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
  return `${field} ${shown} is not a valid id: ${ID_RULE} (${ID_PATTERN.source})`;
}

/**
 * The ids of a bulk job's input (one shop, or many): the job id and every shop id; the first problem, or
 * undefined. A many-shop job's shop (`child`: started by its parent, which names it) has the id
 * `shopJobId(parent, shop)`: each of the two parts follows the rule.
 */
export function jobIdsProblem(
  input: { jobId?: string; parentJobId?: string; shop?: { shopId: string }; shops?: { shopId: string }[] },
  { child = false }: { child?: boolean } = {},
): string | undefined {
  const shops = input.shops ?? (input.shop ? [input.shop] : []);
  for (const shop of shops) {
    const p = idProblem('shopId', shop?.shopId);
    if (p) return p;
  }
  if (input.jobId === undefined) return undefined;
  const slash = input.jobId.indexOf('/');
  if (!child || slash < 0) return idProblem('jobId', input.jobId);
  return idProblem('jobId', input.jobId.slice(0, slash)) ?? idProblem('shopId', input.jobId.slice(slash + 1));
}

/**
 * One shop's pacing lane for one rate group. Per task queue: a lane is served by the workers of its
 * queue, so a gone deployment's lane never blocks another (lanes before 0.3: `lane:<shopId>:<group>`).
 */
export const laneWorkflowId = (taskQueue: string, shopId: string, group: string) =>
  `lane:${taskQueue}:${shopId}:${group}`;
/** The app-wide budget shared by an OAuth app's shops, per task queue like the lanes. */
export const appBudgetWorkflowId = (taskQueue: string, appId: string) => `app-budget:${taskQueue}:${appId}`;
/** A sale elsewhere for one listing: a repeated call joins the one in flight. */
export const saleWorkflowId = (shopId: string, ref: ItemRef) =>
  `sale:${shopId}:${'sku' in ref ? `sku:${ref.sku}` : 'productId' in ref ? `id:${ref.productId}` : `slug:${ref.slug}`}`;
/** A seller's OAuth tokens, refreshed by one workflow per seller. */
export const sellerAuthWorkflowId = (sellerId: string) => `auth:${sellerId}`;
/** The shops a worker's deployment serves, per task queue. */
export const shopDirectoryWorkflowId = (taskQueue: string) => `shop-directory:${taskQueue}`;
/** Delist-on-sale for one purchase: the same purchase is delisted once. */
export const delistWorkflowId = (sourceShopId: string, purchaseId: string) =>
  `delist:${sourceShopId}:${purchaseId}`;
/** The order flow of one purchase (workflows/order.ts): from `order.new` to shipped, once per order. */
export const orderWorkflowId = (shopId: string, purchaseId: string) => `order:${shopId}:${purchaseId}`;
/** Offers to the likers of one listing. */
export const likerOffersWorkflowId = (shopId: string, productId: number) => `offers:${shopId}:${productId}`;
/** A scheduled feed sync's runs: the prefix every run's id starts with (Temporal appends the time). */
export const feedSyncWorkflowId = (scheduleId: string) => `feed-sync:${scheduleId}`;
/** A scheduled order reconciliation's runs. */
export const reconcileWorkflowId = (scheduleId: string) => `reconcile:${scheduleId}`;
/** A scheduled sales reconciliation's runs. */
export const reconcileSalesWorkflowId = (scheduleId: string) => `reconcile-sales:${scheduleId}`;
/**
 * One page of a job's report, read by a short workflow on any worker (workflows/job-report.ts);
 * `suffix` is the caller's random part: every read is a run of its own.
 */
export const jobReportWorkflowId = (jobId: string, suffix: string) => `job-report:${jobId}:${suffix}`;
/** The job-data retention schedule of a task queue's workers (one per queue, made by every worker). */
export const jobRetentionScheduleId = (taskQueue: string) => `job-retention:${taskQueue}`;
/** Its runs' workflow id prefix (Temporal appends the time). */
export const jobRetentionWorkflowId = (taskQueue: string) => `job-retention:${taskQueue}`;

/** A client's check of one shop on the worker (`suffix`: the caller's random part, a run per check). */
export const shopCheckWorkflowId = (shopId: string, suffix: string) => `shop-check:${shopId}:${suffix}`;

/** The workflows only the worker addresses: a client's payload for one is refused (payload-checks.ts). */
const INTERNAL_WORKFLOW_PREFIXES = ['lane:', 'app-budget:', 'shop-directory:', 'job-retention:'] as const;
/** Workflows whose id names the shop (or seller) they act for, right after the prefix. */
const SHOP_WORKFLOW_PREFIXES = ['sale:', 'delist:', 'order:', 'offers:', 'shop-check:'] as const;
const SELLER_WORKFLOW_PREFIX = 'auth:';

/**
 * Who may address a workflow, told by its id alone: only the worker (`internal`), a client granted the
 * shop or seller the id names, or — for ids that name none (`bulk:<jobId>`, reports, schedules' runs) —
 * undefined: what the payload names decides. Kept beside the id functions above, which it must match
 * (test/contract.test.ts checks each id function against it).
 */
export function workflowIdScope(
  workflowId: string,
): { internal: true } | { shops: string[] } | { sellers: string[] } | undefined {
  if (INTERNAL_WORKFLOW_PREFIXES.some((p) => workflowId.startsWith(p))) return { internal: true };
  const shopPrefix = SHOP_WORKFLOW_PREFIXES.find((p) => workflowId.startsWith(p));
  if (shopPrefix) return { shops: [workflowId.slice(shopPrefix.length).split(':')[0]!] };
  if (workflowId.startsWith(SELLER_WORKFLOW_PREFIX))
    return { sellers: [workflowId.slice(SELLER_WORKFLOW_PREFIX.length)] };
  return undefined;
}

// --- Workflow type names (the exported workflow functions' names) ---

export const WORKFLOW_TYPES = {
  bulkListing: 'bulkListingWorkflow',
  multiShopJob: 'multiShopJobWorkflow',
  sale: 'saleWorkflow',
  reconcileOrders: 'reconcileOrdersWorkflow',
  sellerAuth: 'sellerAuthWorkflow',
  shopLane: 'shopLaneWorkflow',
  appBudget: 'appBudgetWorkflow',
  shopDirectory: 'shopDirectoryWorkflow',
  delistOnSale: 'delistOnSaleWorkflow',
  order: 'orderWorkflow',
  reconcileSales: 'reconcileSalesWorkflow',
  likerOffers: 'likerOffersWorkflow',
  jobRetention: 'jobRetentionWorkflow',
  jobReport: 'jobReportWorkflow',
  shopCheck: 'shopCheckWorkflow',
} as const;

/**
 * What a schedule runs, named by its workflow type (`selling-kit schedules list`). Derived, never stored:
 * a memo would be sealed by the codec, and a deployment with other keys could not list it.
 */
export const SCHEDULE_KINDS = {
  [WORKFLOW_TYPES.bulkListing]: 'feed-sync',
  [WORKFLOW_TYPES.reconcileOrders]: 'orders-reconciliation',
  [WORKFLOW_TYPES.reconcileSales]: 'reconcile-sales',
  [WORKFLOW_TYPES.jobRetention]: 'job-retention',
} as const satisfies Partial<Record<(typeof WORKFLOW_TYPES)[keyof typeof WORKFLOW_TYPES], string>>;

/** The workflow types that are bulk jobs, as a Temporal list filter (`selling-kit jobs`). */
export const BULK_JOB_TYPES_QUERY = `WorkflowType = '${WORKFLOW_TYPES.bulkListing}' OR WorkflowType = '${WORKFLOW_TYPES.multiShopJob}'`;

// --- Message names ---

/** Bulk jobs (bulk-listing.ts, multi-shop.ts). */
export const JOB_MESSAGES = {
  progressQuery: 'progress',
  pauseSignal: 'pause',
  resumeSignal: 'resume',
  cancelSignal: 'cancel',
  pauseUpdate: 'pauseJob',
  resumeUpdate: 'resumeJob',
  cancelUpdate: 'cancelJob',
  /** A many-shop job's child reports its end to the parent. */
  shopDoneSignal: 'shopDone',
  /** The job's shops (a sender names them in every JobMessage: client.ts `jobShops`). */
  shopsQuery: 'jobShops',
} as const;

// --- Messages to a bulk job (issue 22) ---
// A bulk job's workflow id (`bulk:<jobId>`) names no shop, so the codec could not tell whose job a pause,
// resume or cancel reaches: every such message names the job's shops, the codec refuses a client key not
// granted one of them (`shopIds` is one of `namedShops`' fields), and the job refuses a message whose
// shops are not exactly its own (workflows/job-messages.ts).

/** What a client sends with a bulk job's pause / resume / cancel (signal or update). */
export interface JobMessage {
  /** Every shop of the job (a one-shop job: its one shop), in any order. */
  shopIds: string[];
  /** Pause only: shown in the job's status. */
  reason?: string;
}

/**
 * The patch marker of the check in the bulk workflows (and of the many-shop parent naming its child's
 * shop): a message naming no shop in a history recorded before it (0.4) replays as accepted.
 */
export const JOB_MESSAGES_PATCH = 'job-messages-name-shops';

/** `[a, b]` for messages; a long list shortened (a many-shop job may have hundreds of shops). */
export const shopList = (shops: readonly string[]): string =>
  `[${shops.length > 20 ? `${shops.slice(0, 20).join(', ')}, … (${shops.length} shops)` : shops.join(', ')}]`;

/**
 * Why a message to job `jobId` (whose shops are `jobShops`) is refused, or undefined: it must name
 * exactly the job's shops (`shopIds`); with `strict` false (a history from before JOB_MESSAGES_PATCH),
 * a message naming none passes. Also the report's check (activities/job-report.ts).
 */
export function jobMessageProblem(
  message: unknown,
  jobId: string,
  jobShops: readonly string[],
  strict = true,
): string | undefined {
  const named =
    message !== null && typeof message === 'object' && !Array.isArray(message)
      ? (message as { shopIds?: unknown }).shopIds
      : undefined;
  if (named === undefined)
    return strict
      ? `this message names no shop; job ${jobId} is for shops ${shopList(jobShops)}: name them (shopIds)`
      : undefined;
  if (!Array.isArray(named) || named.some((s) => typeof s !== 'string'))
    return `this message's shopIds is not a list of shop ids; job ${jobId} is for shops ${shopList(jobShops)}`;
  const mine = new Set(jobShops);
  const theirs = new Set(named as string[]);
  if (theirs.size === mine.size && [...theirs].every((s) => mine.has(s))) return undefined;
  return `this message names shops ${shopList([...theirs])}; job ${jobId} is for shops ${shopList(jobShops)}`;
}

/** Shop lanes (shop-lane.ts). */
export const LANE_MESSAGES = { acquireUpdate: 'acquire', capUpdate: 'cap', ringQuery: 'ring' } as const;
/** App budgets (app-budget.ts). */
export const APP_BUDGET_MESSAGES = {
  leaseUpdate: 'lease',
  /** One worker's batch of lease requests (0.3). */
  leasesUpdate: 'leases',
  budgetQuery: 'budget',
} as const;
/** Seller auth (seller-auth.ts). */
export const SELLER_AUTH_MESSAGES = {
  authStateQuery: 'authState',
  refreshUpdate: 'refresh',
  reconnectUpdate: 'reconnect',
} as const;
/** The order flow (order.ts). */
export const ORDER_MESSAGES = {
  markShippedUpdate: 'markShipped',
  /** Something about the order changed (a refund webhook, the reconciliation): read it again. */
  orderSeenSignal: 'orderSeen',
  stateQuery: 'orderState',
} as const;
/** The failure type of a mark-as-shipped sent before its flow read the order (no parcel known yet). */
export const ORDER_NOT_READ_YET = 'OrderNotReadYet';
/** How long a client (CLI, n8n) asks again while the flow has not read its order (the read is paced, retried). */
export const ORDER_READ_WAIT_MS = 30_000;

/**
 * A mark-as-shipped sent by `send`, sent again while `unread(answer)` (the flow refused it, unrecorded, as
 * ORDER_NOT_READ_YET) for up to `waitMs`, pausing 500 ms, doubling, at most 5 s. The last answer is returned.
 * `sleep` is the host's (n8n's, or a timer's): this file imports nothing at runtime.
 */
export async function shipOnceRead<T>(
  send: () => Promise<T>,
  unread: (answer: T) => boolean,
  sleep: (ms: number) => Promise<unknown>,
  waitMs = ORDER_READ_WAIT_MS,
): Promise<T> {
  const until = Date.now() + waitMs;
  for (let pause = 500; ; pause = Math.min(2 * pause, 5_000)) {
    const answer = await send();
    if (!unread(answer) || Date.now() + pause > until) return answer;
    await sleep(pause);
  }
}
/** Offers to likers (offers-to-likers.ts). */
export const LIKER_OFFERS_MESSAGES = { likeSignal: 'like', stateQuery: 'likerOffersState' } as const;

// --- Search attributes (all Keyword) ---

export const SEARCH_ATTRIBUTE_NAMES = {
  shop: 'SellingKitShop',
  jobId: 'SellingKitJobId',
  operation: 'SellingKitOperation',
  /** An order flow's phase (`awaiting_tracking`, `at_risk`, …): `selling-kit orders list --at-risk`. */
  orderState: 'SellingKitOrderState',
} as const;

/** Flags for `temporal server start-dev` that register the attributes. */
export const SEARCH_ATTRIBUTE_FLAGS = Object.values(SEARCH_ATTRIBUTE_NAMES).flatMap((name) => [
  '--search-attribute',
  `${name}=Keyword`,
]);

// --- Bulk operations ---

/** The CLI's operation names (kebab-case, as typed) → the workflow's. */
export const BULK_OPERATIONS = {
  create: 'create',
  upsert: 'upsert',
  update: 'update',
  patch: 'patch',
  delete: 'delete',
  'mark-sold': 'mark_as_sold',
} as const satisfies Record<string, BulkOperation>;
export type CliOperation = keyof typeof BULK_OPERATIONS;

// --- Inline feeds (a feed's text carried in the job's start payload: the n8n node, any client) ---
// Temporal refuses a payload above 2 MiB and a gRPC message above 4 MiB, and an inline feed travels
// more than once through a job's history (start event, snapshot activity, each run after a
// continue-as-new), and a many-shop job's children each carry it in their start commands.

/** The most an inline feed's text may hold, in UTF-8 bytes. */
export const INLINE_FEED_MAX_BYTES = 1024 * 1024;
/**
 * The most it may take once JSON-encoded in the payload (quotes, backslashes and control characters are
 * escaped: an NDJSON feed grows by a fifth or more, control characters six-fold).
 */
export const INLINE_FEED_MAX_ENCODED_BYTES = 1.5 * 1024 * 1024;
/** What one workflow task of a many-shop job may start at once, in feed bytes (each child carries it). */
export const INLINE_START_BUDGET_BYTES = 3 * 1024 * 1024;
/** Shops a many-shop job runs at once unless told otherwise. */
export const DEFAULT_MAX_CONCURRENT_SHOPS = 100;

/** UTF-8 length of a string (no TextEncoder: workflow code uses this too). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4; // a surrogate pair: one 4-byte character
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** An inline feed's size as it travels: its text JSON-encoded, in UTF-8 bytes. */
export const inlineFeedBytes = (content: string): number => utf8Length(JSON.stringify(content));

/** Why an inline feed cannot go with a job (both limits named), or undefined when it fits. */
export function inlineFeedProblem(content: string): string | undefined {
  const raw = utf8Length(content);
  if (raw > INLINE_FEED_MAX_BYTES)
    return `an inline feed holds at most ${INLINE_FEED_MAX_BYTES} bytes (1 MiB) and this one has ${raw}: give the worker a file path or URL instead`;
  const encoded = inlineFeedBytes(content);
  if (encoded > INLINE_FEED_MAX_ENCODED_BYTES)
    return `an inline feed takes at most ${INLINE_FEED_MAX_ENCODED_BYTES} bytes (1.5 MiB) JSON-encoded in the job's payload and this one takes ${encoded} (quotes and control characters are escaped): give the worker a file path or URL instead`;
  return undefined;
}

/** Shops a many-shop job with an inline feed of `encodedBytes` may start at once (at least one). */
export const concurrentShops = (encodedBytes: number, asked = DEFAULT_MAX_CONCURRENT_SHOPS): number =>
  Math.max(1, Math.min(asked, Math.floor(INLINE_START_BUDGET_BYTES / Math.max(encodedBytes, 1))));

// --- Job reports (read on any worker: activities/job-report.ts, workflows/job-report.ts) ---
// A job's outcomes live in the job store every worker opens; a client on any host reads them a page at a
// time through a short workflow run, so a page is bounded in bytes well under Temporal's 2 MiB payload.

/** The most one page of a report carries: lines' JSON text, in UTF-8 bytes. */
export const JOB_REPORT_PAGE_MAX_BYTES = 512 * 1024;
/** The most lines one page carries. */
export const JOB_REPORT_PAGE_MAX_LINES = 10_000;
/**
 * A page's run: its execution timeout, so a task queue without a worker answers "timed out" (a page takes
 * well under a second when a worker is there).
 */
export const JOB_REPORT_TIMEOUT = '30s';

/**
 * The failure type of a report read refused because the shops it names are not the job's recorded shops
 * (non-retryable; activities/job-report.ts).
 */
export const REPORT_REFUSED = 'ReportRefused';

/** One line of a report: a many-shop job's lines name their shop. */
export type ReportLine = ItemResult & { shopId?: string };

/**
 * A client host's question to the worker before a job (the worker holds the shops' keys, the client
 * none): which credential the worker has for the shop, and — unless `call` is false — whether the API
 * accepts it (one GET /api/v1/shop/).
 */
export interface ShopCheckInput {
  shopId: string;
  call?: boolean;
}
export type ShopCheckResult =
  | { shopId: string; ok: true; auth: 'api_key' | 'oauth'; called: boolean }
  | {
      shopId: string;
      ok: false;
      /** unknown_shop: no key nor seller tokens; credential_rejected: 401; credential_check_failed: another
       * answer; api_unreachable: no answer. */
      code: 'unknown_shop' | 'credential_rejected' | 'credential_check_failed' | 'api_unreachable';
      message: string;
      auth?: 'api_key' | 'oauth';
    };

export interface JobReportInput {
  /** The id users know the job by (a many-shop job's: its shops' lines, each with `shopId`). */
  jobId: string;
  /**
   * Every shop of the job (the codec checks the reader's key is granted each): the worker refuses to
   * read a job whose recorded shops are not all named (client.ts `jobShops` finds them).
   */
  shopIds: string[];
  /** The previous page's `nextCursor`; absent: the first page. */
  cursor?: string;
  /** Lines per page at most (capped at JOB_REPORT_PAGE_MAX_LINES). */
  limit?: number;
  /** JSON bytes per page at most (capped at JOB_REPORT_PAGE_MAX_BYTES); a page has at least one line. */
  maxBytes?: number;
  /** No lines: only the jobs' summary, with each job's lines counted by status (`jobs status`). */
  summaryOnly?: boolean;
}

/** A job (or a many-shop job's shop) as its store record says. */
export interface JobReportJob {
  jobId: string;
  shopId?: string;
  createdAt: string;
  /** Absent while the job runs (or when it stopped without recording its end: terminated). */
  state?: 'finished' | 'cancelled' | 'failed';
  endedAt?: string;
  /** Lines in its report (so far). */
  lines: number;
  /** `summaryOnly`: its lines by status. */
  counts?: Record<ItemResult['status'], number>;
}

export interface JobReportPage {
  jobId: string;
  /** false: the store holds nothing under this id (an unknown job, or one whose data has expired). */
  found: boolean;
  /** The store that answered, without secrets: `local /var/lib/…` or `postgres postgres://host:5432/db`. */
  store: string;
  /** On the first page (and with `summaryOnly`): the job's records (a many-shop job's: one per shop). */
  jobs?: JobReportJob[];
  lines: ReportLine[];
  /** Pass as `cursor` for the next page; absent on the last one. */
  nextCursor?: string;
}

// --- Refused inputs (the worker's codec, codec.ts; every workflow entry point checks) ---
// The worker's codec never throws on a payload it will not accept (that would fail the workflow task
// forever): it hands the workflow this value instead, and the workflow fails, ignores or rejects it.

/** The field of the value a refused payload decodes to: `{ [REFUSED_FIELD]: { code, message } }`. */
export const REFUSED_FIELD = '$sellingKitRefused';
export type RefusalCode =
  | 'unsealed_input'
  | 'unauthenticated_input'
  | 'unreadable_input'
  | 'client_key_retired'
  | 'shop_not_granted'
  /** A payload written for one workflow, read by another (copied out of a history). */
  | 'misaddressed_input'
  /** A client addressing a workflow only the worker may (a lane, the app budget, the shop directory). */
  | 'internal_workflow';
export interface Refusal {
  code: RefusalCode;
  message: string;
}

/** The first refusal among a workflow's (or signal's, update's) arguments, or undefined. */
export function refusedInput(...values: unknown[]): Refusal | undefined {
  for (const value of values) {
    const r =
      value !== null && typeof value === 'object'
        ? (value as Record<string, unknown>)[REFUSED_FIELD]
        : undefined;
    if (r && typeof r === 'object') {
      const { code, message } = r as Partial<Refusal>;
      return { code: code ?? 'unauthenticated_input', message: String(message ?? 'input refused') };
    }
  }
  return undefined;
}

/**
 * The shops and sellers a value names, anywhere in it: the string (or number) values of the keys
 * `shopId` and `credentialRef` and the elements of `shopIds` are shops — except an OAuth shop's
 * `credentialRef` (in an object with `auth: "oauth"`), which names a seller, as `sellerId` and `tokenRef`
 * (the name of a seller's tokens, seller-auth.ts) do. A client key may only name what it was issued for
 * (codec.ts checks it before any workflow code sees the value).
 */
export function namedShops(value: unknown): { shops: string[]; sellers: string[] } {
  const shops = new Set<string>();
  const sellers = new Set<string>();
  // A name that is neither text nor a number (an object where an id goes) counts as its JSON: no key
  // short of `*` grants it.
  const named = (v: unknown) =>
    typeof v === 'string' || typeof v === 'number'
      ? String(v)
      : v === undefined
        ? undefined
        : JSON.stringify(v);
  // Iterative: however deep a value nests, every key is looked at.
  const pending: unknown[] = [value];
  while (pending.length) {
    const v = pending.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const e of v) pending.push(e);
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const [key, field] of Object.entries(o)) {
      const name = named(field);
      if (key === 'shopId' && name !== undefined) shops.add(name);
      else if (key === 'credentialRef' && name !== undefined)
        (o.auth === 'oauth' ? sellers : shops).add(name);
      else if ((key === 'sellerId' || key === 'tokenRef') && name !== undefined) sellers.add(name);
      else if (key === 'shopIds' && Array.isArray(field)) {
        for (const e of field) if (named(e) !== undefined) shops.add(named(e)!);
      } else pending.push(field);
    }
  }
  return { shops: [...shops], sellers: [...sellers] };
}

/** The refresh activity's limits; its token call ends well within them (activities/auth.ts; the seller's auth workflow schedules it with them). */
export const REFRESH_ACTIVITY = { startToCloseMs: 60_000, heartbeatMs: 10_000 } as const;
