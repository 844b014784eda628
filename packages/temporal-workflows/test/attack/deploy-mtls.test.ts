// Attack: reaching Temporal from a container or host that holds no client certificate — an n8n HTTP
// Request node, a process on the compose network, a local user — to start, signal or read jobs. The
// deployment's Temporal (the full server on PostgreSQL, compose's configuration with
// deploy/env/temporal-server-tls.env, certificates from deploy/tls/make-certs.sh: the native topology of
// test/topology/tls-cluster.ts) requires a client certificate signed by the deployment's CA on its gRPC
// frontend and on the HTTP API n8n's Bulk Job node calls. Refused: no TLS at all, TLS without a client
// certificate (the server's alert "certificate required"), a certificate from another CA ("unknown ca");
// a workflow start tried that way leaves nothing on the server. Accepted: the deployment's client. The
// worker's health check asks the worker (/readyz), which reaches Temporal only with its own certificate.
// @needs topology
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect as tlsConnect } from 'node:tls';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { REPO_ROOT } from '../topology/deploy-env.ts';
import { runNode, startNode } from '../topology/native-run.ts';
import { freePort } from '../topology/postgres.ts';
import { HEALTH_ADDRESS_ENV } from '../../src/worker/health.ts';
import type { TemporalCluster } from '../topology/temporal-cluster.ts';
import { makeTestCerts, type TestCerts } from '../topology/tls-certs.ts';
import { clientTlsEnv, startTlsCluster } from '../topology/tls-cluster.ts';

const WORKER_MAIN = join(REPO_ROOT, 'packages/temporal-workflows/src/worker/worker-main.ts');
const HEALTHCHECK = join(REPO_ROOT, 'deploy/worker-healthcheck.mjs');

let certs: TestCerts;
let cluster: TemporalCluster;
let grpcPort: number;
let httpPort: number;

beforeAll(async () => {
  certs = await makeTestCerts();
  cluster = await startTlsCluster(certs);
  grpcPort = Number(cluster.address.split(':')[1]);
  httpPort = Number(new URL(cluster.httpUrl).port);
}, 300_000);

afterAll(async () => {
  await cluster?.stop();
  if (certs) rmSync(certs.dir, { recursive: true, force: true });
}, 60_000);

const pem = (path: string) => readFileSync(path);

/**
 * A TLS handshake with the frontend, then one byte of application data: answers how the server ended it
 * (TLS 1.3 sends its verdict on the client's certificate after the client's Finished).
 */
function handshake(port: number, client?: { cert: string; key: string }): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port,
      ca: pem(certs.caCert),
      servername: 'localhost',
      ALPNProtocols: ['h2', 'http/1.1'],
      ...(client ? { cert: pem(client.cert), key: pem(client.key) } : {}),
    });
    const done = (verdict: string) => {
      socket.destroy();
      resolve(verdict);
    };
    socket.once('secureConnect', () => {
      socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
      socket.once('data', () => done('accepted'));
    });
    socket.once('error', (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
    socket.once('close', () => done('closed'));
  });
}

const tlsPair = (cert: string, key: string) => ({ crt: pem(cert), key: pem(key) });

