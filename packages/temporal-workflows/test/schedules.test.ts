// Schedules (P1): explicit overlap and catch-up policies (the server's default catch-up window is a
// year), and the job search attributes on every scheduled run so the documented queries find them.
// No worker: the runs are only described, then terminated.
// @needs temporal
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import {
  createFeedSyncSchedule,
  createOrdersReconciliationSchedule,
  deleteSchedule,
  describeSchedule,
  SCHEDULE_POLICIES,
} from '../src/client/schedules.ts';
import { JOB_ATTRIBUTE, OPERATION_ATTRIBUTE, SHOP_ATTRIBUTE } from '../src/search-attributes.ts';

let connection: Connection;
let client: Client;
const taskQueue = `schedules-test-${randomUUID()}`;

beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_TEST_ADDRESS! });
  client = new Client({ connection });
});
afterAll(() => connection?.close());

async function triggeredRun(scheduleId: string) {
  await client.schedule.getHandle(scheduleId).trigger();
  for (;;) {
    const action = (await describeSchedule(client, scheduleId)).info.recentActions.at(-1)?.action;
    if (action)
      return client.workflow.getHandle(action.workflow.workflowId, action.workflow.firstExecutionRunId);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('a feed sync skips a run while the last one is still going, catches up at most 1 h, and tags its runs', async () => {
  const id = `sync-${randomUUID()}`;
  const shopId = `shop-${randomUUID().slice(0, 8)}`;
  await createFeedSyncSchedule(
    client,
    id,
    {
      shop: { shopId, credentialRef: 'shop-1' },
      feed: { path: '/nonexistent.csv', format: 'csv' },
      operation: 'upsert',
    },
    { every: '1h' },
    taskQueue,
  );
  try {
    const d = await describeSchedule(client, id);
    expect(d.policies).toMatchObject({ overlap: 'SKIP', catchupWindow: 3_600_000, pauseOnFailure: false });
    expect(SCHEDULE_POLICIES).toMatchObject({ overlap: 'SKIP', catchupWindow: '1h' });
    const run = await triggeredRun(id);
    const attrs = (await run.describe()).typedSearchAttributes;
    expect(attrs.get(SHOP_ATTRIBUTE)).toBe(shopId);
    expect(attrs.get(OPERATION_ATTRIBUTE)).toBe('upsert');
    expect(attrs.get(JOB_ATTRIBUTE)).toBe(`feed-sync:${id}`);
    await run.terminate('test: no worker');
  } finally {
    await deleteSchedule(client, id);
  }
}, 60_000);

it('an orders reconciliation has the same policies and carries the shop and its operation', async () => {
  const id = `orders-${randomUUID()}`;
  const shopId = `shop-${randomUUID().slice(0, 8)}`;
  await createOrdersReconciliationSchedule(
    client,
    id,
    { shop: { shopId, credentialRef: 'shop-1' } },
    { cron: '0 3 * * *' },
    taskQueue,
  );
  try {
    expect((await describeSchedule(client, id)).policies).toMatchObject({
      overlap: 'SKIP',
      catchupWindow: 3_600_000,
    });
    const run = await triggeredRun(id);
    const attrs = (await run.describe()).typedSearchAttributes;
    expect(attrs.get(SHOP_ATTRIBUTE)).toBe(shopId);
    expect(attrs.get(OPERATION_ATTRIBUTE)).toBe('reconcile-orders');
    expect(attrs.get(JOB_ATTRIBUTE)).toBe(`reconcile:${id}`);
    await run.terminate('test: no worker');
  } finally {
    await deleteSchedule(client, id);
  }
}, 60_000);
