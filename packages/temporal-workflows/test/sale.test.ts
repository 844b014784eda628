// The sale's fast path (workflows/sale.ts): one workflow task with a local attempt when the API answers
// it; a 429, an answer lost after the write, or a failure before any request hand the sale to the durable
// activity — which waits a 429's Retry-After and counts "not on sale" after the lost answer as sold.
// @needs temporal
import { randomUUID } from 'node:crypto';
import proto from '@temporalio/proto';
import { markAsSold } from '../src/client/client.ts';
import { saleTaskQueue } from '../src/contract.ts';
import { saleWorkflowId } from '../src/workflows/sale.ts';
import { addFault, admin, listDirectly, useTestEnv } from './helpers.ts';

const T = proto.temporal.api.enums.v1.EventType;
const env = useTestEnv('sale');
afterEach(() => admin(env, 'DELETE', '/admin/faults'));

/** A shop with one listing on sale, and the sale's input for it. */
async function onSale(name: string) {
  const shop = env.shop(name);
  const sku = `SALE-${randomUUID().slice(0, 8)}`;
  const seller = env.sim.world.sellers.get(shop.sellerId)!;
  const listing = await listDirectly(env, shop.sellerId, sku);
  const input = { shop: { shopId: shop.shopId, credentialRef: shop.ref }, ref: { sku } };
  const state = () => seller.products.get(listing.productId)!.state;
  return { input, state };
}

/** The next mark-as-sold request meets `fault` (a simulator fault rule, fired once). */
const onNextMarkAsSold = (fault: { type: string } & Record<string, unknown>) =>
  addFault(env, { ...fault, operationId: 'products.markAsSold*', count: 1 });

async function historyOf(input: Parameters<typeof markAsSold>[1]) {
  const history = await env.client.workflow
    .getHandle(saleWorkflowId(input.shop.shopId, input.ref))
    .fetchHistory();
  return history.events!;
}
const eventTypes = async (input: Parameters<typeof markAsSold>[1]) =>
  (await historyOf(input)).map((e) => e.eventType);

it('a sale the API answers is one workflow task: a local attempt, no activity task', async () => {
  const { input, state } = await onSale('sale-a');
  const r = await markAsSold(env.client, input, env.taskQueue);
  expect(r).toEqual({ status: 'sold', attempts: 1 });
  expect(state()).toBe('sold');
  const types = await eventTypes(input);
  expect(types.filter((t) => t === T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)).toHaveLength(1);
  expect(types).toContain(T.EVENT_TYPE_MARKER_RECORDED);
  expect(types).not.toContain(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
}, 60_000);

it("a sale runs on the sale lane's own task queue, which every kit worker serves beside its main queue", async () => {
  const { input } = await onSale('sale-q');
  expect(await markAsSold(env.client, input, env.taskQueue)).toEqual({ status: 'sold', attempts: 1 });
  const described = await env.client.workflow
    .getHandle(saleWorkflowId(input.shop.shopId, input.ref))
    .describe();
  expect(described.taskQueue).toBe(saleTaskQueue(env.taskQueue));
  expect(saleTaskQueue(env.taskQueue)).not.toBe(env.taskQueue);
}, 60_000);

it('a 429 on the local attempt waits its Retry-After, then the durable activity marks it sold', async () => {
  const { input, state } = await onSale('sale-b');
  await onNextMarkAsSold({ type: 'rate_limit_storm', retryAfterMs: 3000 });
  const r = await markAsSold(env.client, input, env.taskQueue);
  expect(r).toEqual({ status: 'sold', attempts: 2 });
  expect(state()).toBe('sold');
  const events = await historyOf(input);
  const timer = events.find((e) => e.eventType === T.EVENT_TYPE_TIMER_STARTED);
  const waitMs =
    Number(timer?.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? 0) * 1000 +
    (timer?.timerStartedEventAttributes?.startToFireTimeout?.nanos ?? 0) / 1e6;
  // The wait the gateway asked for (3 simulated seconds), before the durable activity was scheduled.
  expect(waitMs).toBe(3000 / env.sim.config.timeScale);
  const types = events.map((e) => e.eventType);
  expect(types.indexOf(T.EVENT_TYPE_TIMER_FIRED)).toBeLessThan(
    types.indexOf(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
  );
  expect(types).toContain(T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
}, 60_000);

it('a local attempt whose answer was lost after the write is repeated by the durable activity', async () => {
  const { input, state } = await onSale('sale-c');
  await onNextMarkAsSold({ type: 'timeout_after_commit' });
  const r = await markAsSold(env.client, input, env.taskQueue);
  // The simulator answers a repeated mark-as-sold 200: the repeat reports it sold.
  expect(r).toEqual({ status: 'sold', attempts: 2 });
  expect(state()).toBe('sold');
  expect(await eventTypes(input)).toContain(T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
}, 60_000);

it('"not on sale" after a lost answer counts as sold: the local attempt had sold it', async () => {
  const { input, state } = await onSale('sale-e');
  // The first request commits and its answer is lost; the repeat is answered "not on sale".
  await onNextMarkAsSold({ type: 'timeout_after_commit' });
  await onNextMarkAsSold({ type: 'error_422', code: 'product_not_on_sale' });
  const r = await markAsSold(env.client, input, env.taskQueue);
  expect(r).toEqual({ status: 'already_sold', attempts: 2 });
  expect(state()).toBe('sold');
}, 60_000);

it('a refusal (4xx) on the local attempt fails the sale at once: no durable activity, no repeat', async () => {
  const { input, state } = await onSale('sale-d');
  await onNextMarkAsSold({ type: 'error_422', code: 'product_not_on_sale' });
  const r = await markAsSold(env.client, input, env.taskQueue);
  expect(r).toMatchObject({ status: 'failed', code: 'product_not_on_sale' });
  expect(r.errorId).toBeTruthy();
  expect(state()).toBe('selling');
  expect(await eventTypes(input)).not.toContain(T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
}, 60_000);
