// One lane per task queue × shop × rate group (id `lane:<taskQueue>:<shopId>:<group>`): an entity workflow holding the group's
// pacing ring (pacing.ts). Every job of the shop asks it for slots before sending, so two jobs for one
// shop never together exceed the shop's allowance. One update per window does it all: report the last
// batch's slots (and any 429), get the next ones. Jobs reach the lane through an activity (workflow
// code cannot send updates), with an update id per request, so a retried activity is answered once.
// The lane owns its app-budget cap: each cap carries the end of its lease and only a newer one applies,
// however many workers renew the lease. From 0.3 the cap travels with the acquire (`AcquireRequest.share`:
// one update per window, none per renewal) and a small share is paced over the budget window (pacing.ts,
// "Budget pacing"); the `cap` update stays for workers before 0.3. A lane started afresh (terminated by
// hand) does not know the last window: it waits one (see `usedBefore`) — restart jobs, not lanes.
import { continueAsNew, deprecatePatch, patched, setHandler } from '@temporalio/workflow';
import { entityRunEnds } from './entity-run.ts';
import { laneWorkflowId } from '../contract.ts';
import {
  acquire,
  applyShare,
  DEFAULT_MARGIN_MS,
  FIRST_USE_SPREAD_PATCH,
  newRing,
  type Ring,
} from './pacing.ts';
import { REFUSING_UPDATE, refuseInput } from './refuse.ts';
import { acquireUpdate, capUpdate, ringQuery, type LaneInput } from './messages.ts';

/** The lane's id (contract.ts): per task queue, so a gone deployment's lane never blocks another. */
export { laneWorkflowId };

export async function shopLaneWorkflow(input: LaneInput, carry?: Ring): Promise<void> {
  refuseInput(input, carry);
  const ring = carry ?? newRing(input.allowance, input.ring);
  // 0.2's clock margin and cap in requests: deprecated in 0.4, as every lane a 0.3 worker asks was started
  // with them (README, "Changing workflow code"). The call stays where the marker was recorded.
  deprecatePatch('lane-cap-in-requests');
  const marginMs = input.ring?.marginMs ?? DEFAULT_MARGIN_MS;
  // Runs recorded before 0.3 replay without budget pacing (their acquires never carried a share).
  const v3 = patched('lane-budget-pacing');
  // Runs recorded before 0.5 replay with their first window's slots all at once (pacing.ts FIRST_USE_SPREAD).
  const spread = patched(FIRST_USE_SPREAD_PATCH);
  let handled = 0;
  setHandler(ringQuery, () => ring);
  setHandler(
    acquireUpdate,
    (req) => {
      handled++;
      if (req.share) applyShare(ring, req.share, v3);
      return acquire(ring, req, Date.now(), marginMs, spread);
    },
    REFUSING_UPDATE,
  );
  setHandler(
    capUpdate,
    ({ requestsPerWindow, seq }) => {
      handled++;
      if (seq !== undefined && ring.capSeq !== undefined && seq <= ring.capSeq) return; // an older lease
      if (requestsPerWindow === undefined) delete ring.capPerWindow;
      else ring.capPerWindow = Math.max(0, Math.floor(requestsPerWindow));
      if (seq !== undefined) ring.capSeq = seq;
      delete ring.share; // a cap from a worker before 0.3: no budget pacing until the next share
    },
    REFUSING_UPDATE,
  );
  // An entity lives on; it starts afresh (carrying its ring) before its history grows large.
  await entityRunEnds(() => handled);
  await continueAsNew<typeof shopLaneWorkflow>(input, ring);
}
