// docker-compose.yml's topology run natively, with compose's configuration values (deploy/env/*.env, see
// deploy-env.ts): PostgreSQL, the schema set-up from empty, the Temporal server (the version compose pins,
// persistence postgres12), the namespace and search attributes, two `selling-kit worker` processes with
// the worker service's environment, and a bulk job started and followed with the `selling-kit` CLI. Mid-job
// one worker is SIGKILLed, then the Temporal server is killed and started again on the same database:
// every item must be in the report exactly once, and the simulator must hold each listing exactly once.
// @needs topology
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { auditShop } from '../../chaos/audit.ts';
import type { ItemResult } from '../../src/types.ts';
import { REPO_ROOT } from './deploy-env.ts';
import {
  detachedCreateArgs,
  runNode,
  sellerWithKey,
  startNode,
  workerServiceEnv,
  writeTopologyFeed,
} from './native-run.ts';
import { startTemporalCluster, type TemporalCluster } from './temporal-cluster.ts';

const CLI = join(REPO_ROOT, 'packages/cli/src/main.ts');
const ITEMS = 600; // 3 windows of the spec's 200 per 10 s: ~30 s of sending
const SHOP = 'shop-topology';

let cluster: TemporalCluster;
let sim: RunningSimulator;
let dir: string;
let env: Record<string, string>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  [cluster, sim] = await Promise.all([
    startTemporalCluster(),
    startSimulator({ port: 0, config: { fetchPictures: false } }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'sk-topology-run-'));
  // Workers on several hosts share the token store in PostgreSQL: the worker service's setting, the
  // selling_kit database as its own role (deploy/postgres/init-roles.sh, run by the cluster's set-up).
  // The worker service's environment (temporal-client.env + worker.env) with this machine's addresses
  // and paths, and the secrets compose takes from .env.
  env = workerServiceEnv(dir, cluster.address, cluster.roles.stores.url());
}, 180_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sim?.close();
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The CLI with the compose environment (PATH and HOME from this process, as a shell would give). */
const cli = (args: string[], timeoutMs?: number) =>
  runNode([CLI, ...args], { env, home: process.env.HOME }, timeoutMs, `selling-kit ${args.join(' ')}`);

/** `selling-kit worker` (compose's worker command is worker-main; the CLI reads the same variables). */
const startWorker = async (): Promise<ChildProcess> =>
  (await startNode([CLI, 'worker'], { env, home: process.env.HOME }, 'Ctrl-C stops it', children)).child;

const until = async (what: string, check: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('the compose topology, natively', () => {
  it('a bulk job survives a killed worker and a Temporal server restart: every item once, every listing once', async () => {
    const { seller, apiKey } = sellerWithKey(
      sim,
      { username: `topology-${randomUUID().slice(0, 6)}`, partnerId: 'partner-topology' },
      SHOP,
      env.SELLING_KIT_CREDENTIALS!,
    );
    const { feed, skus } = writeTopologyFeed(dir, `TOPO-${randomUUID().slice(0, 6)}`, ITEMS);

    const [first] = [await startWorker(), await startWorker()];
    const jobId = `topology-${randomUUID().slice(0, 8)}`;
    const started = await cli(detachedCreateArgs(feed, SHOP, jobId));
    expect({ code: started.code, stderr: started.stderr.includes(apiKey) }).toEqual({
      code: 0,
      stderr: false,
    });

    const listed = () => seller.products.size;
    await until('150 listings', () => listed() >= 150, 120_000);
    first!.kill('SIGKILL'); // a worker dies mid-window: its batch is retried by the other one
    await until('300 listings', () => listed() >= 300, 120_000);
    await cluster.stopServer('SIGKILL'); // the server crashes mid-job …
    const downAt = listed();
    await new Promise((r) => setTimeout(r, 2_000));
    await cluster.startServer(); // … and comes back on the same PostgreSQL
    expect(downAt).toBeLessThan(ITEMS); // the restart happened mid-job

    const watched = await cli(['--json', 'jobs', 'watch', jobId], 240_000);
    const summary = JSON.parse(watched.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ state: 'finished', total: ITEMS, ok: ITEMS, failed: 0, invalid: 0 });

    const report = readFileSync(summary.report as string, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ItemResult);
    const lines = report.map((r) => (r as { line: number }).line).sort((a, b) => a - b);
    expect(lines).toEqual(skus.map((_, i) => i + 1)); // every item, exactly once
    const listings = [...seller.products.values()].map((p) => ({ sku: p.sku, productId: p.productId }));
    const audit = auditShop(
      skus.map((sku, i) => ({ line: i + 1, sku })),
      listings,
      report,
    );
    expect(audit).toMatchObject({ items: ITEMS, listings: ITEMS, duplicates: 0, misreported: 0, lost: 0 });
    expect(audit.byStatus).toEqual({ ok: ITEMS });
  }, 420_000);
});
