// One job over many shops: a child bulk job per shop (`bulk:<jobId>/<shopId>`), each paced by its own
// shop's lane, at most `maxConcurrentShops` at once (a sliding window, as in the samples'
// batch-sliding-window). Children are abandoned by the parent's run (so the parent may continue as new
// with hundreds of shops) and report back by signalling the parent's workflow id, which reaches its
// newest run. Pause, resume and cancel are passed on to every running child, and handed to a child that
// was starting when they arrived. A child that never reports (terminated or cancelled through Temporal)
// is found by a look at the children on a timer.
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.ts';
import type { BulkJobInput, BulkProgress, JobState, MultiShopJobInput } from '../types.ts';
import { jobSearchAttributes } from '../search-attributes.ts';
import {
  concurrentShops,
  DEFAULT_MAX_CONCURRENT_SHOPS,
  inlineFeedBytes,
  INVALID_ID,
  JOB_ID_RULE_PATCH,
  jobIdsProblem,
  shopJobId,
  shopWorkflowId,
} from '../contract.ts';
import { bulkListingWorkflow } from './bulk-listing.ts';
import { allowanceOf } from './pacing.ts';
import { anObject, guardSignal, optionalObject, refuseInput } from './refuse.ts';
import { childMessage, jobMessageChecks } from './job-messages.ts';
import type { JobMessage } from '../contract.ts';
import {
  cancelSignal,
  cancelUpdate,
  pauseSignal,
  pauseUpdate,
  progressQuery,
  resumeSignal,
  resumeUpdate,
  shopDoneSignal,
  shopsQuery,
} from './messages.ts';
import { emptyProgress, sumProgress } from './job-progress.ts';

export interface MultiShopCarry {
  next: number;
  running: string[];
  results: Record<string, BulkProgress>;
  paused: boolean;
  /** Why the job is paused: handed to a child that starts meanwhile. */
  pauseReason?: string;
  cancelled: boolean;
  runs: number;
}

export { shopJobId, shopWorkflowId };
/** How often the children believed running are looked at, by default (`childCheckMs`). */
export const DEFAULT_CHILD_CHECK_MS = 60_000;

/**
 * Runs started before this patch keep their old commands (one start per workflow task, no hand-off,
 * no check timer); new runs start children in parallel, hand them the job's state and check them.
 */
const CHECKED_CHILDREN = 'multi-shop-checked-children';
/** Runs from this patch on start fewer children at once when they carry inline feeds (`concurrentShops`). */
const INLINE_FEED_CONCURRENCY = 'multi-shop-inline-feed-concurrency';
/** Runs from this patch spread the shops they start together over their first window (`startOffsets`). */
const STAGGERED_START = 'multi-shop-staggered-start';

const { closedChildren } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: '2 minutes',
  // Best effort: a failed look is logged and the next tick looks again.
  retry: { initialInterval: '1s', maximumInterval: '10s', maximumAttempts: 3 },
});

/**
 * What is wrong with a many-shop job's list of shops, or undefined. A shop listed twice would start
 * two children under one workflow id (`bulk:<jobId>/<shopId>`). The client checks this before starting
 * a job; the workflow checks it again.
 */
export function shopsProblem(shops: readonly { shopId: string }[]): string | undefined {
  const times = new Map<string, number>();
  for (const { shopId } of shops) times.set(shopId, (times.get(shopId) ?? 0) + 1);
  const twice = [...times].filter(([, n]) => n > 1);
  if (!twice.length) return undefined;
  const list = twice.map(([id, n]) => `"${id}" (${n} times)`).join(', ');
  return `shops[].shopId: each shop may be listed once per job (duplicate_shop): ${list}`;
}