describe("Temporal behind mTLS (the deployment's native topology)", () => {
  it('a TLS client without a certificate is refused by the server: alert "certificate required"', async () => {
    expect(await handshake(grpcPort)).toBe('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
    expect(await handshake(httpPort)).toBe('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
  });

  it('a certificate from another CA (an intruder\'s own PKI) is refused: alert "unknown ca"', async () => {
    const intruder = { cert: certs.otherClientCert, key: certs.otherClientKey };
    expect(await handshake(grpcPort, intruder)).toBe('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA');
    expect(await handshake(httpPort, intruder)).toBe('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA');
  });

  it("the deployment's client certificate is accepted on both ports", async () => {
    const mine = { cert: certs.clientCert, key: certs.clientKey };
    expect(await handshake(grpcPort, mine)).toBe('accepted');
    expect(await handshake(httpPort, mine)).toBe('accepted');
  });

  it('the HTTP API (what an n8n HTTP Request node would call): refused in plain HTTP and without a certificate, answered with one', async () => {
    const path = `/api/v1/namespaces/${cluster.clientEnv.TEMPORAL_NAMESPACE}/workflows`;
    // Plain HTTP to the TLS port: Go's TLS server answers 400 and nothing else.
    const plain = await fetch(`http://127.0.0.1:${httpPort}${path}`);
    expect({ status: plain.status, body: await plain.text() }).toEqual({
      status: 400,
      body: expect.stringContaining('Client sent an HTTP request to an HTTPS server'),
    });
    const get = (client?: { cert: string; key: string }) =>
      new Promise<number | string>((resolve) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port: httpPort,
            path,
            ca: pem(certs.caCert),
            servername: 'localhost',
            agent: false,
            ...(client ? { cert: pem(client.cert), key: pem(client.key) } : {}),
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
        req.end();
      });
    expect(await get()).toBe('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
    expect(await get({ cert: certs.clientCert, key: certs.clientKey })).toBe(200);
  }, 60_000);

  it('a workflow start without a client certificate or without TLS fails, and nothing is started', async () => {
    const workflowId = `mtls-attack-${randomUUID()}`;
    const start = async (tls: TLSConfig | undefined) => {
      const connection = await Connection.connect({ address: cluster.address, tls, connectTimeout: 5_000 });
      try {
        await new Client({ connection, namespace: cluster.clientEnv.TEMPORAL_NAMESPACE }).workflow.start(
          'bulkListingWorkflow',
          { taskQueue: 'selling-kit', workflowId, args: [{}] },
        );
        return 'started';
      } finally {
        await connection.close();
      }
    };
    await expect(start(undefined)).rejects.toThrow();
    await expect(
      start({ serverRootCACertificate: pem(certs.caCert), serverNameOverride: 'localhost' }),
    ).rejects.toThrow();
    // The deployment's own client sees no such workflow.
    const connection = await Connection.connect({
      address: cluster.address,
      tls: {
        serverRootCACertificate: pem(certs.caCert),
        serverNameOverride: 'localhost',
        clientCertPair: tlsPair(certs.clientCert, certs.clientKey),
      },
    });
    try {
      const client = new Client({ connection, namespace: cluster.clientEnv.TEMPORAL_NAMESPACE });
      await expect(client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
    } finally {
      await connection.close();
    }
  }, 60_000);

  it("the worker service's health check (deploy/worker-healthcheck.mjs) asks the worker, whose readiness reaches Temporal with its certificate; without one the worker does not start", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sk-mtls-health-'));
    writeFileSync(join(dir, 'credentials.json'), '{}');
    const port = await freePort();
    const env: Record<string, string> = {
      ...cluster.clientEnv,
      ...clientTlsEnv(certs),
      SELLING_KIT_TASK_QUEUE: `q-${randomUUID()}`,
      SELLING_KIT_CREDENTIALS: join(dir, 'credentials.json'),
      SELLING_KIT_JOB_STORE: join(dir, 'jobs'),
      SELLING_KIT_KEY_FILE: join(dir, 'codec.key'),
      SELLING_KIT_CODEC: '0', // this test reads no payload
      [HEALTH_ADDRESS_ENV]: `127.0.0.1:${port}`,
    };
    const where = { env, home: dir };
    const children: ChildProcess[] = [];
    try {
      await startNode([WORKER_MAIN], where, 'worker ready', children);
      const deadline = Date.now() + 60_000;
      let check = await runNode([HEALTHCHECK], where);
      while (check.code !== 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        check = await runNode([HEALTHCHECK], where);
      }
      expect(check).toMatchObject({ code: 0 });
      // Ready through the worker's own connection: mTLS with its client certificate.
      const ready = (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as {
        checks: Record<string, { ok: boolean; detail?: string }>;
      };
      expect(ready.checks.temporal).toEqual({
        ok: true,
        detail: `namespace ${cluster.clientEnv.TEMPORAL_NAMESPACE}`,
      });
    } finally {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    }
    // The same worker without its client certificate: refused by the server, it exits before serving.
    const bare = Object.fromEntries(Object.entries(env).filter(([k]) => !(k in clientTlsEnv(certs))));
    const refused = await runNode([WORKER_MAIN], { env: bare, home: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the worker cannot connect');
    expect(await runNode([HEALTHCHECK], where)).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^health check failed: /),
    });
    rmSync(dir, { recursive: true, force: true });
  }, 180_000);
});
