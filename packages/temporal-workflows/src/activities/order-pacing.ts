// Order flows' requests (reads, hand-offs, mark-as-shipped) in the shop's general group, paced by the shop's
// lane like a bulk job's: outside the 5 % the sale lane keeps for itself (pacing.ts SALES_RESERVE), and never
// beside a general-group job at its full allowance. Each worker holds at most one grant of a shop's general
// ring for all its order flows — one lane update per slot (a slot carries a window's share of the ring: 285
// requests at the spec's 6,000 a minute), not one per order: 10,000 orders cost the lane a few updates a
// minute. A grant is spent by the requests that take from it, given back with the time of its last answer
// once it is spent, expired, or idle for a few seconds (bulk jobs then have the whole ring again).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { DEFAULT_ALLOWANCES, type AcquireResult, type SlotReport } from '../workflows/pacing.ts';
import { acquireUpdate } from '../workflows/messages.ts';
import type { ShopRef } from '../types.ts';
import { startOrUpdate } from './entities.ts';
import { laneOf } from './lanes.ts';

/** A grant given back after this long without a request. */
const IDLE_RELEASE_MS = 5_000;
/** The shortest wait before asking again when nothing was granted. */
const MIN_ASK_WAIT_MS = 250;

/** One shop's pace on this worker: the grant being spent, and who is asking for the next. */
interface ShopPace {
  grant?: { slots: number[]; notBefore: number; left: number; deadline: number };
  /** When the answer to the grant's last request came (null: none answered yet). */
  lastAt: number | null;
  inFlight: number;
  /** Resolved when the last request in flight has been answered (`handBack` waits for it). */
  drained?: () => void;
  asking?: Promise<void>;
  idle?: NodeJS.Timeout;
}

export interface OrderPacer {
  /** Waits for a request's turn in the shop's general group; call the answer's `done` when it is answered. */
  take(shop: ShopRef): Promise<() => void>;
  /** Gives every grant back (the worker is closing). */
  close(): Promise<void>;
}

export function createOrderPacer(temporal: () => Client, taskQueue: string): OrderPacer {
  // The ring knows this worker's order flows by one name: its slot comes back to the ring after the lease
  // should the worker die holding it.
  const holder = `orders:${taskQueue}:${randomUUID()}`;
  const shops = new Map<string, ShopPace>();
  let asks = 0;

  /** The grant's slots with the time of their last answer, once every request of it has been answered. */
  async function handBack(pace: ShopPace): Promise<SlotReport[]> {
    if (pace.inFlight > 0) await new Promise<void>((resolve) => (pace.drained = resolve));
    const report = (pace.grant?.slots ?? []).map((slot) => ({ slot, lastAt: pace.lastAt }));
    pace.grant = undefined;
    pace.lastAt = null;
    return report;
  }

  async function ask(shop: ShopRef, pace: ShopPace, want: number): Promise<void> {
    const report = await handBack(pace);
    const result: AcquireResult = await startOrUpdate(
      temporal(),
      laneOf(taskQueue, shop.shopId, 'general', { allowance: DEFAULT_ALLOWANCES.general }),
      acquireUpdate,
      [{ jobId: holder, want, report }],
      `${holder}/${++asks}`,
    );
    if (result.slots.length) {
      pace.grant = {
        slots: [...new Set(result.slots.map((s) => s.slot))],
        notBefore: Math.min(...result.slots.map((s) => s.notBefore)),
        left: result.slots.reduce((n, s) => n + (s.size ?? result.slotSize), 0),
        deadline: result.deadline,
      };
    } else if (want > 0) await sleep(Math.max(result.waitMs, MIN_ASK_WAIT_MS));
  }

  /** A few idle seconds: the grant goes back to the ring (bulk jobs get the slot). */
  function armIdle(shop: ShopRef, pace: ShopPace): void {
    clearTimeout(pace.idle);
    pace.idle = setTimeout(() => {
      if (pace.inFlight > 0 || !pace.grant || pace.asking) return;
      pace.asking = ask(shop, pace, 0)
        .catch(() => undefined)
        .finally(() => (pace.asking = undefined));
    }, IDLE_RELEASE_MS);
    pace.idle.unref();
  }

  return {
    async take(shop) {
      let pace = shops.get(shop.shopId);
      if (!pace) shops.set(shop.shopId, (pace = { lastAt: null, inFlight: 0 }));
      for (;;) {
        const grant = pace.grant;
        if (!pace.asking && grant && grant.left > 0 && Date.now() < grant.deadline) {
          grant.left--;
          pace.inFlight++;
          clearTimeout(pace.idle);
          const wait = grant.notBefore - Date.now();
          if (wait > 0) await sleep(wait);
          const p = pace;
          return () => {
            p.inFlight--;
            p.lastAt = Date.now();
            if (p.inFlight === 0) p.drained?.();
            armIdle(shop, p);
          };
        }
        pace.asking ??= ask(shop, pace, 1).finally(() => (pace!.asking = undefined));
        await pace.asking;
      }
    },
    async close() {
      for (const pace of shops.values()) clearTimeout(pace.idle);
    },
  };
}