export async function multiShopJobWorkflow(
  input: MultiShopJobInput,
  carry?: MultiShopCarry,
): Promise<BulkProgress> {
  refuseInput(input, carry);
  // Ids name store keys, files and the children's workflow ids: a bad one is refused before any other
  // command.
  // Checked at the job's start only: a run carrying state was started by a checked run, or by a 0.4 run
  // whose id was never checked and must not fail at its continue-as-new.
  if (carry === undefined && patched(JOB_ID_RULE_PATCH)) {
    const badId = jobIdsProblem(input);
    if (badId) throw ApplicationFailure.nonRetryable(badId, INVALID_ID);
  }
  const s: MultiShopCarry = carry ?? {
    next: 0,
    running: [],
    results: {},
    paused: false,
    cancelled: false,
    runs: 0,
  };
  s.runs++;
  const job: ShopsJob = { input, s, running: new Set(s.running), max: maxAtOnce(input) };
  const current = patched(CHECKED_CHILDREN);
  if (current) {
    const problem = shopsProblem(input.shops);
    if (problem) throw ApplicationFailure.nonRetryable(problem, 'InvalidInput');
  }
  const tell = handleMessages(job);
  if (current) await runChecked(job, tell);
  else await runAsRecorded(job);
  job.ended = s.cancelled ? 'cancelled' : 'finished';
  return aggregate(job, job.ended);
}

/** One run of a many-shop job: its input, the carried state, and what this run knows besides. */
interface ShopsJob {
  input: MultiShopJobInput;
  s: MultiShopCarry;
  /** Children believed running (started, not reported). */
  running: Set<string>;
  /** Children at once. */
  max: number;
  /** Set once the job has ended, so a query after completion (replayed to the end) answers it. */
  ended?: JobState;
}

/** How the job tells its children (pause, resume, cancel), and the job's own cancel. */
interface Tell {
  pauseChild: (shopId: string, reason: string | undefined) => Promise<void>;
  tellChild: (shopId: string, signal: typeof resumeSignal) => Promise<void>;
  cancel: () => Promise<void>;
}

/**
 * Children at once. Each child's start command carries its feed: with inline feeds, as many at once as
 * keep one workflow task's commands within Temporal's 4 MiB (runs recorded before this check start as
 * many as asked).
 */
function maxAtOnce(input: MultiShopJobInput): number {
  const inline = [input.feed, ...input.shops.map((shop) => shop.feed)].flatMap((f) =>
    f?.content === undefined ? [] : [inlineFeedBytes(f.content)],
  );
  const asked = input.maxConcurrentShops ?? DEFAULT_MAX_CONCURRENT_SHOPS;
  return inline.length > 0 && patched(INLINE_FEED_CONCURRENCY)
    ? concurrentShops(Math.max(...inline), asked)
    : asked;
}

const stateOf = ({ ended, s }: ShopsJob): JobState =>
  ended ?? (s.cancelled ? 'cancelling' : s.paused ? 'paused' : 'running');

/** The job's progress: every shop's, summed; shops not reported yet as queued or running. */
function aggregate({ input, s, running }: ShopsJob, state: JobState): BulkProgress {
  return {
    jobId: input.jobId,
    state,
    ...sumProgress(Object.values(s.results)),
    // The job's own answer has no rate or ETA: client.getProgress adds them from the running shops.
    currentRate: 0,
    windowMs: 0,
    etaMs: 0,
    runs: s.runs,
    // Shops still running are listed with state "running"; client.getProgress asks them directly.
    shops: {
      ...Object.fromEntries(
        input.shops.map((shop) => [
          shop.shopId,
          emptyProgress(shopJobId(input.jobId, shop.shopId), 'queued'),
        ]),
      ),
      ...Object.fromEntries(
        [...running].map((id) => [id, emptyProgress(shopJobId(input.jobId, id), 'running')]),
      ),
      ...s.results,
    },
  };
}

