// `selling-kit conformance`, spawned for real: against the embedded simulator (every line as expected),
// against a simulator of the test's own (only the run's listings touched, all of them removed), with a
// fault that makes a probe's answer differ (✗, exit 9), Ctrl-C (clean-up, exit 130), and flags that are
// refused before anything is sent.
// @needs temporal
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { PROBES, selectProbes } from '../src/conformance/probes.ts';
import { cliEnv, runCli, type CliEnv, expectFailure } from './helpers.ts';

const DEMO_KEY = 'pak_demo_selling_kit';
const DEMO_SECRET = 'whsec_demo_selling_kit';
const SELLER = 1001;

interface ProductRecord {
  productId: number;
  sku: string | null;
  state: string;
  updatedAt: number;
  quantity: number;
  fields: Record<string, unknown>;
}

const admin = async (sim: RunningSimulator, path: string, init?: RequestInit) => {
  const res = await fetch(`${sim.adminUrl}${path}`, {
    ...init,
    headers: init?.body ? { 'content-type': 'application/json' } : {},
  });
  return res.json() as Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
};
const products = (sim: RunningSimulator): Promise<ProductRecord[]> =>
  admin(sim, `/admin/sellers/${SELLER}/products`);

/** The demo shop's picture, served by the simulator itself. */
const pictureOf = (sim: RunningSimulator) => `${sim.url}/demo-assets/tee-black.png`;

/** The flags that point the command at `sim` as a remote API. */
const remote = (sim: RunningSimulator, ...more: string[]) => [
  ...['conformance', '--base-url', sim.url, '--api-key-env', 'SK_TEST_KEY'],
  ...['--picture-url', pictureOf(sim), ...more],
];

let ctx: CliEnv;
beforeAll(() => {
  ctx = cliEnv({ SK_TEST_KEY: DEMO_KEY, SK_TEST_WEBHOOK_SECRET: DEMO_SECRET });
});

