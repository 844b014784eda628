// One job over many shops: a child bulk job per shop (`bulk:<jobId>/<shopId>`), each paced by its own
// shop's lane, at most `maxConcurrentShops` at once (a sliding window, as in the samples'
// batch-sliding-window). Children are abandoned by the parent's run (so the parent may continue as new
// with hundreds of shops) and report back by signalling the parent's workflow id, which reaches its
// newest run. Pause, resume and cancel are passed on to every running child.
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  ParentClosePolicy,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { BulkJobInput, BulkProgress, JobState, MultiShopJobInput } from '../types.ts';
import { jobSearchAttributes } from '../search-attributes.ts';
import {
  bulkListingWorkflow,
  cancelSignal,
  cancelUpdate,
  pauseSignal,
  pauseUpdate,
  progressQuery,
  resumeSignal,
  resumeUpdate,
  shopDoneSignal,
} from './bulk-listing.ts';

export interface MultiShopCarry {
  next: number;
  running: string[];
  results: Record<string, BulkProgress>;
  paused: boolean;
  cancelled: boolean;
  runs: number;
}

export const shopJobId = (jobId: string, shopId: string) => `${jobId}/${shopId}`;
export const shopWorkflowId = (jobId: string, shopId: string) => `bulk:${shopJobId(jobId, shopId)}`;

export async function multiShopJobWorkflow(
  input: MultiShopJobInput,
  carry?: MultiShopCarry,
): Promise<BulkProgress> {
  const s: MultiShopCarry = carry ?? {
    next: 0,
    running: [],
    results: {},
    paused: false,
    cancelled: false,
    runs: 0,
  };
  s.runs++;
  const running = new Set(s.running);
  const max = input.maxConcurrentShops ?? 100;

  const tellRunning = async (send: (h: ReturnType<typeof getExternalWorkflowHandle>) => Promise<void>) => {
    await Promise.all(
      [...running].map(
        (shopId) =>
          send(getExternalWorkflowHandle(shopWorkflowId(input.jobId, shopId))).catch(() => undefined), // finished
      ),
    );
  };
  const aggregate = (state: JobState): BulkProgress => {
    const all = Object.values(s.results);
    const sum = (f: (p: BulkProgress) => number) => all.reduce((n, p) => n + f(p), 0);
    return {
      jobId: input.jobId,
      state,
      total: sum((p) => p.total),
      done: sum((p) => p.done),
      failed: sum((p) => p.failed),
      pending: sum((p) => p.pending),
      currentRate: 0,
      windowMs: 0,
      rateLimited: sum((p) => p.rateLimited),
      verified: sum((p) => p.verified),
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
  };
  // Set once the job has ended, so a query after completion (replayed to the end) answers it.
  let ended: JobState | undefined = undefined;
  const state = (): JobState => ended ?? (s.cancelled ? 'cancelling' : s.paused ? 'paused' : 'running');

  setHandler(progressQuery, () => aggregate(state()));
  setHandler(shopDoneSignal, ({ shopId, progress }) => {
    s.results[shopId] = progress;
    running.delete(shopId);
  });
  const pause = async (arg?: { reason?: string }) => {
    s.paused = true;
    await tellRunning((h) => h.signal(pauseSignal, { reason: arg?.reason }));
  };
  const resume = async () => {
    s.paused = false;
    await tellRunning((h) => h.signal(resumeSignal));
  };
  const cancel = async () => {
    s.cancelled = true;
    await tellRunning((h) => h.signal(cancelSignal));
  };
  setHandler(pauseSignal, pause);
  setHandler(resumeSignal, resume);
  setHandler(cancelSignal, cancel);
  setHandler(pauseUpdate, async (arg) => (await pause(arg), aggregate(state())));
  setHandler(resumeUpdate, async () => (await resume(), aggregate(state())));
  setHandler(cancelUpdate, async () => (await cancel(), aggregate(state())));

  while (s.next < input.shops.length && !s.cancelled) {
    await condition(() => s.cancelled || (!s.paused && running.size < max));
    if (s.cancelled) break;
    const shop = input.shops[s.next]!;
    const { shops: _shops, maxConcurrentShops: _max, feed, ...options } = input;
    const child: BulkJobInput = {
      ...options,
      jobId: shopJobId(input.jobId, shop.shopId),
      shop: { shopId: shop.shopId, credentialRef: shop.credentialRef, auth: shop.auth },
      feed: shop.feed ?? feed!,
    };
    await startChild(bulkListingWorkflow, {
      workflowId: shopWorkflowId(input.jobId, shop.shopId),
      args: [child],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: jobSearchAttributes(shop.shopId, input.jobId, input.operation),
    });
    // A child quick enough to report before its start is seen here is not counted as running.
    if (!s.results[shop.shopId]) running.add(shop.shopId);
    s.next++;
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      s.running = [...running];
      return await continueAsNew<typeof multiShopJobWorkflow>(input, s);
    }
  }
  if (s.cancelled)
    for (const shop of input.shops.slice(s.next))
      s.results[shop.shopId] = emptyProgress(shopJobId(input.jobId, shop.shopId), 'cancelled');
  await condition(() => running.size === 0);
  await condition(allHandlersFinished);
  ended = s.cancelled ? 'cancelled' : 'finished';
  return aggregate(ended);
}

function emptyProgress(jobId: string, state: JobState): BulkProgress {
  return {
    jobId,
    state,
    total: 0,
    done: 0,
    failed: 0,
    pending: 0,
    currentRate: 0,
    windowMs: 0,
    rateLimited: 0,
    verified: 0,
    etaMs: 0,
    runs: 0,
  };
}
