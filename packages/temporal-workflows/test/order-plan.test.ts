// The order flow's pure decisions (workflows/order-plan.ts): the reminder plan and its bounds, what an
// order's status means, and which mark-as-shipped requests the flow turns away.
import {
  atRiskAt,
  DEFAULT_ORDER_REMINDERS,
  MAX_REMINDERS,
  orderInputProblem,
  outcomeOf,
  plannedReminders,
  reminderDueMs,
  reminderPlan,
  shipRequestProblem,
} from '../src/workflows/order-plan.ts';

const DAY = 86_400_000;
const shop = { shopId: 'shop-1', credentialRef: 'shop-1' };

describe('the reminder plan', () => {
  it('defaults: a day, two and three days, then weekly at risk, giving up after 30 days', () => {
    const plan = reminderPlan(undefined);
    expect(plan).toEqual(DEFAULT_ORDER_REMINDERS);
    const due = Array.from({ length: plannedReminders(plan) }, (_, i) => reminderDueMs(plan, i + 1) / DAY);
    expect(due).toEqual([1, 2, 3, 10, 17, 24]);
    expect(due.map((_, i) => atRiskAt(plan, i + 1))).toEqual([false, false, true, true, true, true]);
  });

  it('a part given replaces only that part', () => {
    expect(reminderPlan({ afterMs: [5_000] })).toEqual({ ...DEFAULT_ORDER_REMINDERS, afterMs: [5_000] });
  });

  it('bounds the history: a plan of more reminders than the limit is refused, naming the fix', () => {
    const tooMany = { afterMs: [DAY], atRiskEveryMs: DAY, giveUpAfterMs: 30 * DAY };
    expect(plannedReminders(reminderPlan(tooMany))).toBeGreaterThan(MAX_REMINDERS);
    expect(orderInputProblem({ purchaseId: 'p-1', shop, reminders: tooMany })).toMatch(
      /at most 12 \(a longer atRiskEveryMs or a shorter giveUpAfterMs\)/,
    );
  });

  it.each([
    [{ afterMs: [2, 1] }, /ascending/],
    [{ afterMs: [0] }, /durations in ms/],
    [{ afterMs: Array.from({ length: 11 }, (_, i) => i + 1) }, /at most 10/],
    [{ atRiskEveryMs: -1 }, /atRiskEveryMs/],
    [{ giveUpAfterMs: Number.NaN }, /giveUpAfterMs/],
  ])('refuses reminders %j', (reminders, message) => {
    expect(orderInputProblem({ purchaseId: 'p-1', shop, reminders })).toMatch(message);
  });

  it('refuses ids that cannot name a workflow and product ids that are not integers', () => {
    expect(orderInputProblem({ purchaseId: 'a b', shop })).toMatch(/purchaseId "a b" is not a valid id/);
    expect(orderInputProblem({ purchaseId: 'p', shop: { shopId: 'x:y', credentialRef: 'r' } })).toMatch(
      /shop\.shopId/,
    );
    expect(orderInputProblem({ purchaseId: 'p', shop, productIds: [1.5] })).toMatch(/productIds/);
    expect(orderInputProblem({ purchaseId: 'p', shop, productIds: [1, 2] })).toBeUndefined();
  });
});

describe("an order's status", () => {
  it.each([
    ['SHIPPING_PENDING', undefined],
    ['SHIPPED', 'shipped_elsewhere'],
    ['COMPLETED', 'shipped_elsewhere'],
    ['REFUNDED', 'refunded'],
    ['CANCELLED', 'cancelled'],
    ['SOMETHING_NEW', undefined],
  ])('%s ends the flow as %s', (status, outcome) => {
    expect(outcomeOf({ status, parcelIds: [] })).toBe(outcome);
  });
});

describe('mark-as-shipped requests', () => {
  const ok = { carrier: 'DPD', trackingCode: 'GB1,GB2' };
  it('a one-parcel order needs no parcel id; a two-parcel order needs one of its own', () => {
    expect(shipRequestProblem(ok, ['p1'])).toBeUndefined();
    expect(shipRequestProblem(ok, ['p1', 'p2'])).toMatch(/2 parcels \(p1, p2\): name one/);
    expect(shipRequestProblem({ ...ok, parcelId: 'p2' }, ['p1', 'p2'])).toBeUndefined();
    expect(shipRequestProblem({ ...ok, parcelId: 'p3' }, ['p1', 'p2'])).toMatch(/not a parcel of this order/);
  });

  it('checks the shape only: the tracking code rules are the API’s', () => {
    expect(shipRequestProblem({ ...ok, carrier: '' }, ['p1'])).toMatch(/carrier/);
    expect(shipRequestProblem({ ...ok, trackingCode: '' }, ['p1'])).toMatch(/trackingCode/);
    expect(shipRequestProblem({ ...ok, trackingCode: 'GB1, GB2' }, ['p1'])).toBeUndefined();
    expect(shipRequestProblem(null as never, ['p1'])).toMatch(/carrier, trackingCode/);
  });
});