/** The job's queries, signals and updates. Pause, resume and cancel are passed on to every running child. */
function handleMessages(job: ShopsJob): Tell {
  const { input, s, running } = job;
  setHandler(progressQuery, () => aggregate(job, stateOf(job)));
  setHandler(
    shopDoneSignal,
    guardSignal(
      'shopDoneSignal',
      ({ shopId, progress }) => {
        s.results[shopId] = progress;
        running.delete(shopId);
      },
      // Only a shop of this job: anything else would add a result no shop has.
      (arg) => anObject(arg) && input.shops.some((shop) => shop.shopId === arg.shopId),
    ),
  );
  // A message names every shop of the job; what the parent passes on names the child's own shop.
  const shopIds = input.shops.map((shop) => shop.shopId);
  const messages = jobMessageChecks(input.jobId, shopIds);
  const child = (shopId: string) => getExternalWorkflowHandle(shopWorkflowId(input.jobId, shopId));
  const pauseChild = (shopId: string, reason: string | undefined) =>
    child(shopId).signal(pauseSignal.name, childMessage(shopId, reason) ?? { reason });
  const tellChild = (shopId: string, signal: typeof resumeSignal) => {
    const message = childMessage(shopId);
    return message ? child(shopId).signal(signal, message) : child(shopId).signal(signal.name);
  };
  const tellRunning = async (send: (shopId: string) => Promise<void>) => {
    // Not cancellable: a job cancelled through Temporal still tells its children.
    await CancellationScope.nonCancellable(async () => {
      await Promise.all([...running].map((shopId) => send(shopId).catch(() => undefined))); // finished
    });
  };
  const pause = async (arg?: { reason?: string }) => {
    s.paused = true;
    s.pauseReason = arg?.reason;
    await tellRunning((shopId) => pauseChild(shopId, arg?.reason));
  };
  const resume = async () => {
    s.paused = false;
    s.pauseReason = undefined;
    await tellRunning((shopId) => tellChild(shopId, resumeSignal));
  };
  const cancel = async () => {
    s.cancelled = true;
    await tellRunning((shopId) => tellChild(shopId, cancelSignal));
  };
  const obeyed =
    (name: string, apply: (arg?: JobMessage) => Promise<void>) =>
    async (arg?: JobMessage): Promise<void> => {
      if (!messages.signalRefused(name, arg)) await apply(arg);
    };
  const answer = () => aggregate(job, stateOf(job));
  setHandler(shopsQuery, () => shopIds);
  setHandler(pauseSignal, guardSignal('pauseSignal', obeyed('pauseSignal', pause), optionalObject));
  // Any argument (0.4 senders sent none; jobMessageProblem refuses a non-object as naming no shop).
  setHandler(resumeSignal, guardSignal('resumeSignal', obeyed('resumeSignal', resume)));
  setHandler(cancelSignal, guardSignal('cancelSignal', obeyed('cancelSignal', cancel)));
  setHandler(pauseUpdate, async (arg) => (await pause(arg), answer()), messages.update);
  setHandler(resumeUpdate, async () => (await resume(), answer()), messages.update);
  setHandler(cancelUpdate, async () => (await cancel(), answer()), messages.update);
  return { pauseChild, tellChild, cancel };
}

/**
 * The job's first shops, started together, are spread evenly over their first window: each shop's windows
 * then stay in their own part of every window after (a slot reopens one window after its answer), so the
 * workers send a steady stream rather than every shop's window in the same second. Shops started later
 * (as others finish) are spread by when those finished.
 */
function startOffsets({ input, s }: ShopsJob, shops: number): (number | undefined)[] {
  if (s.next > 0 || shops < 2 || !patched(STAGGERED_START)) return [];
  const { windowMs } = allowanceOf(input);
  return Array.from({ length: shops }, (_, k) => Math.floor((k * windowMs) / shops));
}

/** Starts the child bulk job of one shop (abandoned by the parent's run: it outlives a continue-as-new). */
function startShop(input: MultiShopJobInput, shopId: string, startOffsetMs?: number) {
  const shop = input.shops.find((s) => s.shopId === shopId)!;
  const { shops: _shops, maxConcurrentShops: _max, childCheckMs: _check, feed, ...options } = input;
  const args: BulkJobInput = {
    ...options,
    jobId: shopJobId(input.jobId, shop.shopId),
    // The shop's report is found under the job's id (stores/job-store.ts `findJobs`).
    parentJobId: input.jobId,
    // Each shop claims its own part of the start (a copy of the parent's input re-runs no shop).
    ...(input.startId ? { startId: `${input.startId}/${shop.shopId}` } : {}),
    shop: { shopId: shop.shopId, credentialRef: shop.credentialRef, auth: shop.auth },
    feed: shop.feed ?? feed!,
    ...(startOffsetMs ? { startOffsetMs } : {}),
  };
  return startChild(bulkListingWorkflow, {
    workflowId: shopWorkflowId(input.jobId, shop.shopId),
    args: [args],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    typedSearchAttributes: jobSearchAttributes(shop.shopId, input.jobId, input.operation),
  });
}

