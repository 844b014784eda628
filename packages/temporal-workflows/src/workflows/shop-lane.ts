// One lane per shop × rate group (id `lane:<shopId>:<group>`): every bulk job of that shop asks it for
// window slots before sending, so two jobs for one shop never together exceed the shop's allowance.
// The lane keeps a sliding log of what it granted (workflow time) and answers how many requests may
// go now, or how long to wait. Jobs reach it through an activity (workflows cannot call updates).
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineUpdate,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Allowance } from '../types.ts';

export interface LaneGrant {
  granted: number;
  /** When the grant was counted (epoch ms): the granted window ends windowMs later. */
  at: number;
  /** When nothing was granted: how long until capacity frees up, ms. */
  waitMs: number;
}

export const acquireUpdate = defineUpdate<LaneGrant, [{ want: number }]>('acquire');
/** A job saw a 429: hold every job of this shop for the Retry-After. */
export const rateLimitedUpdate = defineUpdate<void, [{ retryAfterMs: number }]>('rateLimited');

export interface LaneState {
  allowance: Allowance;
  grants: { at: number; n: number }[];
  blockedUntil: number;
}

export const laneWorkflowId = (shopId: string, group: string) => `lane:${shopId}:${group}`;

export async function shopLaneWorkflow(allowance: Allowance, carry?: LaneState): Promise<void> {
  const s: LaneState = carry ?? { allowance, grants: [], blockedUntil: 0 };
  let handled = 0;
  setHandler(acquireUpdate, ({ want }) => {
    handled++;
    const now = Date.now();
    if (now < s.blockedUntil) return { granted: 0, at: now, waitMs: s.blockedUntil - now };
    s.grants = s.grants.filter((g) => g.at + s.allowance.windowMs > now);
    const used = s.grants.reduce((n, g) => n + g.n, 0);
    const free = s.allowance.limit - used;
    if (free <= 0)
      return { granted: 0, at: now, waitMs: Math.max(1, s.grants[0]!.at + s.allowance.windowMs - now) };
    const granted = Math.min(want, free);
    s.grants.push({ at: now, n: granted });
    return { granted, at: now, waitMs: 0 };
  });
  setHandler(rateLimitedUpdate, ({ retryAfterMs }) => {
    handled++;
    s.blockedUntil = Math.max(s.blockedUntil, Date.now() + retryAfterMs);
  });
  // An entity lives on; it starts afresh before its history grows large.
  await condition(() => handled >= 1000 || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  await continueAsNew<typeof shopLaneWorkflow>(s.allowance, s);
}
