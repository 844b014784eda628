// Faults on demand, configured through the admin surface: 500s before and after the write, 504 before
// and after the write, connection resets before and after the write, latency, 429 storms; matching by
// operation id, method and path; counts, probabilities and seeded reproducibility; counters.
import { RateLimitBody } from '@selling-kit/api-client/core';
import type { Handlers } from '../../src/handlers/types.ts';
import { adminCall, probeHandlers, type CallResult } from '../helpers.ts';
import { testShopPerFile } from '../fixtures.ts';

/** Writes that reached the handler (the "commit"). */
let commits = 0;

const handlers: Handlers = {
  ...probeHandlers,
  'products.create': () => {
    commits++;
    return { body: { product_id: commits, slug: `p-${commits}`, sku: null } };
  },
};

const shop = testShopPerFile({ handlers, config: { timeScale: 10, seed: 42 } }, async ({ sim }) => {
  await adminCall(sim, 'DELETE', '/admin/faults');
  commits = 0;
});

const create = () => shop.call('POST', '/api/v1/products/', {});
const shopGet = () => shop.call('GET', '/api/v1/shop/');

async function addFault(rule: Record<string, unknown>) {
  const res = await adminCall(shop.sim, 'POST', '/admin/faults', rule);
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

function expectEnvelope(res: CallResult, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body.errors[0].code).toBe(code);
  expect(typeof res.body.id).toBe('string');
}

/**
 * One create under a one-shot `fault`: asserts the envelope it answers and how many writes reached the
 * handler by then (the fault fired before or after the commit).
 */
async function createUnder(
  fault: Record<string, unknown>,
  answer: { status: number; code: string; commits: number },
): Promise<CallResult> {
  await addFault({ ...fault, count: 1 });
  const res = await create();
  expectEnvelope(res, answer.status, answer.code);
  expect(commits).toBe(answer.commits);
  return res;
}

/** A request whose connection is dropped: fetch rejects. */
async function expectReset(p: Promise<CallResult>) {
  await expect(p).rejects.toThrow();
}

test('error_500 on the next N requests: generic_error envelopes, then normal service', async () => {
  await addFault({ type: 'error_500', operationId: 'products.create', count: 2 });
  expectEnvelope(await create(), 500, 'generic_error');
  expectEnvelope(await create(), 500, 'generic_error');
  expect(commits).toBe(0);
  expect((await create()).status).toBe(200);
  expect(commits).toBe(1);
  const counters = (await adminCall(shop.sim, 'GET', '/admin/faults')).body;
  expect(counters.byType.error_500).toBeGreaterThanOrEqual(2);
  expect(counters.rules).toHaveLength(0); // spent
  expect(counters.spent[0]).toMatchObject({ type: 'error_500', fired: 2, count: 2 });
});

test.each(['depop_json_deserialization', 'missing_address_configuration', 'missing_partner_configuration'])(
  'error_500 with code %s answers that 500 code',
  async (code) => {
    await createUnder({ type: 'error_500', code }, { status: 500, code, commits: 0 });
  },
);

test('error_502: unexpected_response with an empty message, nothing written', async () => {
  await createUnder(
    { type: 'error_502', operationId: 'products.create' },
    { status: 502, code: 'unexpected_response', commits: 0 },
  );
});

test('timeout_before_commit: 504 and the handler did not run', async () => {
  await createUnder(
    { type: 'timeout_before_commit', operationId: 'products.create' },
    { status: 504, code: 'generic_error', commits: 0 },
  );
});

test('timeout_after_commit: 504 although the write happened', async () => {
  const res = await createUnder(
    { type: 'timeout_after_commit', method: 'post', path: '/api/v1/products/' },
    { status: 504, code: 'generic_error', commits: 1 },
  );
  expect(res.body.errors[0].message).toMatch(/may or may not have completed/);
});

test('error_500_after_commit: 500 although the write happened (code as error_500)', async () => {
  await createUnder(
    { type: 'error_500_after_commit', operationId: 'products.create' },
    { status: 500, code: 'generic_error', commits: 1 },
  );
  const code = 'depop_json_deserialization';
  await createUnder({ type: 'error_500_after_commit', code }, { status: 500, code, commits: 2 });
  // Spent: the next write answers normally.
  expect((await create()).status).toBe(200);
  expect(commits).toBe(3);
  const counters = (await adminCall(shop.sim, 'GET', '/admin/faults')).body;
  expect(counters.byType.error_500_after_commit).toBe(2);
  const bad = await adminCall(shop.sim, 'POST', '/admin/faults', {
    type: 'error_500_after_commit',
    code: 'nope',
  });
  expect(bad.status).toBe(400);
});