/** Continues as new once every handler has finished, carrying what this run knows. */
async function goOn({ input, s, running }: ShopsJob): Promise<never> {
  await condition(allHandlersFinished);
  s.running = [...running];
  return await continueAsNew<typeof multiShopJobWorkflow>(input, s);
}

function cancelUnstarted({ input, s }: ShopsJob) {
  for (const shop of input.shops.slice(s.next))
    s.results[shop.shopId] = emptyProgress(shopJobId(input.jobId, shop.shopId), 'cancelled');
}

/** The code of runs started before CHECKED_CHILDREN, command for command (replay). */
async function runAsRecorded(job: ShopsJob): Promise<void> {
  const { input, s, running, max } = job;
  while (s.next < input.shops.length && !s.cancelled) {
    await condition(() => s.cancelled || (!s.paused && running.size < max));
    if (s.cancelled) break;
    const shop = input.shops[s.next]!;
    await startShop(input, shop.shopId);
    // A child quick enough to report before its start is seen here is not counted as running.
    if (!s.results[shop.shopId]) running.add(shop.shopId);
    s.next++;
    if (workflowInfo().continueAsNewSuggested) return await goOn(job);
  }
  if (s.cancelled) cancelUnstarted(job);
  await condition(() => running.size === 0);
  await condition(allHandlersFinished);
}

/**
 * Children started in parallel, each handed the job's state, and looked at on a timer. A cancel through
 * Temporal (UI, CLI, handle.cancel()) is this job's own cancel; the job keeps running (not cancellable)
 * until every child has reported.
 */
async function runChecked(job: ShopsJob, tell: Tell): Promise<void> {
  const { input, s, running, max } = job;
  CancellationScope.current().cancelRequested.catch(() => CancellationScope.nonCancellable(tell.cancel));
  await CancellationScope.nonCancellable(async () => {
    void checkChildren(job);
    while (s.next < input.shops.length && !s.cancelled) {
      await until(job, () => s.cancelled || (!s.paused && running.size < max));
      if (s.cancelled) break;
      // Every free slot at once: one workflow task starts them all.
      const batch = input.shops.slice(s.next, s.next + max - running.size).map((shop) => shop.shopId);
      const offsets = startOffsets(job, batch.length);
      await Promise.all(
        batch.map(
          async (shopId, k) => (await startShop(input, shopId, offsets[k]), await handOff(job, tell, shopId)),
        ),
      );
      s.next += batch.length;
      if (workflowInfo().continueAsNewSuggested) await goOn(job);
    }
    if (s.cancelled) cancelUnstarted(job);
    await until(job, () => running.size === 0);
    await condition(allHandlersFinished);
  });
}

/**
 * A child just started missed the pause or cancel that arrived while it was starting (only running
 * children are told): it is told now.
 */
async function handOff({ s, running }: ShopsJob, tell: Tell, shopId: string) {
  // A child quick enough to report before its start is seen here is not counted as running.
  if (s.results[shopId]) return;
  running.add(shopId);
  if (s.cancelled) await tell.tellChild(shopId, cancelSignal).catch(() => undefined);
  else if (s.paused) await tell.pauseChild(shopId, s.pauseReason).catch(() => undefined);
}

/** Waits for `ready`; continues as new meanwhile if the server suggests it (the checks add events). */
async function until(job: ShopsJob, ready: () => boolean) {
  await condition(() => ready() || workflowInfo().continueAsNewSuggested);
  if (!ready()) await goOn(job);
}

/**
 * Every `childCheckMs`, the children believed running are looked at: one that has closed without
 * reporting (terminated, cancelled or timed out through Temporal; a lost signal) is recorded as the
 * look found it.
 */
async function checkChildren({ input, s, running }: ShopsJob) {
  for (;;) {
    await sleep(input.childCheckMs ?? DEFAULT_CHILD_CHECK_MS);
    if (!running.size) continue;
    try {
      const closed = await closedChildren(
        [...running].map((shopId) => ({
          shopId,
          workflowId: shopWorkflowId(input.jobId, shopId),
          jobId: shopJobId(input.jobId, shopId),
        })),
      );
      // A report that came meanwhile (shopDone) is the child's own: it wins.
      for (const [shopId, progress] of Object.entries(closed))
        if (running.delete(shopId)) s.results[shopId] = progress;
    } catch (error) {
      log.warn('could not look at the children; looking again at the next tick', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
