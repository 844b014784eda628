// The Marketplace Bulk Job node over HTTPS with mTLS: the full Temporal server of the compose topology
// with TLS on its frontend (temporal-workflows' test/topology/tls-cluster.ts; the frontend's HTTP API
// serves the same TLS as its gRPC port, client certificate required), a worker connected over mTLS, and
// the node's requests made the way n8n makes them: the credential's `authenticate` applied, then
// `agentOptions` given to Node's HTTPS agent (what n8n's HTTP helper does with them). The PEM fields
// arrive as a password field keeps them, on one line. A wrong CA fails naming nothing secret.
// @needs topology
import { request as httpsRequest, Agent } from 'node:https';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { connectOptions, loadConnectionConfig } from '@selling-kit/temporal-workflows';
import { createWorker, feedPolicy, openJobStore } from '@selling-kit/temporal-workflows/worker';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { MarketplaceTemporalApi } from '../credentials/MarketplaceTemporalApi.credentials.ts';
import { MarketplaceBulkJob } from '../nodes/MarketplaceBulkJob/MarketplaceBulkJob.node.ts';
import { makeTestCerts, type TestCerts } from '../../temporal-workflows/test/topology/tls-certs.ts';
import { clientTlsEnv, startTlsCluster } from '../../temporal-workflows/test/topology/tls-cluster.ts';
import type { TemporalCluster } from '../../temporal-workflows/test/topology/temporal-cluster.ts';
import { FEED_HEADER as header, feedRow as row, workerAuth } from './helpers/temporal.mts';

