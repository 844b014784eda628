// `selling-kit webhooks serve` end to end: the real CLI process receives the simulator's signed
// webhooks for the two demo shops, a purchase on the GB shop marks the same SKU sold on the US shop
// through a real worker process and Temporal; a forged signature is a 401; bad flags exit 2 before
// anything starts; Ctrl-C stops it cleanly.
// @needs temporal
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO } from '@selling-kit/simulator';
import { webhookHeaders } from '@selling-kit/api-client/core';
import { CLI, cliStackPerFile } from './helpers.ts';

const stack = cliStackPerFile({ GB_KEY: DEMO.apiKey, US_KEY: DEMO.usApiKey }, { gb: 'GB_KEY', us: 'US_KEY' });
const SECRET_ENV = { SELLING_KIT_WEBHOOK_SECRET: DEMO.webhookSecret };

const adminPost = (path: string, body: unknown) =>
  fetch(stack.sim.adminUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((r) => r.json() as Promise<Record<string, unknown>>);

describe('selling-kit webhooks serve', () => {
  it.each([
    ['the delist workflow', [], /200 v1:order\.new \S+ delist_started delist:gb:/, 0],
    ['its order flow (--order-flows)', ['--order-flows'], /200 v1:order\.new \S+ order_started order:gb:/, 1],
  ] as const)(
    'delists a sale on the other shop through %s, refuses a forged signature, stops on Ctrl-C',
    async (_how, flags, logged, listing) => {
      const child = spawn(process.execPath, [CLI, '--json', 'webhooks', 'serve', '--port', '0', ...flags], {
        env: { ...stack.ctx.env, ...SECRET_ENV },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((r) => child.once('exit', r));
      const ready = await new Promise<{
        url: string;
        shops: { shopId: string; sellerId: number }[];
        orderFlows: boolean;
      }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not ready:\n${stderr}`)), 60_000);
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          try {
            resolve(JSON.parse(stdout));
            clearTimeout(timer);
          } catch {
            // not complete yet
          }
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}:\n${stderr}`)));
      });
      try {
        expect(ready.shops).toEqual([
          { shopId: 'gb', sellerId: DEMO.sellerId },
          { shopId: 'us', sellerId: DEMO.usSellerId },
        ]);
        expect(ready.orderFlows).toBe(flags.length > 0);
        await adminPost('/admin/webhooks', {
          partnerId: DEMO.partnerId,
          url: ready.url,
          eventTypes: ['v1:order.new'],
        });
        const tee = [...stack.sim.world.sellers.get(DEMO.usSellerId)!.products.values()].find(
          (p) => p.sku === DEMO.skus[listing],
        )!;
        expect(tee.state).toBe('selling');
        await adminPost('/admin/orders', {
          sellerId: DEMO.sellerId,
          // Every unit left: a listing still on sale at the source is delisted nowhere.
          productIds: Array.from(
            {
              length: Math.max(
                1,
                stack.sim.world.sellers.get(DEMO.sellerId)!.products.get(stack.sim.demo!.listings[listing]!)!
                  .quantity,
              ),
            },
            () => stack.sim.demo!.listings[listing]!,
          ),
        });
        const end = Date.now() + 30_000;
        while (tee.state !== 'sold') {
          if (Date.now() > end) throw new Error(`not delisted:\n${stderr}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        const body = '{"id":"x","event_type":"v1:order.new","created_at":"now","data":{}}';
        const forged = await fetch(ready.url, {
          method: 'POST',
          body,
          headers: webhookHeaders(body, 'whsec_wrong'),
        });
        expect(forged.status).toBe(401);
        // The log line of each delivery names the event and what was done, never the secret.
        expect(stderr).toMatch(logged);
        expect(stderr).toContain('401 - ');
        expect(stderr).not.toContain(DEMO.webhookSecret);
      } finally {
        child.kill('SIGINT');
      }
      expect(await exited).toBe(0);
    },
    120_000,
  );

  it('refuses bad flags, a missing secret and a broken SKU map before anything starts (exit 2)', async () => {
    const noSecret = await stack.cli(['webhooks', 'serve', '--port', '0'], {
      env: { SELLING_KIT_WEBHOOK_SECRET: '' },
    });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('SELLING_KIT_WEBHOOK_SECRET');
    const lowOffer = await stack.cli(['webhooks', 'serve', '--offers-percent', '2'], {
      env: SECRET_ENV,
    });
    expect(lowOffer.code).toBe(2);
    expect(lowOffer.stderr).toContain('offers percentOff must be at least the minimum 5%');
    const map = join(stack.ctx.home, 'skus.json');
    writeFileSync(map, JSON.stringify([{ gb: 'A' }]));
    const badMap = await stack.cli(['webhooks', 'serve', '--sku-map', map], { env: SECRET_ENV });
    expect(badMap.code).toBe(2);
    expect(badMap.stderr).toContain(`SKU map ${map}: entry 0 must name at least two shops`);
    const badPort = await stack.cli(['webhooks', 'serve', '--port', 'x'], { env: SECRET_ENV });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('--port must be a number, got "x"');
  }, 60_000);
});
