// Certificates for the TLS topology test, made with `openssl` in a temp folder: a CA, the server's
// certificate signed by it (SAN 127.0.0.1 and localhost; server and client use, since the server's
// own system worker presents it to the frontend under mTLS), a client certificate for mTLS, and a second
// CA that signed nothing the server shows (the "wrong CA").
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

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
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args, { timeout: 30_000 });
  } catch (e) {
    throw new Error(
      `openssl ${args[0]} failed: ${(e as { stderr?: string }).stderr ?? (e as Error).message}`,
    );
  }
}

async function makeCa(dir: string, name: string): Promise<{ cert: string; key: string }> {
  const [cert, key] = [join(dir, `${name}.pem`), join(dir, `${name}.key`)];
  await openssl([
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    ...['-keyout', key, '-out', cert, '-days', '2', '-subj', `/CN=${name}`],
    ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  ]);
  return { cert, key };
}

async function makeLeaf(
  dir: string,
  name: string,
  ca: { cert: string; key: string },
  extensions: string,
): Promise<{ cert: string; key: string }> {
  const [cert, key, csr, ext] = ['pem', 'key', 'csr', 'ext'].map((e) => join(dir, `${name}.${e}`)) as [
    string,
    string,
    string,
    string,
  ];
  writeFileSync(ext, extensions);
  await openssl([
    ...['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    ...['-keyout', key, '-out', csr, '-subj', `/CN=${name}`],
  ]);
  await openssl([
    ...['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial'],
    ...['-out', cert, '-days', '2', '-extfile', ext],
  ]);
  return { cert, key };
}

export async function makeTestCerts(): Promise<TestCerts> {
  const dir = mkdtempSync(join(tmpdir(), 'sk-tls-'));
  const ca = await makeCa(dir, 'test-ca');
  const other = await makeCa(dir, 'other-ca');
  const server = await makeLeaf(
    dir,
    'temporal-server',
    ca,
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth,clientAuth',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ].join('\n'),
  );
  const client = await makeLeaf(
    dir,
    'selling-kit-client',
    ca,
    ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=clientAuth'].join(
      '\n',
    ),
  );
  return {
    dir,
    caCert: ca.cert,
    serverCert: server.cert,
    serverKey: server.key,
    clientCert: client.cert,
    clientKey: client.key,
    otherCaCert: other.cert,
  };
}

/** The TLS table of a temporal.toml profile: the CA, client certificate and key files of `certs`. */
export const tomlTlsTable = (profile: string, certs: TestCerts) => [
  `[profile.${profile}.tls]`,
  `server_ca_cert_path = "${certs.caCert}"`,
  `client_cert_path = "${certs.clientCert}"`,
  `client_key_path = "${certs.clientKey}"`,
];
