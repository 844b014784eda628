// Certificates for the TLS topology tests, made in a temp folder by deploy/tls/make-certs.sh — the script
// an operator runs for compose, so the tests exercise the deployment's own certificates: a CA, the server's
// certificate signed by it (SANs temporal, localhost, 127.0.0.1; server and client use, since the server's
// own system worker presents it to the frontend under mTLS), the worker's client certificate for mTLS, and
// a second CA that signed nothing the server shows (the "wrong CA").
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './deploy-env.ts';

const run = promisify(execFile);

export interface TestCerts {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A CA that did not sign the server's certificate. */
  otherCaCert: string;
  /** A client certificate and key signed by that other CA (an intruder's own PKI). */
  otherClientCert: string;
  otherClientKey: string;
}

/** deploy/tls/make-certs.sh (what an operator runs for compose) into `out`, for `clients`. */
async function makeCerts(out: string, clients: string): Promise<void> {
  try {
    await run('sh', [join(REPO_ROOT, 'deploy/tls/make-certs.sh'), out], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', CLIENTS: clients, DAYS: '2' },
      timeout: 60_000,
    });
  } catch (e) {
    throw new Error(
      `deploy/tls/make-certs.sh failed: ${(e as { stderr?: string }).stderr ?? (e as Error).message}`,
    );
  }
}

export async function makeTestCerts(): Promise<TestCerts> {
  const dir = mkdtempSync(join(tmpdir(), 'sk-tls-'));
  await makeCerts(dir, 'worker');
  // Another CA: it signed nothing the server shows, and an intruder's client certificate.
  await makeCerts(join(dir, 'other'), 'intruder');
  return {
    dir,
    caCert: join(dir, 'ca.pem'),
    serverCert: join(dir, 'server/server.pem'),
    serverKey: join(dir, 'server/server.key'),
    clientCert: join(dir, 'worker/client.pem'),
    clientKey: join(dir, 'worker/client.key'),
    otherCaCert: join(dir, 'other/ca.pem'),
    otherClientCert: join(dir, 'other/intruder/client.pem'),
    otherClientKey: join(dir, 'other/intruder/client.key'),
  };
}

/** The TLS table of a temporal.toml profile: the CA, client certificate and key files of `certs`. */
export const tomlTlsTable = (profile: string, certs: TestCerts) => [
  `[profile.${profile}.tls]`,
  `server_ca_cert_path = "${certs.caCert}"`,
  `client_cert_path = "${certs.clientCert}"`,
  `client_key_path = "${certs.clientKey}"`,
];