/** Probes whose answer was not as expected, as `id: answer` (empty when all are). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const notOk = (json: any): string[] =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json.probes.filter((p: any) => p.verdict !== 'ok').map((p: any) => `${p.id}: ${p.verdict} ${p.answer}`);

describe('the probe table', () => {
  it('has unique ids; each probe needs or runs after earlier probes only', () => {
    expect(new Set(PROBES.map((p) => p.id)).size).toBe(PROBES.length);
    PROBES.forEach((p, i) => {
      const earlier = new Set(PROBES.slice(0, i).map((q) => q.id));
      expect([...(p.needs ?? []), ...(p.after ?? [])].filter((id) => !earlier.has(id))).toEqual([]);
    });
  });

  it('--only takes the prerequisites along, in run order', () => {
    expect(selectProbes(['refunds.no-amount']).probes.map((p) => p.id)).toEqual([
      'webhooks.subscribe',
      'webhooks.purchase-order-new',
      'refunds.no-amount',
    ]);
    expect(selectProbes(['nope']).unknown).toEqual(['nope']);
  });
});

describe('selling-kit conformance', () => {
  it('against the embedded simulator (the default): every line as expected, every test listing removed', async () => {
    const r = await runCli(ctx, ['--json', 'conformance', '--probe-rate-limit'], { timeoutMs: 180_000 });
    expect(r.json?.probes).toBeDefined();
    expect(notOk(r.json)).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.json.target.kind).toBe('embedded-simulator');
    expect(r.json.summary).toMatchObject({ differs: 0, blocked: 0, skipped: 0, interrupted: false });
    const { cleanup } = r.json.summary;
    expect(cleanup.left).toEqual([]);
    expect(cleanup.created).toBeGreaterThanOrEqual(6);
    expect(cleanup.removed).toBe(cleanup.created);
    expect(cleanup.webhookSubscription.removed).toBe(true);
    // Secrets never in the output.
    expect(r.stdout + r.stderr).not.toContain(DEMO_KEY);
    expect(r.stdout + r.stderr).not.toContain(DEMO_SECRET);
  }, 240_000);

  describe('against a simulator of its own (--base-url)', () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startSimulator({ demo: true });
    });
    afterAll(async () => {
      await sim?.close();
    });

    it('touches only its own listings, removes every one and its webhook subscription', async () => {
      // A listing of the shop's own, besides the demo ones, and a sold one: neither may change.
      const pre = await fetch(`${sim.url}/api/v1/products/by-sku/PRE-EXISTING-1/`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          address: { country_code: 'GB' },
          description: 'A listing that was here before the conformance run',
          price_currency: 'GBP',
          price_amount: '30.00',
          national_shipping_cost: '3.50',
          quantity: 3,
          pictures: [{ url: pictureOf(sim) }],
          department: 'menswear',
          product_type: 'bags',
          condition: 'used_good',
          brand_name: 'Nike',
          attributes: {},
        }),
      });
      expect(pre.status).toBe(200);
      const sold = await fetch(`${sim.url}/api/v1/products/by-sku/DEMO-JACKET-003/mark-as-sold/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO_KEY}` },
      });
      expect(sold.status).toBe(200);
      const before = await products(sim);
      expect(before).toHaveLength(4);

      const r = await runCli(
        ctx,
        [
          '--json',
          ...remote(sim, '--webhook-receiver', 'http://127.0.0.1:0/hooks'),
          ...['--webhook-secret-env', 'SK_TEST_WEBHOOK_SECRET', '--webhook-timeout', '10'],
        ],
        { timeoutMs: 180_000 },
      );
      expect([0, 9]).toContain(r.code);
      expect(r.json.target).toEqual({ kind: 'base-url', baseUrl: sim.url });
      expect(r.json.summary.skipped).toBe(2); // the rate-limit probes: no --probe-rate-limit
      const prefix: string = r.json.skuPrefix;
      expect(prefix).toMatch(/^skc-[0-9a-z]{8}-$/);

      const after = await products(sim);
      const own = after.filter((p) => p.sku?.startsWith(prefix));
      expect(own.length).toBeGreaterThanOrEqual(5);
      expect(own.filter((p) => p.state !== 'removed')).toEqual([]);
      expect(r.json.summary.cleanup).toMatchObject({ left: [], created: own.length, removed: own.length });
      // Everything else is exactly as it was.
      expect(after.filter((p) => !p.sku?.startsWith(prefix))).toEqual(before);
      expect(await admin(sim, '/admin/webhooks')).toEqual([]);
      expect(r.stdout + r.stderr).not.toContain(DEMO_KEY);
    }, 240_000);

    it('a probe whose answer differs (a fault on the list) is ✗ and exits 9; the others still pass', async () => {
      const rule = await admin(sim, '/admin/faults', {
        method: 'POST',
        body: JSON.stringify({ type: 'error_502', operationId: 'products.list' }),
      });
      try {
        const json = await runCli(ctx, ['--json', ...remote(sim, '--only', 'list.sort-by-invalid,auth')]);
        expect(json.code).toBe(9);
        expect(json.json.probes.map((p: { id: string; verdict: string }) => [p.id, p.verdict])).toEqual([
          ['auth.invalid-key', 'ok'],
          ['auth.missing-key', 'ok'],
          ['list.sort-by-invalid', 'differs'],
        ]);
        expect(json.json.probes[2].answer).toBe('502 unexpected_response');

        const human = await runCli(ctx, remote(sim, '--only', 'list.sort-by-invalid'));
        expect(human.code).toBe(9);
        expect(human.stdout).toMatch(
          /^✗ +list\.sort-by-invalid +400 naming the values +502 unexpected_response/m,
        );
        expect(human.stdout).toContain('0 as expected, 1 differ of 1');
      } finally {
        await admin(sim, `/admin/faults/${rule.id}`, { method: 'DELETE' });
      }
    }, 120_000);

    it('Ctrl-C stops the probes, cleans up what it created, exits 130', async () => {
      // Slow answers, so the run is surely still probing when it is interrupted.
      const rule = await admin(sim, '/admin/faults', {
        method: 'POST',
        body: JSON.stringify({ type: 'latency', operationId: 'products.*', latencyMs: 100 }),
      });
      let prefix: string | undefined;
      try {
        const r = await runCli(ctx, remote(sim), {
          timeoutMs: 120_000,
          onStderr: (text, child) => {
            prefix ??= /test SKUs (skc-[0-9a-z]{8}-)/.exec(text)?.[1];
            if (text.includes('products.patch-price') && !child.killed) child.kill('SIGINT');
          },
        });
        expect(r.code).toBe(130);
        expect(r.stderr).toContain('interrupted: stopping the probes and cleaning up');
        expect(r.stdout).toMatch(/interrupted: .* test listings: 1 created, 1 removed/);
      } finally {
        await admin(sim, `/admin/faults/${rule.id}`, { method: 'DELETE' });
      }
      expect(prefix).toBeDefined();
      const own = (await products(sim)).filter((p) => p.sku?.startsWith(prefix!));
      expect(own.length).toBe(1);
      expect(own.filter((p) => p.state !== 'removed')).toEqual([]);
    }, 120_000);

    it('a refused API key: exit 6, the key never shown', async () => {
      const r = await runCli(ctx, ['--json', ...remote(sim)], {
        env: { SK_TEST_KEY: 'pak_not_the_key_1234' },
      });
      expectFailure(r, 6, { code: 'credential_rejected' });
      expect(r.json.error.message).toContain('$SK_TEST_KEY');
      expect(r.stdout + r.stderr).not.toContain('pak_not_the_key_1234');
    }, 60_000);
  });

  describe('refused before anything is sent (exit 2)', () => {
    let server: Server;
    let url: string;
    let requests = 0;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        requests++;
        res.writeHead(500).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it.each([
      [
        '--env staging without --api-key-env',
        ['--env', 'staging', '--picture-url', 'https://example.com/a.jpg'],
        'api_key_required',
        '--api-key-env',
      ],
      [
        '--env staging with an unset key variable',
        [
          '--env',
          'staging',
          '--api-key-env',
          'SK_CONFORMANCE_UNSET',
          '--picture-url',
          'https://example.com/a.jpg',
        ],
        'secret_missing',
        'SK_CONFORMANCE_UNSET',
      ],
      ['--env production', ['--env', 'production'], 'production_refused', 'never production'],
      [
        'the production host as --base-url',
        ['--base-url', 'https://partnerapi.depop.com/', '--api-key-env', 'SK_TEST_KEY'],
        'production_refused',
        'production',
      ],
      [
        'an API key flag on the embedded simulator',
        ['--api-key-env', 'SK_TEST_KEY'],
        'remote_only_flag',
        '--api-key-env',
      ],
      ['an unknown probe id', ['--only', 'nosuch'], 'unknown_probe', 'nosuch'],
    ])('%s', async (_name, flags, code, named) => {
      const r = await runCli(ctx, ['--json', 'conformance', ...flags]);
      expectFailure(r, 2, code);
      expect(r.json.error.message).toContain(named);
    });

    it('--base-url: an unset key variable or no --picture-url sends nothing', async () => {
      const unset = await runCli(ctx, [
        ...['--json', 'conformance', '--base-url', url, '--api-key-env', 'SK_CONFORMANCE_UNSET'],
        ...['--picture-url', 'https://example.com/a.jpg'],
      ]);
      expect(unset.code).toBe(2);
      expect(unset.json.error.message).toContain('SK_CONFORMANCE_UNSET');
      const noPicture = await runCli(ctx, [
        '--json',
        'conformance',
        '--base-url',
        url,
        '--api-key-env',
        'SK_TEST_KEY',
      ]);
      expectFailure(noPicture, 2, 'picture_url_required');
      const noSecret = await runCli(ctx, [
        ...['--json', 'conformance', '--base-url', url, '--api-key-env', 'SK_TEST_KEY'],
        ...['--picture-url', 'https://example.com/a.jpg', '--webhook-receiver', 'http://127.0.0.1:0/hooks'],
      ]);
      expectFailure(noSecret, 2, 'webhook_secret_required');
      expect(requests).toBe(0);
    });
  });
});
