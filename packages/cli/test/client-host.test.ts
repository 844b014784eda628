// A client host holds no shop secret (issue 27 §6): `bulk` there asks the worker about each shop (the
// worker holds the keys and checks them with the API) instead of reading a local key. The client host has
// a client key and the Temporal address only — no shops file, no master ring. Real dev server, a real
// `selling-kit worker` process, the simulator over 127.0.0.1.
// @needs temporal
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { cliEnv, runCli, startCliWorker, writeCreatesFeed, type CliEnv } from './helpers.ts';

let sim: RunningSimulator;
let operator: CliEnv;
let clientHost: CliEnv;
let worker: { stop(): Promise<void> };

beforeAll(async () => {
  sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
  operator = cliEnv({ DEMO_KEY: 'pak_demo_selling_kit', WRONG_KEY: 'pak_wrong_0123456789' });
  const add = (shop: string, key: string, ...more: string[]) =>
    runCli(operator, ['shops', 'add', shop, '--api-key-env', key, '--base-url', sim.url, ...more]);
  expect((await add('shop-c', 'DEMO_KEY')).code).toBe(0);
  // A key the API will refuse (stored unchecked, as a key revoked later would be).
  expect((await add('shop-w', 'WRONG_KEY', '--no-check')).code).toBe(0);
  const issued = await runCli(operator, [
    'keys',
    'issue',
    '--id',
    'client-host',
    '--shops',
    'shop-c,shop-w,shop-x',
  ]);
  expect(issued.code).toBe(0);
  const home = mkdtempSync(join(tmpdir(), 'sk-client-host-'));
  clientHost = {
    ...operator,
    home,
    env: {
      ...operator.env,
      SELLING_KIT_HOME: home,
      SELLING_KIT_CODEC_KEY: '',
      SELLING_KIT_CLIENT_KEY: issued.stdout.trim(),
    },
  };
  worker = await startCliWorker(operator);
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await sim?.close();
}, 120_000);

function feed(prefix: string, n: number): string {
  return writeCreatesFeed(clientHost.home, prefix, n);
}

it('bulk from a host with no key: the worker checks the shop, the job runs', async () => {
  const r = await runCli(clientHost, ['--json', 'bulk', feed('CH', 3), '--shop', 'shop-c', '--op', 'create']);
  expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
  expect(r.json).toMatchObject({ state: 'finished', total: 3, ok: 3, failed: 0 });
}, 180_000);

it('a key the API rejects, a shop the worker does not have, a shop the client key does not grant: each said before anything starts', async () => {
  const tag = randomUUID().slice(0, 6);
  const bulk = (prefix: string, shop: string) =>
    runCli(clientHost, [
      ...['--json', 'bulk', feed(prefix, 1), '--shop', shop, '--op', 'create'],
      ...['--job-id', `ch-${prefix}-${tag}`],
    ]);
  const rejected = await bulk('CW', 'shop-w');
  expect(rejected.code).toBe(6);
  expect(rejected.json.error).toMatchObject({
    code: 'credential_rejected',
    message: expect.stringMatching(
      /^the API key of shop "shop-w" was rejected at http:\/\/127\.0\.0\.1:\d+ \(401 unauthorized\)$/,
    ),
  });
  expect(rejected.stdout + rejected.stderr).not.toContain('pak_wrong');

  const unknown = await bulk('CX', 'shop-x');
  expect(unknown.code).toBe(4);
  expect(unknown.json.error).toMatchObject({
    code: 'unknown_shop',
    message: 'unknown shop "shop-x": the worker has no API key and no connected seller for shop "shop-x"',
  });

  const notGranted = await bulk('CN', 'shop-n');
  expect(notGranted.code).toBe(6);
  expect(notGranted.json.error).toMatchObject({
    code: 'shop_refused',
    message: expect.stringContaining('client key client-host may not name shop shop-n'),
  });
  // None of them started a job (the server is shared with other tests: each asked by its id).
  for (const prefix of ['CW', 'CX', 'CN'])
    expect(
      (await runCli(operator, ['--json', 'jobs', 'status', `ch-${prefix}-${tag}`])).json.error.code,
    ).toBe('job_not_found');
}, 180_000);
