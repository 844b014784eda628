// `selling-kit orders`: an order's flow started by hand, seen in `list` and `show`, a tracking code the API
// refuses (the flow keeps waiting, exit 3), then shipped (the simulator's parcel carries the tracking), and
// the errors a user meets (no such flow, a parcel the order does not have, a bad duration).
// @needs temporal
import { createListing } from '../../simulator/src/domain/products.ts';
import { createOrder } from '../../simulator/src/domain/orders.ts';
import { validListing } from '@selling-kit/simulator/testing';
import { cliStackPerFile, expectFailure } from './helpers.ts';

const stack = cliStackPerFile({ DEMO_KEY: 'pak_demo_selling_kit' }, { 'shop-o': 'DEMO_KEY' });

/** A purchase of a new listing on the demo shop, straight in the simulator's world. */
async function purchase(sku: string) {
  const { world, config, demo } = stack.sim;
  const seller = world.sellers.get(demo!.sellerId)!;
  const product = await createListing(world, config, seller, validListing({ sku }) as never, {
    now: world.clock.now(),
    skipPictureFetch: true,
  });
  return createOrder(world, seller, [product.productId], {
    now: world.clock.now(),
    events: { emit: () => undefined },
  });
}

describe('selling-kit orders', () => {
  it('start, list, show, a refused tracking code, then ship: the parcel carries the tracking', async () => {
    const order = await purchase(`CLI-ORDER-${Date.now()}`);
    const id = order.purchaseId;
    const started = await stack.cli([
      '--json',
      'orders',
      'start',
      id,
      '--shop',
      'shop-o',
      '--remind-after',
      '1h',
    ]);
    expect(started.code).toBe(0);
    expect(started.json).toMatchObject({ started: true, workflowId: `order:shop-o:${id}` });
    const again = await stack.cli(['--json', 'orders', 'start', id, '--shop', 'shop-o']);
    expect(again.json).toMatchObject({ started: false });

    let listed: { purchaseId: string; state: string }[] = [];
    for (let i = 0; i < 100 && !listed.some((o) => o.purchaseId === id); i++) {
      listed = (await stack.cli(['--json', 'orders', 'list', '--shop', 'shop-o'])).json as typeof listed;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed.find((o) => o.purchaseId === id)).toMatchObject({ state: 'awaiting_tracking' });

    let shown = await stack.cli(['--json', 'orders', 'show', id, '--shop', 'shop-o']);
    for (let i = 0; i < 100 && !(shown.json as { parcelIds: string[] }).parcelIds.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      shown = await stack.cli(['--json', 'orders', 'show', id, '--shop', 'shop-o']);
    }
    const parcelId = [...order.parcels.keys()][0]!;
    expect(shown.json).toMatchObject({ phase: 'awaiting_tracking', parcelIds: [parcelId], remindersSent: 0 });

    // Spaces are not allowed between tracking numbers: the API's rule, the API's answer (exit 3).
    const bad = await stack.cli([
      ...['--json', 'orders', 'ship', id, '--shop', 'shop-o'],
      ...['--carrier', 'ROYAL_MAIL', '--tracking', 'GB1, GB2'],
    ]);
    expect(bad.code).toBe(3);
    expect(bad.json).toMatchObject({ status: 'refused', parcelId });
    expect(order.status).toBe('SHIPPING_PENDING');

    const wrongParcel = await stack.cli([
      ...['--json', 'orders', 'ship', id, '--shop', 'shop-o'],
      ...['--carrier', 'ROYAL_MAIL', '--tracking', 'GB1', '--parcel', 'not-a-parcel'],
    ]);
    expectFailure(wrongParcel, 2, 'ship_refused');

    const shipped = await stack.cli([
      ...['--json', 'orders', 'ship', id, '--shop', 'shop-o'],
      ...['--carrier', 'ROYAL_MAIL', '--tracking', 'GB1,GB2'],
    ]);
    expect(shipped.code).toBe(0);
    expect(shipped.json).toEqual({ status: 'shipped', parcelId, verified: false });
    expect(order.status).toBe('SHIPPED');
    expect(order.parcels.get(parcelId)).toMatchObject({ trackingNumber: 'GB1,GB2', carrier: 'ROYAL_MAIL' });
  }, 120_000);

  it('names what is wrong: no flow for the order (exit 4), a bad duration (exit 2)', async () => {
    expectFailure(
      await stack.cli(['--json', 'orders', 'show', 'no-such-order', '--shop', 'shop-o']),
      4,
      'order_flow_not_found',
    );
    expectFailure(
      await stack.cli(['--json', 'orders', 'start', 'p-1', '--shop', 'shop-o', '--remind-after', 'tomorrow']),
      2,
      { code: 'bad_duration', message: expect.stringContaining('--remind-after: "tomorrow"') },
    );
    expectFailure(
      await stack.cli(['--json', 'orders', 'start', 'p 1', '--shop', 'shop-o']),
      2,
      'bad_order_flow',
    );
  }, 120_000);
});