test('reset_before_commit: the connection drops and nothing was written', async () => {
  await addFault({ type: 'reset_before_commit', operationId: 'products.*', count: 1 });
  await expectReset(create());
  expect(commits).toBe(0);
  expect((await create()).status).toBe(200);
});

test('reset_after_commit: the connection drops after the write', async () => {
  await addFault({ type: 'reset_after_commit', operationId: 'products.create', count: 1 });
  await expectReset(create());
  expect(commits).toBe(1);
  expect((await shopGet()).status).toBe(200);
});

test('latency delays the answer by at least latencyMs (real ms)', async () => {
  await addFault({ type: 'latency', operationId: 'shop.get', latencyMs: 250, count: 1 });
  const started = performance.now();
  const res = await shopGet();
  expect(res.status).toBe(200);
  expect(performance.now() - started).toBeGreaterThanOrEqual(240);
});

test('rate_limit_storm: the gateway answers 429 for its duration, with Retry-After = the time left', async () => {
  const clock = shop.sim.world.clock;
  const t0 = clock.now();
  await addFault({ type: 'rate_limit_storm', path: '/api/v1/**', durationMs: 60_000 });
  const t1 = clock.now();
  const tLo = clock.now();
  const res = await shopGet();
  const tHi = clock.now();
  expect(res.status).toBe(429);
  const body = RateLimitBody.parse(res.body);
  expect(body.group).toBe('general');
  // Storm ends at created + 60 s simulated; time scale 10 → real ms = (end - now) / 10.
  expect(body.retry_after_ms).toBeGreaterThanOrEqual(Math.floor((t0 + 60_000 - tHi) / 10));
  expect(body.retry_after_ms).toBeLessThanOrEqual(Math.ceil((t1 + 60_000 - tLo) / 10));
  expect(Number(res.headers.get('retry-after'))).toBe(Math.ceil(body.retry_after_ms / 1000));
  expect((await create()).status).toBe(429);
  expect(commits).toBe(0);
  // Not matched: /status is outside the storm's path.
  expect((await shop.call('GET', '/status')).status).toBe(200);
  await adminCall(shop.sim, 'POST', '/admin/clock/advance', { ms: 60_000 });
  expect((await shopGet()).status).toBe(200);
});

test('matching by operation id, method and path leaves other requests alone', async () => {
  await addFault({ type: 'error_500', operationId: 'shop.*', method: 'GET' });
  expect((await shopGet()).status).toBe(500);
  expect((await create()).status).toBe(200);
  await adminCall(shop.sim, 'DELETE', '/admin/faults');
  await addFault({ type: 'error_500', path: '/api/v1/insights/*/live/' });
  expect((await shop.call('GET', '/api/v1/insights/shop/live/')).status).toBe(500);
  expect((await shopGet()).status).toBe(200);
});

test('probability faults are reproducible from the seed', async () => {
  const pattern = async (seed: number) => {
    await adminCall(shop.sim, 'DELETE', `/admin/faults?seed=${seed}`);
    await addFault({ type: 'error_500', operationId: 'shop.get', probability: 0.5 });
    const out: number[] = [];
    for (let i = 0; i < 32; i++) out.push((await shopGet()).status);
    return out.join(',');
  };
  const a = await pattern(7);
  const b = await pattern(7);
  const c = await pattern(8);
  expect(a).toBe(b);
  expect(a).not.toBe(c);
  expect(a).toContain('500');
  expect(a).toContain('200');
});

test('a rule can be removed; bad rules are refused with 400', async () => {
  const rule = await addFault({ type: 'error_500', operationId: 'shop.get' });
  expect((await shopGet()).status).toBe(500);
  expect((await adminCall(shop.sim, 'DELETE', `/admin/faults/${rule.id}`)).status).toBe(200);
  expect((await shopGet()).status).toBe(200);
  expect((await adminCall(shop.sim, 'POST', '/admin/faults', { type: 'meteor' })).status).toBe(400);
  expect((await adminCall(shop.sim, 'POST', '/admin/faults', { type: 'latency' })).status).toBe(400);
  expect((await adminCall(shop.sim, 'POST', '/admin/faults', { type: 'rate_limit_storm' })).status).toBe(400);
});

test('the read-after-create delay is a setting handlers read from the config', async () => {
  const res = await adminCall(shop.sim, 'PATCH', '/admin/config', { readAfterCreateDelayMs: 1500 });
  expect(res.status).toBe(200);
  expect(shop.sim.config.readAfterCreateDelayMs).toBe(1500);
  await adminCall(shop.sim, 'PATCH', '/admin/config', { readAfterCreateDelayMs: 0 });
});
