// One lane per shop × rate group (id `lane:<shopId>:<group>`): an entity workflow holding the group's
// pacing ring (pacing.ts). Every job of the shop asks it for slots before sending, so two jobs for one
// shop never together exceed the shop's allowance. One update per window does it all: report the last
// batch's slots (and any 429), get the next ones. Jobs reach the lane through an activity (workflow
// code cannot send updates).
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineUpdate,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Allowance } from '../types.ts';
import {
  acquire,
  newRing,
  type AcquireRequest,
  type AcquireResult,
  type Ring,
  type RingOptions,
} from './pacing.ts';

export const acquireUpdate = defineUpdate<AcquireResult, [AcquireRequest]>('acquire');
/** The app-wide budget's share for this shop, in requests per window of this group (undefined: none). */
export const capUpdate = defineUpdate<void, [{ requestsPerWindow: number | undefined }]>('cap');
export const ringQuery = defineQuery<Ring>('ring');

export interface LaneInput {
  allowance: Allowance;
  ring?: RingOptions;
}

export const laneWorkflowId = (shopId: string, group: string) => `lane:${shopId}:${group}`;

export async function shopLaneWorkflow(input: LaneInput, carry?: Ring): Promise<void> {
  const ring = carry ?? newRing(input.allowance, input.ring);
  let handled = 0;
  setHandler(ringQuery, () => ring);
  setHandler(acquireUpdate, (req) => {
    handled++;
    return acquire(ring, req, Date.now(), input.ring?.marginMs);
  });
  setHandler(capUpdate, ({ requestsPerWindow }) => {
    handled++;
    ring.cap =
      requestsPerWindow === undefined
        ? undefined
        : Math.max(0, Math.floor(requestsPerWindow / ring.slotSize));
  });
  // An entity lives on; it starts afresh (carrying its ring) before its history grows large.
  await condition(() => handled >= 500 || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  await continueAsNew<typeof shopLaneWorkflow>(input, ring);
}
