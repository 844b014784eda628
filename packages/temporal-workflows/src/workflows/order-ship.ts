// Mark-as-shipped inside an order flow (order.ts), verify-then-retry: an answer lost after the request may
// have landed is checked by reading the order before the same code is ever sent again (at most MAX_SENDS
// sends), and a parcel of an order with several — which no read can confirm — waits for a `resend`.
// Nothing here fails the flow: a send out of attempts is in doubt, a read that fails is read again.
import { log, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ShipAttempt } from '../activities/orders.ts';
import type { ShipRequest, ShipResult } from '../webhooks/order-types.ts';
import { notify, read, setPhase, waitingPhase, endOf, type OrderRun } from './order-run.ts';
import { SALE_RETRY } from './retry-policies.ts';

// Longer than a request's own timeout and its read before it (30 s each): a retry never starts while the
// attempt before it may still have a POST on the wire.
const { shipParcel } = proxyActivities<Activities>({ startToCloseTimeout: '90 seconds', retry: SALE_RETRY });

/** Reads after an in-doubt mark-as-shipped (ms after the answer), before it is sent again. */
const VERIFY_DELAYS_MS = [1_000, 2_000, 4_000];
/** Sends of one tracking code, in doubt each time, before the flow stops and asks for `resend`. */
const MAX_SENDS = 3;

export async function ship(run: OrderRun, req: ShipRequest): Promise<ShipResult> {
  const { state } = run;
  const parcelId = req.parcelId ?? state.parcelIds[0]!;
  setPhase(state, 'shipping');
  let result: ShipResult | undefined;
  for (let sends = 0; !result; sends++) {
    const attempt = await send(run, req, parcelId, sends);
    result = decide(run, attempt, parcelId, sends);
    if (attempt.status === 'in_doubt' && !result) result = await verifyShipped(run, parcelId);
  }
  state.lastShip = result;
  if (result.status === 'shipped') {
    state.shipped.push(parcelId);
    state.shippedWith = { parcelId, carrier: req.carrier, trackingCode: req.trackingCode };
    run.maybeSent = false;
  }
  if (result.status === 'in_doubt') {
    setPhase(state, 'ship_in_doubt');
    run.events.push(notify(run, 'order.ship_in_doubt', 0));
  } else if (result.status !== 'closed' && state.shipped.length < state.parcelIds.length)
    // Refused, or one parcel of several shipped: waiting again.
    setPhase(state, waitingPhase(run));
  return result;
}

/** One send (the activity reads first when an earlier send may have landed); out of attempts: in doubt. */
async function send(run: OrderRun, req: ShipRequest, parcelId: string, sends: number): Promise<ShipAttempt> {
  const { input, state } = run;
  try {
    return await shipParcel(
      input.shop,
      input.purchaseId,
      parcelId,
      { carrier: req.carrier, trackingCode: req.trackingCode },
      {
        verifyFirst: sends > 0 || run.maybeSent || req.resend === true,
        parcels: state.parcelIds.length,
        resend: req.resend === true,
      },
    );
  } catch (error) {
    // An attempt that timed out may have sent it: never taken as not sent.
    log.warn('mark-as-shipped ran out of attempts', { error: (error as Error).message });
    return { status: 'in_doubt', code: 'gave_up' };
  }
}

/** The request's answer from one attempt, or undefined: in doubt, to be verified and maybe sent again. */
function decide(
  run: OrderRun,
  attempt: ShipAttempt,
  parcelId: string,
  sends: number,
): ShipResult | undefined {
  switch (attempt.status) {
    case 'shipped':
      return { status: 'shipped', parcelId, verified: attempt.verified };
    case 'already_shipped':
      // Shipped, and one of this flow's sends may have landed: ours, confirmed by the read.
      return sends > 0 || run.maybeSent
        ? { status: 'shipped', parcelId, verified: true }
        : { status: 'closed', outcome: 'shipped_elsewhere' };
    case 'closed':
      return { status: 'closed', outcome: attempt.outcome };
    case 'refused': {
      const { code, message, httpStatus } = attempt;
      return { status: 'refused', parcelId, code, message, ...(httpStatus ? { httpStatus } : {}) };
    }
    case 'in_doubt':
      run.maybeSent = true;
      return run.state.parcelIds.length > 1 || sends + 1 >= MAX_SENDS
        ? { status: 'in_doubt', parcelId }
        : undefined;
  }
}

/**
 * After an in-doubt answer: the order read at growing delays. Shipped → done (verified); ended → closed;
 * still waiting (or unread) after the last read → undefined: send again (the send reads once more first).
 */
async function verifyShipped(run: OrderRun, parcelId: string): Promise<ShipResult | undefined> {
  for (const ms of VERIFY_DELAYS_MS) {
    await sleep(ms);
    const order = await read(run);
    const ended = order && endOf(run, order);
    if (ended === 'shipped') return { status: 'shipped', parcelId, verified: true };
    if (ended) return { status: 'closed', outcome: ended };
  }
  return undefined;
}