let certs: TestCerts;
let cluster: TemporalCluster;
let sim: RunningSimulator;
let worker: Awaited<ReturnType<typeof createWorker>>;
let jobStore: ReturnType<typeof openJobStore>;
let running: Promise<void>;
let dir: string;
const key = randomBytes(32);
let clientKey: string;
const taskQueue = `n8n-tls-${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  certs = await makeTestCerts();
  [cluster, sim] = await Promise.all([
    startTlsCluster(certs),
    startSimulator({ demo: true, config: { fetchPictures: false } }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'sk-n8n-tls-'));
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const temporal = loadConnectionConfig(
    {},
    { env: { TEMPORAL_ADDRESS: cluster.address, ...clientTlsEnv(certs) } },
  );
  const credentials = { demo: { baseUrl: sim.url, apiKey: 'pak_demo_selling_kit' } };
  jobStore = openJobStore(join(dir, 'jobs'));
  const auth = workerAuth(key, join(dir, 'client-keys.json'));
  clientKey = auth.issue('n8n-tls', Object.keys(credentials));
  worker = await createWorker({
    jobStore,
    ...connectOptions(temporal),
    namespace: temporal.namespace,
    taskQueue,
    credentials: (ref) => credentials[ref as 'demo'],
    shopNames: () => Object.keys(credentials),
    codec: auth.codec,
    feedPolicy: feedPolicy({ roots: [dir] }), // the test's feed files
  });
  running = worker.worker.run();
}, 240_000);

afterAll(async () => {
  worker?.worker.shutdown();
  await running;
  await worker?.close();
  await jobStore?.close();
  await sim?.close();
  await cluster?.stop();
  for (const d of [dir, certs?.dir]) if (d) rmSync(d, { recursive: true, force: true });
}, 60_000);

/** A PEM as a password field keeps it: line breaks gone. */
const oneLine = (path: string) => readFileSync(path, 'utf8').replace(/\n/g, ' ');
const httpsUrl = () => cluster.httpUrl.replace('http://', 'https://');

/** n8n's httpRequestWithAuthentication: the credential's authenticate, then HTTPS with its agent options. */
function n8nHttp(credentials: Record<string, unknown>) {
  return async (_type: string, req: IHttpRequestOptions) => {
    const opts = await new MarketplaceTemporalApi().authenticate(credentials as never, req);
    const url = new URL(opts.url);
    for (const [k, v] of Object.entries(opts.qs ?? {})) url.searchParams.set(k, String(v));
    return new Promise<{ statusCode: number; body: unknown }>((resolve, reject) => {
      const r = httpsRequest(
        url,
        {
          method: opts.method,
          headers: { 'content-type': 'application/json', ...(opts.headers as Record<string, string>) },
          agent: new Agent(opts.agentOptions),
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () =>
            resolve({ statusCode: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }),
          );
        },
      );
      r.on('error', reject);
      r.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
    });
  };
}

function mock(params: Record<string, unknown>, credentials: Record<string, unknown>) {
  const fns = {
    getInputData: () => [{ json: {} }],
    getNode: () => ({ id: 'n', name: 'Bulk', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} }),
    getExecutionId: () => 'exec-tls',
    continueOnFail: () => false,
    getCredentials: async () => credentials,
    getNodeParameter: (name: string, _i: number, fallback?: unknown) =>
      name in params ? params[name] : fallback,
    helpers: { httpRequestWithAuthentication: n8nHttp(credentials) },
  };
  return fns as unknown as IExecuteFunctions;
}

const tlsCredentials = (ca = certs.caCert) => ({
  url: httpsUrl(),
  namespace: 'default',
  taskQueue,
  clientKey,
  apiKey: '',
  caCertificate: oneLine(ca),
  clientCertificate: oneLine(certs.clientCert),
  clientPrivateKey: oneLine(certs.clientKey),
});

describe('Marketplace Bulk Job node over HTTPS with mTLS', () => {
  it('the plain HTTP port is closed to plain HTTP: the frontend serves its HTTP API with TLS only', async () => {
    const res = await fetch(`${cluster.httpUrl}/api/v1/namespaces/default`);
    expect(res.status).toBe(400); // Go's answer to plain HTTP on a TLS port
  });

  it('starts a job and waits for it, with the CA and client certificate of the credential', async () => {
    const feed = join(dir, 'feed.csv');
    writeFileSync(feed, [header, row('TLS-1'), row('TLS-2')].join('\n') + '\n');
    const fns = mock(
      {
        operation: 'start',
        feed,
        format: 'csv',
        shops: 'demo',
        jobOperation: 'create',
        jobId: 'tls-1',
        wait: true,
        maxWaitMinutes: 5,
      },
      tlsCredentials(),
    );
    const [[item]] = (await new MarketplaceBulkJob().execute.call(fns)) as [
      [{ json: Record<string, unknown> }],
    ];
    expect(item!.json).toMatchObject({ jobId: 'tls-1', state: 'finished', total: 2, done: 2, failed: 0 });
    expect(['TLS-1', 'TLS-2'].every((s) => sim.world.sellers.get(1001)!.skus.has(s))).toBe(true);
  }, 120_000);

  it('a wrong CA is refused by the TLS handshake; a certificate field that is not PEM is named', async () => {
    const params = { operation: 'getProgress', jobId: 'tls-1' };
    const wrong = new MarketplaceBulkJob().execute.call(mock(params, tlsCredentials(certs.otherCaCert)));
    await expect(wrong).rejects.toThrow(
      /^CA Certificate: the Temporal server's certificate is not signed by this CA \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/,
    );
    const noClientCert = new MarketplaceBulkJob().execute.call(
      mock(params, { ...tlsCredentials(), clientCertificate: '', clientPrivateKey: '' }),
    );
    await expect(noClientCert).rejects.toThrow(
      /^Client Certificate: the Temporal server requires one \(mTLS\)/,
    );
    const notPem = new MarketplaceBulkJob().execute.call(
      mock(params, { ...tlsCredentials(), caCertificate: 'not a certificate' }),
    );
    await expect(notPem).rejects.toThrow('CA Certificate: not a PEM certificate');
    const noKey = new MarketplaceBulkJob().execute.call(
      mock(params, { ...tlsCredentials(), clientPrivateKey: '' }),
    );
    await expect(noKey).rejects.toThrow(/Client Private Key: mTLS needs both/);
  }, 60_000);
});
