// The compose topology's n8n, natively: n8n 2.40.7 on PostgreSQL with deploy/env/n8n.env (the n8n
// service's settings) in the same cluster as the Temporal server of the compose topology
// (temporal-workflows/test/topology: schema set-up, server 1.31 on postgres12, namespace and search
// attributes from deploy/). n8n migrates its database, loads the packed nodes package, and a workflow's
// Bulk Job node starts a job on that server, which a selling-kit worker runs into the simulator with its
// job store in the same cluster (the production configuration): the node reads the job's report from it
// through Temporal.
// @needs n8n-package, n8n, topology
import { randomBytes, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { DEMO, startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { join } from 'node:path';
import { createWorker, openJobStore } from '@selling-kit/temporal-workflows/worker';
import { readDeployEnv } from '../../../temporal-workflows/test/topology/deploy-env.ts';
import {
  startTemporalCluster,
  type TemporalCluster,
} from '../../../temporal-workflows/test/topology/temporal-cluster.ts';
import {
  type N8nClient,
  installPackedPackage,
  makeUserFolder,
  nodeOutput,
  ownerClient,
  type N8nInstance,
} from './harness.mts';
import { startN8nOnPostgres } from './postgres-n8n.mts';
import { workerAuth } from '../helpers/temporal.mts';
import { BULK, runOnce } from './workflows.mts';

const SETUP_MS = 10 * 60_000;
const TEST_MS = 4 * 60_000;

let userFolder = '';
let sim: RunningSimulator | undefined;
let cluster: TemporalCluster | undefined;
let n8n: N8nInstance | undefined;
let stopWorker: (() => Promise<void>) | undefined;
let client: N8nClient;
let credential: { id: string; name: string };
const key = randomBytes(32);
const taskQueue = readDeployEnv('worker.env').SELLING_KIT_TASK_QUEUE!;

beforeAll(async () => {
  userFolder = await makeUserFolder();
  const [started, c] = await Promise.all([
    startSimulator({ demo: true }),
    startTemporalCluster(),
    installPackedPackage(userFolder),
  ]);
  sim = started;
  cluster = c;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // installed by an earlier test file in this process
  }
  // The worker's job store: PostgreSQL, as workers on several hosts share it (the stores' role and
  // database, made by the cluster's set-up: deploy/postgres/init-roles.sh).
  const jobStore = openJobStore(cluster.roles.stores.url());
  const credentials = { demo: { baseUrl: sim.url, apiKey: DEMO.apiKey } };
  const auth = workerAuth(key, join(userFolder, 'client-keys.json'));
  const clientKey = auth.issue('n8n-postgres-e2e', Object.keys(credentials));
  const worker = await createWorker({
    jobStore,
    address: cluster.address,
    taskQueue,
    credentials: (ref) => credentials[ref as 'demo'],
    shopNames: () => Object.keys(credentials),
    codec: auth.codec,
  });
  const running = worker.worker.run();
  stopWorker = async () => {
    worker.worker.shutdown();
    await running;
    await worker.close();
    await jobStore.close();
  };
  n8n = await startN8nOnPostgres({
    userFolder,
    pg: cluster.pg,
    role: cluster.roles.n8n,
    logName: 'n8n-postgres-e2e.log',
  });
  client = await ownerClient(n8n);
  credential = await client.createCredential(
    'Selling-kit jobs (PostgreSQL e2e)',
    BULK.credentialType,
    BULK.credentialData(
      { httpUrl: cluster.httpUrl, taskQueue, clientKey, dir: userFolder },
      readDeployEnv('temporal-client.env').TEMPORAL_NAMESPACE,
    ),
  );
}, SETUP_MS);

afterAll(async () => {
  await n8n?.stop();
  await stopWorker?.();
  await cluster?.stop();
  await sim?.close();
  if (userFolder) await rm(userFolder, { recursive: true, force: true });
}, 120_000);

describe('n8n on PostgreSQL (the compose topology, natively)', () => {
  it(
    'keeps its data in PostgreSQL and runs the Bulk Job node against the topology’s Temporal server',
    async () => {
      // n8n migrated the database compose gives it (its tables are there, none in a SQLite file).
      // As n8n's own role (not superuser), in its own database.
      const { rows } = await cluster!.roles.n8n.query(
        "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name IN ('workflow_entity', 'credentials_entity', 'execution_entity')",
        readDeployEnv('n8n.env').DB_POSTGRESDB_DATABASE!,
      );
      expect(rows[0]).toEqual({ n: 3 });

      const skus = [1, 2, 3].map((n) => `E2E-PG-${randomUUID().slice(0, 4)}-${n}`);
      const jobId = `e2e-pg-${randomUUID().slice(0, 8)}`;
      const picture = `${sim!.url}/demo-assets/tee-black.png`;
      const nodes = BULK.inputItemsJob(credential, { skus, picture, jobId, maxWaitMinutes: 3 });
      const { id, response, execution } = await runOnce(
        client,
        'e2e: bulk job on the PostgreSQL topology',
        nodes,
      );
      expect(response.status).toBe(200);
      expect(execution.status).toBe('success');
      const [job] = nodeOutput(execution, 'Bulk Job');
      expect(job).toMatchObject({ jobId, state: 'finished', total: 3, done: 3, failed: 0 });
      const seller = sim!.world.sellers.get(DEMO.sellerId)!;
      expect(skus.filter((sku) => seller.skus.has(sku))).toEqual(skus);
      // The execution is stored in PostgreSQL.
      const stored = await cluster!.roles.n8n.query(
        `SELECT count(*)::int AS n FROM execution_entity WHERE "workflowId" = '${id}'`,
        readDeployEnv('n8n.env').DB_POSTGRESDB_DATABASE!,
      );
      expect(stored.rows[0]).toEqual({ n: 1 });
    },
    TEST_MS,
  );

  it(
    'returns the job’s report, one item per listing, from the worker’s PostgreSQL job store',
    async () => {
      const skus = [1, 2].map((n) => `E2E-PGR-${randomUUID().slice(0, 4)}-${n}`);
      const jobId = `e2e-pgr-${randomUUID().slice(0, 8)}`;
      const picture = `${sim!.url}/demo-assets/tee-black.png`;
      const nodes = BULK.inputItemsJob(credential, {
        skus,
        picture,
        jobId,
        maxWaitMinutes: 3,
        waitOutput: 'listings',
      });
      const { execution } = await runOnce(client, 'e2e: bulk job report on the PostgreSQL topology', nodes);
      expect(execution.status).toBe('success');
      const seller = sim!.world.sellers.get(DEMO.sellerId)!;
      expect(nodeOutput(execution, 'Bulk Job')).toEqual(
        skus.map((sku, i) =>
          expect.objectContaining({ jobId, line: i + 1, sku, status: 'ok', productId: seller.skus.get(sku) }),
        ),
      );
    },
    TEST_MS,
  );
});
