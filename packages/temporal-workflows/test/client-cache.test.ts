// The activities' client cache (R16): a key rotated in the credential store is used by the next
// activity, without a worker restart; a client an activity may still hold is not closed under it.
import { createApiKey, startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { addShop } from '@selling-kit/simulator/testing';
import { createClientCache, type Credential } from '../src/activities/clients.ts';

let sim: RunningSimulator;
let sellerId: number;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, config: { fetchPictures: false } });
  sellerId = addShop(sim, { username: 'cache-shop' }).sellerId;
});
afterAll(() => sim?.close());

it('a rotated API key is used by the next call; the old client keeps working until it is retired', async () => {
  const first = createApiKey(sim.world, 'partner-cache', sellerId).key;
  const second = createApiKey(sim.world, 'partner-cache', sellerId).key;
  let current: Credential = { baseUrl: sim.url, apiKey: first };
  const cache = createClientCache({ credentials: (ref) => (ref === 'shop-1' ? current : undefined) });
  const shop = { shopId: String(sellerId), credentialRef: 'shop-1' };
  try {
    const before = await cache.clientFor(shop);
    expect((await cache.clientFor(shop)) === before).toBe(true); // cached while the credential is unchanged
    expect((await before.shop.get()).id).toBe(sellerId);

    // credentials.json gets the new key, and the old one is revoked.
    current = { baseUrl: sim.url, apiKey: second };
    sim.world.apiKeys.delete(first);
    const after = await cache.clientFor(shop);
    expect(after === before).toBe(false);
    expect((await after.shop.get()).id).toBe(sellerId);
    // The old client is retired, not closed under an activity that may still hold it: it still makes
    // its request (the API refuses the revoked key).
    await expect(before.shop.get()).rejects.toMatchObject({ status: 401 });
  } finally {
    await cache.close();
  }
});
