// `selling-kit dev`'s n8n banner calls a demo run a success only with its effect on the simulator
// (issue 24 item 5: a green execution that sent nothing was reported as a success). effectOf reads the
// simulator: before the effect it finds nothing to report, after it says what changed.
import { createClient } from '@selling-kit/api-client';
import { DEMO, startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { effectOf, type DemoSimulator } from '../src/n8n/demo.ts';

let sim: RunningSimulator;
let demo: DemoSimulator;
beforeAll(async () => {
  sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
  demo = { adminUrl: sim.adminUrl, sellerId: DEMO.sellerId, listings: sim.demo!.listings };
});
afterAll(() => sim.close());

const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${sim.adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

describe('the dev banner checks the effect', () => {
  it('a like: nothing until an offer reaches the liker, then the offer', async () => {
    const listing = demo.listings[2]!;
    const { likerId } = await admin<{ likerId: number }>('POST', `/admin/products/${listing}/likes`, {});
    await expect(effectOf(demo, 'like', listing, likerId)).resolves.toBeUndefined();
    const shop = createClient({ baseUrl: sim.url, apiKey: DEMO.apiKey });
    await shop.offers.submit(
      { productId: listing },
      { offer_recipient_id: likerId, offer_value: 50, offer_currency: 'GBP' },
    );
    await expect(effectOf(demo, 'like', listing, likerId)).resolves.toBe(
      `offer of 50 GBP sent to liker ${likerId}`,
    );
  });

  it('a sale: nothing until the SKU is marked sold on another shop, then that shop', async () => {
    const listing = demo.listings[0]!;
    const { sku } = await admin<{ sku: string }>('GET', `/admin/products/${listing}`);
    await admin('POST', '/admin/orders', { sellerId: DEMO.sellerId, productIds: [listing] });
    await expect(effectOf(demo, 'sale', listing, 0)).resolves.toBeUndefined();
    await createClient({ baseUrl: sim.url, apiKey: DEMO.usApiKey }).products.markAsSoldBySku(sku);
    const { username } = await admin<{ username: string }>('GET', `/admin/sellers/${DEMO.usSellerId}`);
    await expect(effectOf(demo, 'sale', listing, 0)).resolves.toBe(`${sku} marked sold on "${username}"`);
  });
});
