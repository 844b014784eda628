// The worker answers a client host's question about a shop (issue 27 §6): the client holds no key, the
// worker checks its own with one GET /api/v1/shop/ and says which credential it has. Real dev server,
// simulator over 127.0.0.1, the worker's credential store as the test sets it.
// @needs temporal
import { randomUUID } from 'node:crypto';
import { checkShop, ShopCheckError } from '../src/client/shop-check-client.ts';
import { freePort } from '@selling-kit/simulator';
import { useTestEnv } from './helpers.ts';

const env = useTestEnv('shop-check');

it('a shop whose key the API accepts: ok, api_key, called — and without the call, the credential kind only', async () => {
  const shop = env.shop('sc-good');
  expect(await checkShop(env.client, { shopId: shop.ref }, { taskQueue: env.taskQueue })).toEqual({
    shopId: shop.ref,
    ok: true,
    auth: 'api_key',
    called: true,
  });
  expect(
    await checkShop(env.client, { shopId: shop.ref, call: false }, { taskQueue: env.taskQueue }),
  ).toEqual({
    shopId: shop.ref,
    ok: true,
    auth: 'api_key',
    called: false,
  });
});

it('a rejected key, an unreachable API and an unknown shop: each its code, no secret in the message', async () => {
  const shop = env.shop('sc-bad');
  const good = env.keys.get(shop.ref)!;
  env.keys.set(shop.ref, { ...good, apiKey: 'sk_wrong_key_0123456789' });
  const rejected = await checkShop(env.client, { shopId: shop.ref }, { taskQueue: env.taskQueue });
  expect(rejected).toMatchObject({ ok: false, code: 'credential_rejected', auth: 'api_key' });
  expect(rejected.ok ? '' : rejected.message).toMatch(
    /API key of shop "sc-bad" was rejected at http:\/\/127\.0\.0\.1:\d+ \(401/,
  );
  expect(JSON.stringify(rejected)).not.toContain('sk_wrong_key');

  env.keys.set(shop.ref, { ...good, baseUrl: `http://127.0.0.1:${await freePort()}` });
  expect(await checkShop(env.client, { shopId: shop.ref }, { taskQueue: env.taskQueue })).toMatchObject({
    ok: false,
    code: 'api_unreachable',
  });

  expect(
    await checkShop(env.client, { shopId: `nope-${randomUUID().slice(0, 6)}` }, { taskQueue: env.taskQueue }),
  ).toMatchObject({
    ok: false,
    code: 'unknown_shop',
    message: expect.stringMatching(/the worker has no API key and no connected seller for shop "nope-/),
  });
});

it('a task queue no worker serves: "no worker", within the timeout', async () => {
  const error = await checkShop(
    env.client,
    { shopId: 'x' },
    { taskQueue: `nobody-${randomUUID()}`, timeout: '2 seconds' },
  ).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ShopCheckError);
  expect((error as ShopCheckError).reason).toBe('no_worker');
  expect((error as Error).message).toMatch(
    /^no selling-kit worker on task queue nobody-.* checked shop "x" within 2 seconds/,
  );
});
